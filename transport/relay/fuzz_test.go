package relay

import (
	"bytes"
	"net/netip"
	"testing"
)

// FuzzParse: Parse never panics, and what it reads writes back to the
// same bytes (each message has one encoding).
func FuzzParse(f *testing.F) {
	for _, m := range []Message{
		{Kind: KindRegister, Key: [32]byte{1}, Lease: 3, Code: 5},
		{Kind: KindRegistered, Lease: 3, Code: 5, Refresh: 30},
		{Kind: KindLeave, Lease: 3},
		{Kind: KindJoin, Code: 5, Nonce: 8},
		{Kind: KindJoined, Nonce: 8, Key: [32]byte{2}},
		{Kind: KindRefused, Nonce: 8, Reason: ReasonFull},
		{Kind: KindToServer, Frame: []byte{1, 2, 3}},
		{Kind: KindFromPeer, Peer: 7, Frame: []byte{0}},
	} {
		f.Add(m.Append(nil))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b)
		if err != nil {
			return
		}
		if out := m.Append(nil); !bytes.Equal(out, b) {
			t.Fatalf("% x read as %+v writes back as % x", b, m, out)
		}
	})
}

// FuzzRelay: a relay holding one code and one joiner takes anything from
// the server, the joiner and a stranger without panicking, and never
// sends more than 4 bytes over what it was sent (the peer number it adds
// to a joiner's datagram for the server).
func FuzzRelay(f *testing.F) {
	w := newWorld(&testing.T{}, Config{})
	code := w.register()
	j, _ := w.joiner(code, joinerAt, 4)
	up, _ := j.Seal(nil, []byte("hello"))
	f.Add(byte(0), up)
	f.Add(byte(1), (&Message{Kind: KindToPeer, Peer: 1, Frame: []byte{0, 1}}).Append(nil))
	f.Add(byte(2), (&Message{Kind: KindJoin, Code: code}).Append(nil))
	f.Add(byte(1), w.h.Register(nil, 0))
	f.Add(byte(1), w.h.Leave(nil))
	stranger := netip.MustParseAddrPort("[2001:db8::1]:9")
	f.Fuzz(func(t *testing.T, who byte, b []byte) {
		w := newWorld(t, Config{})
		code := w.register()
		j, _ := w.joiner(code, joinerAt, 4)
		_ = j
		from := []netip.AddrPort{joinerAt, serverAt, stranger}[int(who)%3]
		w.r.Receive(from, b, w.now)
		for {
			_, out, ok := w.r.Next()
			if !ok {
				break
			}
			if len(out) > len(b)+4 {
				t.Fatalf("%d bytes in, %d out", len(b), len(out))
			}
		}
		w.now += 1e9
		w.r.Poll(w.now)
	})
}

package netmsg

import (
	"bytes"
	"errors"
	"testing"

	"vkm/internal/entity"
	"vkm/transport"
)

// FuzzPayload feeds both ends' payload parsers arbitrary payloads, each to
// a fresh channel: never a panic; what they refuse is a *ParseError or the
// channel's protocol error; the packet proper they return is the end of
// the payload; a client's payload is the server's with no relay; and a
// payload with no reliable section is exactly what AppendPayload writes
// for the relay and packet it holds.
func FuzzPayload(f *testing.F) {
	relay := relaySeeds()[1].Append(nil)
	f.Add(AppendPayload(nil, sending(f, "hello"), nil, []byte{1, 2, 3}, 0))
	f.Add(AppendPayload(nil, sending(f, "hi", "hello"), relay, []byte{0xC0, 0xFF}, 0))
	f.Add(AppendPayload(nil, nil, relay, []byte{0xC0}, 0))
	f.Add([]byte{0, 9, 9})
	f.Add([]byte{})
	f.Add([]byte{0x80})
	f.Add([]byte{flagReliable, 0})
	f.Add([]byte{flagRelay, 0})
	guests := GuestSection{{Local: 1, Player: 3, Entity: entity.ID{Slot: 61, Gen: 1}}}.Append(nil)
	f.Add(AppendServerPayload(nil, nil, relay, []byte{0xC0}, guests, 0))
	f.Add(AppendServerPayload(nil, sending(f, "hi"), nil, []byte{0xC0}, guests, 0))
	f.Fuzz(func(t *testing.T, p []byte) {
		var r Relay
		var g GuestSection
		main, err := ParseServerPayloadGuests(p, newReliable(t), &r, &g)
		if err != nil && !errors.Is(err, transport.ErrReliableProtocol) {
			mustParseError(t, err)
		}
		if err == nil {
			if len(main) >= len(p) || (p[0]&flagGuests == 0 && !bytes.HasSuffix(p, main)) {
				t.Fatalf("returned % x from % x", main, p)
			}
			if p[0]&flagReliable == 0 {
				var section, gs []byte
				if p[0]&flagRelay != 0 {
					section = r.Append(nil)
				}
				if p[0]&flagGuests != 0 {
					gs = g.Append(nil)
				}
				if again := AppendServerPayload(nil, nil, section, main, gs, 0); !bytes.Equal(again, p) {
					t.Fatalf("parsed % x as relay %+v, % x and guests %+v, which frame as % x", p, r, main, g, again)
				}
			}
		}
		cmain, cerr := ParseClientPayload(p, newReliable(t))
		switch {
		case len(p) > 0 && p[0]&(flagRelay|flagGuests) != 0:
			if cerr == nil {
				t.Fatalf("a client's payload with a relay: % x", p)
			}
		case (cerr == nil) != (err == nil) || !bytes.Equal(cmain, main):
			t.Fatalf("% x: the client's payload reads as % x, %v; the server's as % x, %v", p, cmain, cerr, main, err)
		}
	})
}

// TestPayloadCarriesARelay: a server's payload carries the relay between
// the reliable section and the snapshot; a client's may not.
func TestPayloadCarriesARelay(t *testing.T) {
	relay := relaySeeds()[1].Append(nil)
	p := AppendPayload(nil, sending(t, "hello"), relay, []byte{0xC0, 0xFF}, 0)
	if p[0] != flagReliable|flagRelay {
		t.Fatalf("flags %#x", p[0])
	}
	in := newReliable(t)
	var got Relay
	main, err := ParseServerPayload(p, in, &got)
	if err != nil || !bytes.Equal(main, []byte{0xC0, 0xFF}) || len(got) != len(relaySeeds()[1]) {
		t.Fatalf("% x: main % x, relay %+v, %v", p, main, got, err)
	}
	if msg, ok := in.Receive(); !ok || string(msg) != "hello" {
		t.Errorf("the channel got %q, %v", msg, ok)
	}
	in = newReliable(t)
	if _, err := ParseClientPayload(p, in); err == nil {
		t.Error("a client's payload with a relay section was read")
	}
	if _, ok := in.Receive(); ok {
		t.Error("the reliable section of a refused client payload was read")
	}
	plain := AppendPayload(nil, nil, nil, []byte{0xC0}, 0)
	if main, err := ParseServerPayload(plain, nil, &got); err != nil || len(got) != 0 || !bytes.Equal(main, []byte{0xC0}) {
		t.Errorf("no relay: main % x, relay %+v, %v", main, got, err)
	}
	if main, err := ParseClientPayload(plain, nil); err != nil || !bytes.Equal(main, []byte{0xC0}) {
		t.Errorf("a client's plain payload: % x, %v", main, err)
	}
}

// TestPayloadGivesTheChannelWhatIsLeft: the relay's room and the packet's
// are never the channel's: a payload is at most transport.MaxDataPayload,
// the packet and relay whole, and the channel gets the rest.
func TestPayloadGivesTheChannelWhatIsLeft(t *testing.T) {
	relay := relaySeeds()[1].Append(nil)
	for _, main := range [][]byte{make([]byte, 600), make([]byte, transport.MaxDataPayload-PayloadOverhead-len(relay))} {
		big := sending(t, string(make([]byte, 4000)))
		p := AppendPayload(nil, big, relay, main, 0)
		if len(p) > transport.MaxDataPayload {
			t.Errorf("a payload of %d bytes; the most is %d", len(p), transport.MaxDataPayload)
		}
		if !bytes.HasSuffix(p, append(append([]byte(nil), relay...), main...)) {
			t.Errorf("the relay and packet were not written whole")
		}
		if len(main) < 600 && p[0]&flagReliable != 0 {
			t.Errorf("a full datagram carried a reliable section")
		}
		if len(main) == 600 && len(p) < transport.MaxDataPayload-transport.ReliableFragmentHeader {
			t.Errorf("a %d-byte payload left the channel room unused", len(p))
		}
	}
}

// TestPayloadAppends: AppendPayload writes after what dst holds.
func TestPayloadAppends(t *testing.T) {
	p := AppendPayload([]byte("head"), nil, nil, []byte{7}, 0)
	if string(p) != "head\x00\x07" {
		t.Fatalf("% x", p)
	}
	p = AppendPayload([]byte("head"), sending(t, "hi"), nil, []byte{7}, 0)
	main, err := ParseClientPayload(p[4:], newReliable(t))
	if err != nil || !bytes.Equal(main, []byte{7}) {
		t.Fatalf("% x: % x, %v", p, main, err)
	}
}

// TestPayloadRefuses: a payload no end writes.
func TestPayloadRefuses(t *testing.T) {
	for name, p := range map[string][]byte{
		"empty":                  {},
		"unknown flags":          {0x80, 1},
		"a relay cut short":      {flagRelay, 2, 1, 1, 0x80},
		"a reliable section cut": {flagReliable, 1, 0},
	} {
		if _, err := ParseServerPayload(p, newReliable(t), new(Relay)); err == nil {
			t.Errorf("%s: read", name)
		}
	}
	if _, err := ParseServerPayload([]byte{flagReliable, 1}, nil, new(Relay)); err == nil {
		t.Error("a reliable section read with no channel")
	} else {
		mustParseError(t, err)
	}
}

// TestPayloadDoesNotAllocate: every datagram is framed and read, so
// neither allocates once the buffers have grown.
func TestPayloadDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what escapes")
	}
	relay := relaySeeds()[1].Append(nil)
	main := make([]byte, 200)
	buf := AppendPayload(nil, nil, relay, main, 0)
	dst := make(Relay, 0, MaxRelayed)
	cbuf := AppendPayload(nil, nil, nil, main, 0)
	if n := testing.AllocsPerRun(100, func() {
		buf = AppendPayload(buf[:0], nil, relay, main, 0)
		_, _ = ParseServerPayload(buf, nil, &dst)
		cbuf = AppendPayload(cbuf[:0], nil, nil, main, 0)
		_, _ = ParseClientPayload(cbuf, nil)
	}); n != 0 {
		t.Errorf("%v allocations a payload", n)
	}
}

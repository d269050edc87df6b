package relay

import (
	"bytes"
	"crypto/ecdh"
	"errors"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"vkm/transport"
)

func seeded(seed uint64) *rand.ChaCha8 {
	var s [32]byte
	s[0], s[1] = byte(seed), byte(seed>>8)
	return rand.NewChaCha8(s)
}

var (
	serverAt = netip.MustParseAddrPort("198.51.100.7:40000")
	joinerAt = netip.MustParseAddrPort("203.0.113.9:50000")
)

// world is a relay, a server's Host and a Joiner wired together in
// memory; view holds every datagram the relay was handed, as it saw it.
type world struct {
	t      *testing.T
	r      *Relay
	h      *Host
	key    *ecdh.PrivateKey
	now    transport.Time
	view   [][]byte
	toHost [][]byte // what the relay sent the server
	toJoin map[netip.AddrPort][][]byte
}

func newWorld(t *testing.T, cfg Config) *world {
	t.Helper()
	if cfg.Rand == nil {
		cfg.Rand = seeded(1)
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewKey(seeded(2))
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHost(k, seeded(3))
	if err != nil {
		t.Fatal(err)
	}
	return &world{t: t, r: r, h: h, key: k, toJoin: map[netip.AddrPort][][]byte{}}
}

// relay hands b from from to the relay and sorts what it sends.
func (w *world) relay(from netip.AddrPort, b []byte) {
	w.view = append(w.view, append([]byte(nil), b...))
	w.r.Receive(from, b, w.now)
	for {
		to, out, ok := w.r.Next()
		if !ok {
			return
		}
		c := append([]byte(nil), out...)
		if to == serverAt {
			w.toHost = append(w.toHost, c)
		} else {
			w.toJoin[to] = append(w.toJoin[to], c)
		}
	}
}

// register registers the host and returns its code.
func (w *world) register() Code {
	w.t.Helper()
	w.relay(serverAt, w.h.Register(nil, w.now))
	ev := w.hostTakes()
	if !ev.Registered || ev.Code == 0 {
		w.t.Fatalf("no registration: %+v", ev)
	}
	return ev.Code
}

// hostTakes hands the host the oldest datagram the relay sent it.
func (w *world) hostTakes() HostEvent {
	w.t.Helper()
	if len(w.toHost) == 0 {
		w.t.Fatal("the relay sent the server nothing")
	}
	b := w.toHost[0]
	w.toHost = w.toHost[1:]
	ev, err := w.h.Receive(b, w.now)
	if err != nil {
		w.t.Fatalf("the server: %v", err)
	}
	return ev
}

// joinerTakes hands j the oldest datagram the relay sent to at.
func (w *world) joinerTakes(j *Joiner, at netip.AddrPort) JoinerEvent {
	w.t.Helper()
	q := w.toJoin[at]
	if len(q) == 0 {
		w.t.Fatalf("the relay sent %v nothing", at)
	}
	w.toJoin[at] = q[1:]
	ev, err := j.Receive(q[0])
	if err != nil {
		w.t.Fatalf("the joiner: %v", err)
	}
	return ev
}

func (w *world) joiner(code Code, at netip.AddrPort, seed uint64) (*Joiner, JoinerEvent) {
	w.t.Helper()
	j, err := NewJoiner(code, seeded(seed))
	if err != nil {
		w.t.Fatal(err)
	}
	w.relay(at, j.Join(nil))
	return j, w.joinerTakes(j, at)
}

func TestCodeTextRoundTrips(t *testing.T) {
	for _, c := range []Code{1, 0x1234567, MaxCode} {
		s := c.String()
		got, err := ParseCode(s)
		if err != nil || got != c {
			t.Errorf("%d → %q → %d, %v", c, s, got, err)
		}
	}
	c, err := ParseCode(" k7m q2p")
	if err != nil || c.String() != "K7M-Q2P" {
		t.Errorf("typed lower case with spaces: %v %v", c, err)
	}
	if c2, _ := ParseCode("K7M-Q2P"); c2 != c {
		t.Error("the dash changed the code")
	}
	if a, _ := ParseCode("0I1" + "L0O"); a.String() != "011-100" {
		t.Errorf("O, I and L read as %v", a)
	}
	for _, bad := range []string{"", "K7M-Q2", "K7M-Q2PP", "K7M-Q2U", "000-000"} {
		if _, err := ParseCode(bad); !errors.Is(err, ErrCode) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	code, at, ok, err := SplitJoin("K7M-Q2P@relay.example.org:27900")
	if !ok || err != nil || code.String() != "K7M-Q2P" || at != "relay.example.org:27900" {
		t.Errorf("SplitJoin: %v %q %v %v", code, at, ok, err)
	}
	if _, _, ok, _ := SplitJoin("10.0.0.1:27960"); ok {
		t.Error("an address read as a code")
	}
	if _, _, ok, err := SplitJoin("not a code@relay"); !ok || err == nil {
		t.Errorf("a bad code before @: %v %v", ok, err)
	}
	if p, ok := IsPeerAddr(PeerAddr(77)); !ok || p != 77 {
		t.Error("PeerAddr does not read back")
	}
	if _, ok := IsPeerAddr(TokenAddr(5, 27900)); ok {
		t.Error("a token address read as a peer's")
	}
}

// Every message survives Append and Parse, and Parse refuses a wrong
// length, version or padding.
func TestMessagesRoundTrip(t *testing.T) {
	msgs := []Message{
		{Kind: KindRegister, Key: [32]byte{1, 2}, Lease: 9, Code: 77},
		{Kind: KindRegistered, Lease: 9, Code: 77, Refresh: 30},
		{Kind: KindLeave, Lease: 9},
		{Kind: KindJoin, Code: 77, Nonce: 5},
		{Kind: KindJoined, Nonce: 5, Key: [32]byte{3}},
		{Kind: KindRefused, Nonce: 5, Reason: ReasonExpired},
		{Kind: KindToServer, Frame: []byte{0, 1, 2}},
		{Kind: KindFromPeer, Peer: 4, Frame: []byte{0, 1}},
		{Kind: KindToPeer, Peer: 4, Frame: []byte{0}},
		{Kind: KindFromServer, Frame: []byte{0, 9}},
	}
	for _, m := range msgs {
		b := m.Append(nil)
		got, err := Parse(b)
		if err != nil {
			t.Fatalf("kind %d: %v", m.Kind, err)
		}
		if !bytes.Equal(got.Append(nil), b) {
			t.Errorf("kind %d: %+v read back as %+v", m.Kind, m, got)
		}
		if n, fixed := fixedSize(m.Kind); fixed {
			if _, err := Parse(b[:n-1]); !errors.Is(err, ErrLength) {
				t.Errorf("kind %d cut short: %v", m.Kind, err)
			}
		}
	}
	j := (&Message{Kind: KindJoin, Code: 1}).Append(nil)
	j[len(j)-1] = 1
	if _, err := Parse(j); err == nil {
		t.Error("a Join with padding that is not zero")
	}
	v := (&Message{Kind: KindLeave}).Append(nil)
	v[2] = 2
	if _, err := Parse(v); !errors.Is(err, ErrVersion) {
		t.Errorf("another version: %v", err)
	}
}

// A joiner reaches the server by its code, and the datagrams each sends
// arrive as sent, the server's as from the joiner's peer number.
func TestAJoinerAndItsServerTalkThroughTheRelay(t *testing.T) {
	w := newWorld(t, Config{})
	code := w.register()
	j, ev := w.joiner(code, joinerAt, 4)
	if !ev.Joined || j.ServerKey() != publicKey(w.key) {
		t.Fatalf("joined %v; the server's key handed over: %v", ev.Joined, j.ServerKey() == publicKey(w.key))
	}
	for i := range 10 {
		msg := []byte{'u', byte(i)}
		b, _ := j.Seal(nil, msg)
		w.relay(joinerAt, b)
		hev := w.hostTakes()
		if !bytes.Equal(hev.Datagram, msg) || hev.Peer == 0 {
			t.Fatalf("the server got %q from peer %d", hev.Datagram, hev.Peer)
		}
		back, err := w.h.Seal(nil, hev.Peer, []byte{'d', byte(i)})
		if err != nil {
			t.Fatal(err)
		}
		w.relay(serverAt, back)
		if jev := w.joinerTakes(j, joinerAt); !bytes.Equal(jev.Datagram, []byte{'d', byte(i)}) {
			t.Fatalf("the joiner got %q", jev.Datagram)
		}
	}
	if b, _ := j.Seal(nil, []byte("x")); len(b) != HeaderSize+frameHead+1+sealOverhead {
		t.Errorf("a frame after the server answered is %d bytes: the key is still sent", len(b))
	}
	st := w.r.Stats()
	if st.Forwarded != 20 || st.Codes != 1 || st.Peers != 1 {
		t.Errorf("relay stats %v", st)
	}
}

// The relay sees every datagram and holds the server's public key, and
// still cannot read one nor make one either end accepts: a changed byte,
// a replay, a frame of its own on the player's peer number, and a
// tunnel of its own to the server each fail; the cleartext appears in
// nothing it saw, and a tunnel it opens itself gets other keys.
func TestJoinCodeRelayCannotOpenOrForge(t *testing.T) {
	w := newWorld(t, Config{})
	code := w.register()
	j, _ := w.joiner(code, joinerAt, 4)
	secretUp := []byte("the player's command: fire at 12,34")
	secretDown := []byte("the server's snapshot: ann at 56,78")
	var peerNum uint32
	var upFrames, downFrames [][]byte
	for range 5 {
		b, _ := j.Seal(nil, secretUp)
		w.relay(joinerAt, b)
		upFrames = append(upFrames, w.toHost[len(w.toHost)-1])
		peerNum = w.hostTakes().Peer
		back, _ := w.h.Seal(nil, peerNum, secretDown)
		w.relay(serverAt, back)
		downFrames = append(downFrames, w.toJoin[joinerAt][len(w.toJoin[joinerAt])-1])
		w.joinerTakes(j, joinerAt)
	}
	for i, b := range w.view {
		if bytes.Contains(b, secretUp) || bytes.Contains(b, secretDown) || bytes.Contains(b, w.key.Bytes()) {
			t.Fatalf("datagram %d of the relay's view shows the cleartext or the server's private key", i)
		}
	}
	forgedBefore := w.h.Stats().Forged
	// Each byte of a frame changed, one at a time, and each frame
	// replayed.
	tries := 0
	for _, f := range upFrames {
		for at := PeerHeadSize; at < len(f); at++ {
			c := append([]byte(nil), f...)
			c[at] ^= 0x20
			if _, err := w.h.Receive(c, w.now); err == nil {
				t.Fatalf("the server took a frame changed at byte %d", at)
			}
			tries++
		}
		if _, err := w.h.Receive(f, w.now); err == nil {
			t.Fatal("the server took a replayed frame")
		}
		tries++
	}
	for _, f := range downFrames {
		for at := HeaderSize; at < len(f); at++ {
			c := append([]byte(nil), f...)
			c[at] ^= 0x01
			if _, err := j.Receive(c); err == nil {
				t.Fatalf("the joiner took a frame changed at byte %d", at)
			}
		}
		if _, err := j.Receive(f); err == nil {
			t.Fatal("the joiner took a replayed frame")
		}
	}
	// The relay as a joiner of its own: it gets a tunnel to the server,
	// but under other keys, so the player's frames do not open in it, and
	// its frames on the player's peer number are refused.
	mallory, err := NewJoiner(code, seeded(66))
	if err != nil {
		t.Fatal(err)
	}
	joined := (&Message{Kind: KindJoined, Nonce: mallory.nonce, Key: j.ServerKey()}).Append(nil)
	if _, err := mallory.Receive(joined); err != nil {
		t.Fatal(err)
	}
	for _, f := range downFrames {
		if _, err := mallory.Receive(append([]byte(nil), f...)); err == nil {
			t.Fatal("a tunnel of the relay's own opened the server's frame to the player")
		}
	}
	fake, _ := mallory.Seal(nil, []byte("the relay's own command"))
	asPlayer := (&Message{Kind: KindFromPeer, Peer: peerNum, Frame: fake[HeaderSize:]}).Append(nil)
	if _, err := w.h.Receive(asPlayer, w.now); err == nil {
		t.Fatal("the server took the relay's frame as the player's")
	}
	if got := w.h.Stats().Forged - forgedBefore; got != uint64(tries)+1 {
		t.Errorf("the server counted %d forged frames, want %d", got, tries+1)
	}
	// The player's tunnel still works after all that.
	b, _ := j.Seal(nil, secretUp)
	w.relay(joinerAt, b)
	if ev := w.hostTakes(); !bytes.Equal(ev.Datagram, secretUp) {
		t.Fatalf("after the forgeries the server got %q", ev.Datagram)
	}
	t.Logf("relay view: %d datagrams; %d changed or replayed frames refused", len(w.view), tries)
}

// A code nobody holds is refused as unknown; a code whose server left,
// or stopped refreshing it, as expired; a code with all its joiners as
// full; and a source asking too often as rate.
func TestJoinCodeWrongAndExpired(t *testing.T) {
	w := newWorld(t, Config{MaxPeers: 2, JoinRate: 100})
	code := w.register()
	wrong := code ^ 1
	if _, ev := w.joiner(wrong, joinerAt, 4); ev.Refused != ReasonUnknown {
		t.Errorf("a wrong code: %+v", ev)
	}
	a := netip.MustParseAddrPort("203.0.113.9:50001")
	b := netip.MustParseAddrPort("203.0.113.9:50002")
	c := netip.MustParseAddrPort("203.0.113.10:50003")
	for _, at := range []netip.AddrPort{a, b} {
		if _, ev := w.joiner(code, at, 5); !ev.Joined {
			t.Fatalf("%v: %+v", at, ev)
		}
	}
	if _, ev := w.joiner(code, c, 6); ev.Refused != ReasonFull {
		t.Errorf("a third joiner of two: %+v", ev)
	}
	w.relay(serverAt, w.h.Leave(nil))
	if _, ev := w.joiner(code, c, 7); ev.Refused != ReasonExpired {
		t.Errorf("after the server left: %+v", ev)
	}
	if st := w.r.Stats(); st.Codes != 0 || st.Peers != 0 {
		t.Errorf("the relay still holds %v", st)
	}
	// A new registration, which then goes quiet.
	w.h.code = 0
	code2 := w.register()
	w.now += transport.Time(DefaultKeep / 2)
	w.relay(serverAt, w.h.Register(nil, w.now)) // a refresh
	w.hostTakes()
	w.now += transport.Time(DefaultKeep - time.Second)
	w.r.Poll(w.now)
	if _, ev := w.joiner(code2, c, 8); !ev.Joined {
		t.Fatalf("a refreshed code: %+v", ev)
	}
	w.now += transport.Time(DefaultKeep + time.Second)
	w.r.Poll(w.now)
	if _, ev := w.joiner(code2, c, 9); ev.Refused != ReasonExpired {
		t.Errorf("a code not refreshed: %+v", ev)
	}
	w.now += transport.Time(DefaultRemember + time.Second)
	w.r.Poll(w.now)
	if _, ev := w.joiner(code2, c, 10); ev.Refused != ReasonUnknown {
		t.Errorf("a code long gone: %+v", ev)
	}
	// The host asks for its old code back and gets it.
	w.relay(serverAt, w.h.Register(nil, w.now))
	if ev := w.hostTakes(); ev.Code != code2 {
		t.Errorf("re-registering gave %v, want %v back", ev.Code, code2)
	}
	// Join attempts over the source's rate.
	wr := newWorld(t, Config{JoinRate: 1, JoinBurst: 3})
	code3 := wr.register()
	var reasons []Reason
	for i := range 5 {
		_, ev := wr.joiner(code3^2, joinerAt, uint64(20+i))
		reasons = append(reasons, ev.Refused)
	}
	if reasons[2] != ReasonUnknown || reasons[3] != ReasonRate {
		t.Errorf("five quick joins were refused for %v", reasons)
	}
	for _, r := range []Reason{ReasonUnknown, ReasonExpired, ReasonFull, ReasonRate} {
		if r.String() == "" {
			t.Errorf("reason %d has no sentence", r)
		}
	}
}

// The relay never writes one side's address to the other: no datagram
// it sends holds the bytes of the other end's IP or port.
func TestTheRelayTellsNeitherSideTheOthersAddress(t *testing.T) {
	w := newWorld(t, Config{})
	code := w.register()
	j, _ := w.joiner(code, joinerAt, 4)
	b, _ := j.Seal(nil, []byte("hi"))
	w.relay(joinerAt, b)
	p := w.hostTakes().Peer
	back, _ := w.h.Seal(nil, p, []byte("ho"))
	w.relay(serverAt, back)
	ja, sa := joinerAt.Addr().As4(), serverAt.Addr().As4()
	for _, d := range w.toHost {
		if bytes.Contains(d, ja[:]) {
			t.Error("the server was sent the joiner's address")
		}
	}
	for _, d := range w.toJoin[joinerAt] {
		if bytes.Contains(d, sa[:]) {
			t.Error("the joiner was sent the server's address")
		}
	}
}

// Datagrams over a code's rate, or over one joiner's, are dropped and
// counted.
func TestACodesRateIsBounded(t *testing.T) {
	wp := newWorld(t, Config{PeerRate: 100, PeerBurst: 5})
	jp, _ := wp.joiner(wp.register(), joinerAt, 4)
	other, _ := wp.joiner(wp.h.code, netip.MustParseAddrPort("203.0.113.77:1"), 5)
	for range 8 {
		b, _ := jp.Seal(nil, []byte("x"))
		wp.relay(joinerAt, b)
	}
	b, _ := other.Seal(nil, []byte("y"))
	wp.relay(netip.MustParseAddrPort("203.0.113.77:1"), b)
	if st := wp.r.Stats(); st.Forwarded != 6 || st.Limited != 3 {
		t.Errorf("8 from one joiner with a burst of 5, then 1 from another: %v", st)
	}
	w := newWorld(t, Config{Rate: 100, Burst: 10})
	code := w.register()
	j, _ := w.joiner(code, joinerAt, 4)
	for range 30 {
		b, _ := j.Seal(nil, []byte("x"))
		w.relay(joinerAt, b)
	}
	if st := w.r.Stats(); st.Forwarded != 10 || st.Limited != 20 {
		t.Errorf("30 at once with a burst of 10: %v", st)
	}
	w.now += transport.Time(100 * time.Millisecond) // 10 more earned
	for range 12 {
		b, _ := j.Seal(nil, []byte("x"))
		w.relay(joinerAt, b)
	}
	if st := w.r.Stats(); st.Forwarded != 20 {
		t.Errorf("after 100 ms at 100 a second: %v", st)
	}
}

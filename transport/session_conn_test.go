package transport_test

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"testing"
	"time"

	"vkm/transport"
	"vkm/transport/handshake"
	"vkm/transport/memnet"
	"vkm/transport/seal"
	"vkm/wire"
)

// forgeData returns a Data datagram: token, then a connection header with
// seq, ack and ack bits, then payload.
func forgeData(token uint64, seq, ack wire.Seq, bits uint32, payload string) []byte {
	b := handshake.Header{Version: handshake.Version, Kind: handshake.KindData, Token: token}.Append(nil)
	b = binary.LittleEndian.AppendUint16(b, uint16(seq))
	b = binary.LittleEndian.AppendUint16(b, uint16(ack))
	b = binary.LittleEndian.AppendUint32(b, bits)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(payload)))
	return append(b, payload...)
}

// takeDatagram returns the one datagram c has queued.
func takeDatagram(t testing.TB, c *transport.Client) []byte {
	t.Helper()
	b, ok := c.NextDatagram()
	if !ok {
		t.Fatal("nothing queued")
	}
	return append([]byte(nil), b...)
}

// joined returns a sim with one client that has joined over a perfect link
// and exchanged a second of Data.
func joined(t *testing.T, seed uint64) (*sim, *peer) {
	t.Helper()
	s := newSim(t, seed, transport.ServerConfig{})
	p := s.addClient("p", memnet.Perfect, transport.ClientConfig{})
	s.join(time.Second)
	exchange(t, s, p, time.Second)
	return s, p
}

// A Data datagram with a wrong token, numbered far ahead and acknowledging
// everything, is dropped before the Conn sees it: the Conn's counters and
// acknowledgements do not move, and the next real packet is accepted. The
// same datagram with the seat's token would have done the damage.
func TestWrongTokenDoesNotMoveWindow(t *testing.T) {
	const seed = 0x8000
	s, p := joined(t, seed)
	conn := s.srv.Conn(1)
	// The server's last 40 sends, and what is known of their fate.
	var sent []wire.Seq
	for range 40 {
		seq, err := s.srv.Send(1, []byte("snap"), s.now)
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, seq)
	}
	for _, _, ok := s.srv.NextDatagram(); ok; _, _, ok = s.srv.NextDatagram() {
	}
	fates := func() (acked int) {
		for _, q := range sent {
			if a, _ := conn.Acked(q); a {
				acked++
			}
		}
		return acked
	}
	before, ackedBefore := conn.Stats(), fates()
	drops := s.srv.Stats().Drops
	clientNext := wire.Seq(p.c.Conn().Stats().PacketsSent)
	token := s.srv.SeatToken(1)
	forged := forgeData(token^0x5a5a, clientNext+1000, sent[len(sent)-1], ^uint32(0), "forged")

	s.srv.Receive(p.addr, forged, s.now)
	// The right token from another address has no seat either.
	s.srv.Receive(netip.MustParseAddrPort("203.0.113.5:40001"), forgeData(token, clientNext+1000, sent[39], ^uint32(0), "x"), s.now)
	if _, ok := s.srv.NextEvent(); ok {
		t.Fatal("a forged datagram made an event")
	}
	after := s.srv.Stats().Drops
	if conn.Stats() != before || fates() != ackedBefore || after.BadToken != drops.BadToken+1 || after.NoSeat != drops.NoSeat+1 {
		t.Fatalf("conn %+v -> %+v, acked %d -> %d, drops %+v -> %+v", before, conn.Stats(), ackedBefore, fates(), drops, after)
	}

	// The client's next real packet is accepted.
	if _, err := p.c.Send([]byte("real"), s.now); err != nil {
		t.Fatal(err)
	}
	real1 := takeDatagram(t, p.c)
	s.srv.Receive(p.addr, real1, s.now)
	e, ok := s.srv.NextEvent()
	if !ok || e.Kind != transport.EventData || string(e.Payload) != "real" || e.Seq != clientNext {
		t.Fatalf("real packet after the forgery: %+v %v", e, ok)
	}

	// Contrast: carrying the seat's token, the same datagram is believed,
	// confirms packets the client never acknowledged, and has the next
	// real packet refused as stale.
	s.srv.Receive(p.addr, forgeData(token, clientNext+1000, sent[39], ^uint32(0), "forged"), s.now)
	s.srv.NextEvent()
	ackedByForgery := fates() - ackedBefore
	if _, err := p.c.Send([]byte("real2"), s.now); err != nil {
		t.Fatal(err)
	}
	s.srv.Receive(p.addr, takeDatagram(t, p.c), s.now)
	_, accepted := s.srv.NextEvent()
	t.Logf("seed %d: wrong token: conn unchanged (%d received, %d acked), next real packet seq %d accepted; right token: %d sends falsely acked, next real packet accepted=%v; drops %+v",
		seed, before.PacketsReceived, before.Acked, clientNext, ackedByForgery, accepted, s.srv.Stats().Drops)
	if accepted || ackedByForgery == 0 {
		t.Fatal("the contrast did not show: the forged numbering did no harm even with the token")
	}
}

// The client, too, drops what does not carry its token, before its Conn
// sees it, and Challenges, Refuses and Welcomes while it plays.
func TestClientDropsForgedDatagrams(t *testing.T) {
	const seed = 0x8100
	s, p := joined(t, seed)
	c := p.c.Conn()
	before := c.Stats()
	token := s.srv.SeatToken(1)
	serverNext := wire.Seq(s.srv.Conn(1).Stats().PacketsSent)
	forged := [][]byte{
		forgeData(token+1, serverNext+1000, 0, 0, "forged"),
		handshake.AppendDatagram(nil, token+1, handshake.Goodbye{Reason: handshake.GoodbyeKicked}),
		handshake.AppendDatagram(nil, 77, handshake.Challenge{}),
		handshake.AppendDatagram(nil, token, handshake.Refuse{Reason: handshake.ReasonFull}),
		handshake.AppendDatagram(nil, token, handshake.Welcome{Player: 9, MaxPlayers: 9, TickRate: 64}),
	}
	for _, b := range forged {
		p.c.Receive(b, s.now)
	}
	st := p.c.Stats()
	t.Logf("seed %d: client after %d forgeries: %v, drops %+v", seed, len(forged), p.c.State(), st.Drops)
	if c.Stats() != before || p.c.State() != transport.StatePlaying || p.c.Player() != 1 ||
		st.BadToken != 2 || st.Unexpected != 3 {
		t.Fatalf("conn %+v -> %+v; state %v; drops %+v", before, c.Stats(), p.c.State(), st.Drops)
	}
	if _, err := s.srv.Send(1, []byte("real"), s.now); err != nil {
		t.Fatal(err)
	}
	_, b, _ := s.srv.NextDatagram()
	p.c.Receive(b, s.now)
	if e, ok := p.c.NextEvent(); !ok || string(e.Payload) != "real" {
		t.Fatalf("the next real packet: %+v %v", e, ok)
	}
}

// A packet older than one already accepted is refused, at both ends, and
// makes no event.
func TestStalePacketRefused(t *testing.T) {
	const seed = 0x9000
	s, p := joined(t, seed)
	events := len(s.serverEvents(transport.EventData))
	p.c.Send([]byte("one"), s.now)
	one := takeDatagram(t, p.c)
	p.c.Send([]byte("two"), s.now)
	two := takeDatagram(t, p.c)
	stale := s.srv.Stats().Stale
	for _, b := range [][]byte{two, one, two} { // reordered, then duplicated
		s.srv.Receive(p.addr, b, s.now)
		s.flush()
	}
	got := s.serverEvents(transport.EventData)[events:]
	if len(got) != 1 || string(got[0].Payload) != "two" || s.srv.Stats().Stale != stale+2 {
		t.Fatalf("events %+v, stale %d -> %d", got, stale, s.srv.Stats().Stale)
	}

	s.srv.Send(1, []byte("three"), s.now)
	_, b3, _ := s.srv.NextDatagram()
	three := append([]byte(nil), b3...)
	s.srv.Send(1, []byte("four"), s.now)
	_, four, _ := s.srv.NextDatagram()
	p.c.Receive(four, s.now)
	p.c.Receive(three, s.now)
	var payloads []string
	for e, ok := p.c.NextEvent(); ok; e, ok = p.c.NextEvent() {
		payloads = append(payloads, string(e.Payload))
	}
	t.Logf("seed %d: server took %q and refused 2 stale (%d in all); client took %v and refused %d", seed,
		got[0].Payload, s.srv.Stats().Stale, payloads, p.c.Stats().Stale)
	if len(payloads) != 1 || payloads[0] != "four" || p.c.Stats().Stale != 1 {
		t.Fatalf("client took %v, stale %d", payloads, p.c.Stats().Stale)
	}
}

// A session carrying 70,000 packets each way wraps the 16-bit sequence and
// keeps working.
func TestSequenceWrapSession(t *testing.T) {
	if testing.Short() {
		t.Skip("18 minutes of simulated play")
	}
	const seed = 0xa000
	const packets = 70000
	s := newSim(t, seed, transport.ServerConfig{})
	p := s.addClient("long", memnet.Broadband, transport.ClientConfig{})
	s.join(3 * time.Second)
	var up, down int
	var lastUp, lastDown wire.Seq
	s.tick(time.Second/64, func(now transport.Time) {
		if up < packets {
			seq, err := p.c.Send([]byte("command"), now)
			if err != nil {
				t.Fatal(err)
			}
			up, lastUp = up+1, seq
		}
		if down < packets {
			seq, err := s.srv.Send(1, []byte("snapshot"), now)
			if err != nil {
				t.Fatal(err)
			}
			down, lastDown = down+1, seq
		}
	})
	s.run(at(20*time.Minute), func() bool { return up == packets && down == packets })
	s.onEvery = nil
	// Measured now: once the traffic stops, acknowledgements ride the
	// keep-alives, 250 ms apart, and the samples grow.
	rttUp, rttDown := s.srv.Conn(1).RTT(), p.c.Conn().RTT()
	s.runFor(time.Second) // what is still in flight lands
	// Counting: the events after the wrap, on each side.
	afterWrap := func(seqs []wire.Seq) (n int) {
		wrapped := false
		for i := 1; i < len(seqs); i++ {
			if seqs[i] < seqs[i-1] {
				wrapped = true
			}
			if wrapped {
				n++
			}
		}
		return n
	}
	var upSeqs, downSeqs []wire.Seq
	for _, e := range s.serverEvents(transport.EventData) {
		upSeqs = append(upSeqs, e.Seq)
	}
	for _, e := range p.events {
		if e.Kind == transport.EventData {
			downSeqs = append(downSeqs, e.Seq)
		}
	}
	sc, cc := s.srv.Conn(1), p.c.Conn()
	t.Logf("%v", s)
	t.Logf("sent up %d (last seq %d) down %d (last seq %d); received up %d (%d after the wrap) down %d (%d after the wrap)",
		up, lastUp, down, lastDown, len(upSeqs), afterWrap(upSeqs), len(downSeqs), afterWrap(downSeqs))
	t.Logf("server conn %+v rtt %v; client conn %+v rtt %v", sc.Stats(), rttDown, cc.Stats(), rttUp)
	if p.c.State() != transport.StatePlaying || s.srv.PlayerCount() != 1 || len(s.serverEvents(transport.EventLeft)) != 0 {
		t.Fatalf("session ended: %v %q", p.c.State(), p.c.LastError())
	}
	least := packets * 985 / 1000
	if up != packets || down != packets || len(upSeqs) < least || len(downSeqs) < least || afterWrap(upSeqs) < 4000 || afterWrap(downSeqs) < 4000 {
		t.Fatal("traffic did not survive the wrap")
	}
	for _, rtt := range []time.Duration{rttUp, rttDown} {
		if rtt < 65*time.Millisecond || rtt > 100*time.Millisecond {
			t.Fatalf("RTT %v after the wrap", rtt)
		}
	}
}

// A server that stops answering ends a playing client in Disconnected with
// a sentence, and the server times the player out too; a join that is never
// answered ends the same way.
func TestTimeoutDisconnects(t *testing.T) {
	const seed = 0xb000
	s := newSim(t, seed, transport.ServerConfig{})
	p := s.addClient("lost", memnet.Broadband, transport.ClientConfig{})
	s.join(3 * time.Second)
	exchange(t, s, p, time.Second)
	p.cutUp, p.cutDown = true, true
	cut := s.now
	s.run(s.now.Add(11*time.Second), func() bool {
		return p.c.State() != transport.StatePlaying && s.srv.PlayerCount() == 0
	})
	left := s.serverEvents(transport.EventLeft)
	ended, _ := p.ended()
	t.Logf("%v", s)
	t.Logf("cut at %v; client %v at %v: %q; server left %+v", time.Duration(cut), p.c.State(), time.Duration(s.now), p.c.LastError(), left)
	if p.c.State() != transport.StateDisconnected || p.c.LastError() != "The server stopped answering (10 s)." ||
		ended.State != transport.StateDisconnected || ended.Sentence != p.c.LastError() {
		t.Fatalf("client %v %q %+v", p.c.State(), p.c.LastError(), ended)
	}
	if len(left) != 1 || left[0].Player != 1 || left[0].Reason != handshake.GoodbyeTimeout {
		t.Fatalf("server left events %+v", left)
	}
	s.wantSeats(0)

	q := s.addClient("unheard", memnet.Broadband, transport.ClientConfig{Conn: transport.Config{Timeout: 3 * time.Second}})
	q.cutUp = true
	start := s.now
	s.run(s.now.Add(4*time.Second), func() bool { return q.c.State() != transport.StateJoining })
	t.Logf("unanswered join: %v after %v: %q (%d hellos)", q.c.State(), s.now.Sub(start), q.c.LastError(), q.c.Stats().Hellos)
	if q.c.State() != transport.StateDisconnected || q.c.LastError() != "The server did not answer (3 s)." {
		t.Fatalf("unanswered join: %v %q", q.c.State(), q.c.LastError())
	}
}

// The server's Goodbye (shutdown) and Kick end a client in Disconnected with
// the reason's sentence; the client's Leave frees its seat at once.
func TestGoodbyes(t *testing.T) {
	const seed = 0xc000
	s := newSim(t, seed, transport.ServerConfig{})
	a := s.addClient("a", memnet.Broadband, transport.ClientConfig{})
	b := s.addClient("b", memnet.Broadband, transport.ClientConfig{})
	c := s.addClient("c", memnet.Broadband, transport.ClientConfig{})
	s.join(3 * time.Second)

	if !s.srv.Kick(c.c.Player(), s.now) || s.srv.Kick(c.c.Player(), s.now) {
		t.Fatal("Kick: not exactly once")
	}
	s.flush()
	firstConn := s.srv.Conn(a.c.Player())
	a.c.Leave(s.now)
	s.flush()
	s.runFor(500 * time.Millisecond)
	if a.c.State() != transport.StateDisconnected || a.c.LastError() != "" || a.count(transport.EventEnded) != 0 {
		t.Fatalf("after Leave: %v %q", a.c.State(), a.c.LastError())
	}
	if c.c.State() != transport.StateDisconnected || c.c.LastError() != handshake.GoodbyeKicked.Sentence() {
		t.Fatalf("kicked: %v %q", c.c.State(), c.c.LastError())
	}
	s.wantSeats(1)

	// A new client from a's address gets a new number and a Conn of its own.
	again := s.addClient("a2", memnet.Broadband, transport.ClientConfig{})
	delete(s.byAddr, again.addr)
	again.addr = a.addr
	s.byAddr[a.addr] = again
	s.peers = []*peer{again, b} // c, kicked, stays out
	s.join(3 * time.Second)
	fresh := s.srv.Conn(again.c.Player())
	if again.c.Player() != 4 || fresh == nil || fresh == firstConn {
		t.Fatalf("rejoin from the same address: player %d, conn %p (was %p)", again.c.Player(), fresh, firstConn)
	}

	s.srv.Goodbye(s.now)
	s.flush()
	s.runFor(time.Second)
	var reasons []string
	for _, e := range s.serverEvents(transport.EventLeft) {
		reasons = append(reasons, e.Reason.String())
	}
	t.Logf("%v", s)
	t.Logf("left: %v; b: %v %q; a2: %v %q", reasons, b.c.State(), b.c.LastError(), again.c.State(), again.c.LastError())
	for _, q := range []*peer{b, again} {
		if q.c.State() != transport.StateDisconnected || q.c.LastError() != "The server shut down." {
			t.Fatalf("%s after the server's goodbye: %v %q", q.name, q.c.State(), q.c.LastError())
		}
	}
	if len(reasons) != 4 || reasons[0] != "kicked" || reasons[1] != "quit" || reasons[2] != "shutdown" || reasons[3] != "shutdown" ||
		s.srv.Stats().Joins != 4 {
		t.Fatalf("left reasons %v", reasons)
	}
	s.wantSeats(0)
	if _, err := b.c.Send(nil, s.now); !errors.Is(err, transport.ErrNotPlaying) {
		t.Fatalf("Send after the goodbye: %v", err)
	}
	if _, err := s.srv.Send(1, nil, s.now); !errors.Is(err, transport.ErrNoPlayer) {
		t.Fatalf("Send to a departed player: %v", err)
	}
}

// Nothing is ever sent over MaxDatagram: a payload that would not fit is
// refused at both ends. MaxDataPayload leaves room for sealing, so an
// unsealed connection's largest datagram is seal.Overhead short of it.
func TestDataPayloadLimit(t *testing.T) {
	s, p := joined(t, 0xd000)
	big := make([]byte, transport.MaxDataPayload)
	if _, err := s.srv.Send(1, big, s.now); err != nil {
		t.Fatal(err)
	}
	_, b, _ := s.srv.NextDatagram()
	if _, err := p.c.Send(big, s.now); err != nil {
		t.Fatal(err)
	}
	cb, _ := p.c.NextDatagram()
	_, errS := s.srv.Send(1, append(big, 0), s.now)
	_, errC := p.c.Send(append(big, 0), s.now)
	t.Logf("seed %d: largest Data: server %d bytes, client %d bytes; one more byte: %v / %v", s.seed, len(b), len(cb), errS, errC)
	if len(b) != transport.MaxDatagram-seal.Overhead || len(cb) != transport.MaxDatagram-seal.Overhead ||
		!errors.Is(errS, transport.ErrTooLarge) || !errors.Is(errC, transport.ErrTooLarge) {
		t.Fatal("payload limit")
	}
}

// A Welcome that carries the client's token but does not decode is the
// server's answer, unreadable by this build: the join ends at once rather
// than waiting out the timeout.
func TestAnUnreadableWelcomeEndsTheJoin(t *testing.T) {
	c := transport.NewClient(transport.ClientConfig{Hello: clientHello("ada")}, 0)
	c.Poll(0)
	const token = 0x1234
	c.Receive(handshake.AppendDatagram(nil, token, handshake.Challenge{Nonce: c.AttemptNonce()}), at(time.Millisecond))
	bad := handshake.Header{Version: handshake.Version, Kind: handshake.KindWelcome, Token: token}.Append(nil)
	c.Receive(append(bad, 1, 2, 3), at(2*time.Millisecond))
	if c.State() != transport.StateDisconnected || c.LastError() != transport.UnreadableWelcome {
		t.Fatalf("state %v, last error %q", c.State(), c.LastError())
	}
}

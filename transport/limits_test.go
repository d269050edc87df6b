package transport_test

import (
	"net/netip"
	"testing"
	"time"

	"vkm/transport"
	"vkm/transport/handshake"
	"vkm/transport/memnet"
)

// Hellos from one IP, any ports, are read up to HelloBurst at once and
// HelloRate a second after; the rest are dropped unread and counted, and
// another IP is not held back by them.
func TestHelloLimitPerIP(t *testing.T) {
	const seed = 0x8500
	s := newSim(t, seed, transport.ServerConfig{})
	hello := handshake.AppendDatagram(nil, 0, clientHello(""))
	answered := func(from netip.AddrPort, now transport.Time) bool {
		s.srv.Receive(from, hello, now)
		_, _, ok := s.srv.NextDatagram()
		return ok
	}
	flood := netip.AddrFrom4([4]byte{203, 0, 113, 1})
	now := at(time.Second)
	n := 0
	for i := range 1000 {
		if answered(netip.AddrPortFrom(flood, uint16(1000+i)), now) {
			n++
		}
	}
	later := 0
	for i := range 1000 { // one second more, a Hello a millisecond
		if answered(netip.AddrPortFrom(flood, 5000), now.Add(time.Duration(i+1)*time.Millisecond)) {
			later++
		}
	}
	other := answered(netip.MustParseAddrPort("203.0.113.2:1000"), now)
	st := s.srv.Stats()
	t.Logf("seed %d: 1000 at once: %d answered; then 1000 over a second: %d answered; limited %d; another IP answered %v",
		seed, n, later, st.HelloLimited, other)
	if n != transport.HelloBurst || later < transport.HelloRate-2 || later > transport.HelloRate+2 || !other {
		t.Fatalf("answered %d then %d", n, later)
	}
	if st.HelloLimited != uint64(2000-n-later) {
		t.Fatalf("limited %d", st.HelloLimited)
	}
}

// A seat within its rate loses nothing to the meter; one that sends ten
// times what a client does has the excess dropped and, within a flood
// window, is ended and told why (GoodbyeFlood).
func TestSeatRateLimit(t *testing.T) {
	const seed = 0x8600
	s := newSim(t, seed, transport.ServerConfig{})
	p := s.addClient("ada", memnet.Perfect, transport.ClientConfig{})
	s.join(time.Second)
	exchange(t, s, p, 2*time.Second)
	if f := s.srv.Stats().Flooded; f != 0 {
		t.Fatalf("a client at the command rate had %d datagrams dropped", f)
	}
	start := s.now
	s.tick(time.Second/640, func(now transport.Time) { _, _ = p.c.Send([]byte("command"), now) })
	s.run(s.now.Add(3*time.Second), func() bool { return p.c.State() != transport.StatePlaying })
	left := s.serverEvents(transport.EventLeft)
	t.Logf("%v; ended after %v: %q", s, time.Duration(s.now-start), p.c.LastError())
	if len(left) != 1 || left[0].Reason != handshake.GoodbyeFlood || p.c.LastError() != handshake.GoodbyeFlood.Sentence() {
		t.Fatalf("left %+v, client %q", left, p.c.LastError())
	}
	if s.srv.Stats().Flooded == 0 || time.Duration(s.now-start) > 3*time.Second {
		t.Fatal("not dropped, or ended late")
	}
}

// Every seat the server ends is told why: one whose datagrams stop
// reaching the server (the other way still works) is told it timed out,
// and one the game ends for breaking the protocol is told that.
func TestEndedSeatsAreToldWhy(t *testing.T) {
	const seed = 0x8700
	s := newSim(t, seed, transport.ServerConfig{})
	mute := s.addClient("mute", memnet.Broadband, transport.ClientConfig{})
	rude := s.addClient("rude", memnet.Broadband, transport.ClientConfig{})
	s.join(3 * time.Second)
	mute.cutUp = true
	if !s.srv.End(rude.c.Player(), handshake.GoodbyeProtocol, s.now) {
		t.Fatal("End: not seated")
	}
	s.flush()
	s.runFor(transport.DefaultTimeout + time.Second)
	t.Logf("%v; mute %q; rude %q", s, mute.c.LastError(), rude.c.LastError())
	if mute.c.LastError() != handshake.GoodbyeTimeout.Sentence() || rude.c.LastError() != handshake.GoodbyeProtocol.Sentence() {
		t.Fatal("not told why")
	}
}

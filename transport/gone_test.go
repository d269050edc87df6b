package transport_test

import (
	"net/netip"
	"testing"
	"time"

	"vkm/transport"
	"vkm/transport/handshake"
	"vkm/transport/memnet"
)

// TestLinkGoneEndsTheSeatAtOnce: a carrier's word that a player's link
// closed ends the seat then, with the reason given and no Goodbye sent,
// as the player's own Goodbye would; an address with no seat is left
// alone.
func TestLinkGoneEndsTheSeatAtOnce(t *testing.T) {
	s := newSim(t, 0x6f01, transport.ServerConfig{})
	p := s.addClient("ada", memnet.Broadband, transport.ClientConfig{Hello: clientHello("ada")})
	s.join(3 * time.Second)
	s.runFor(time.Second)
	player := p.c.Player()
	if s.srv.LinkGone(netip.MustParseAddrPort("[fd76:6b6d:0:3::1]:1"), handshake.GoodbyeQuit, s.now) {
		t.Fatal("an address with no seat: want false")
	}
	s.flushServer()
	if !s.srv.LinkGone(p.addr, handshake.GoodbyeQuit, s.now) {
		t.Fatal("the seat's address: want true")
	}
	if _, _, ok := s.srv.NextDatagram(); ok {
		t.Fatal("a datagram was queued for a link that is gone")
	}
	s.flushServer()
	left := s.serverEvents(transport.EventLeft)
	if len(left) != 1 || left[0].Player != player || left[0].Reason != handshake.GoodbyeQuit || s.srv.PlayerCount() != 0 {
		t.Fatalf("left %+v, %d seated; want player %d gone for quit", left, s.srv.PlayerCount(), player)
	}
	s.wantSeats(0)
	if s.srv.LinkGone(p.addr, handshake.GoodbyeQuit, s.now) {
		t.Fatal("told twice: want false the second time")
	}
}

// TestLinkGoneHoldsARejoinableSeat: a link that failed, on a server that
// keeps seats for a rejoin, holds the seat at once rather than ending it,
// and the client takes it back over a new link.
func TestLinkGoneHoldsARejoinableSeat(t *testing.T) {
	s, p := rejoinSim(t, 0x6f02, 10*time.Second)
	player := p.c.Player()
	old := p.addr
	moveTo(s, p, netip.MustParseAddrPort("198.51.100.9:51000"))
	if s.srv.LinkGone(old, handshake.GoodbyeTimeout, s.now) {
		t.Fatal("a rejoinable seat's failed link: want it held, not ended")
	}
	s.flushServer()
	held := s.serverEvents(transport.EventHeld)
	if len(held) != 1 || held[0].Player != player || len(s.serverEvents(transport.EventLeft)) != 0 {
		t.Fatalf("held %+v left %+v; want player %d held", held, s.serverEvents(transport.EventLeft), player)
	}
	untilPlaying(t, s, p, 3*time.Second)
	if r := s.serverEvents(transport.EventRejoined); len(r) != 1 || r[0].Player != player || r[0].Addr != p.addr {
		t.Fatalf("rejoined %+v; want player %d from %v", r, player, p.addr)
	}
}

package transport_test

import (
	"errors"
	"testing"
	"time"

	"vkm/transport"
	"vkm/transport/memnet"
)

// Guests take seats: a connection's guests count toward MaxPlayers, a new
// connection finds the server full once they fill it, a guest that leaves
// gives its seat back, and a connection that goes takes its guests' seats
// with it.
func TestGuestSeatsCountTowardTheMaximum(t *testing.T) {
	const seed = 0x6e57
	s := newSim(t, seed, transport.ServerConfig{MaxPlayers: 4})
	a := s.addClient("ada", memnet.Broadband, transport.ClientConfig{})
	s.join(3 * time.Second)
	owner := a.c.Player()
	g1, err1 := s.srv.SeatGuest(owner)
	g2, err2 := s.srv.SeatGuest(owner)
	if err1 != nil || err2 != nil || g1 == g2 || g1 == owner || g2 == owner {
		t.Fatalf("guests %d (%v) and %d (%v) of player %d", g1, err1, g2, err2, owner)
	}
	if n := s.srv.PlayerCount(); n != 3 {
		t.Fatalf("%d seats taken with two guests", n)
	}
	if o, ok := s.srv.GuestOwner(g2); !ok || o != owner {
		t.Fatalf("guest %d's owner is %d (%v)", g2, o, ok)
	}
	if _, err := s.srv.SeatGuest(g1); !errors.Is(err, transport.ErrNoPlayer) {
		t.Fatalf("a guest of a guest: %v", err)
	}
	b := s.addClient("bo", memnet.Broadband, transport.ClientConfig{})
	s.join(3 * time.Second)
	c := s.addClient("cy", memnet.Broadband, transport.ClientConfig{})
	s.runFor(2 * time.Second)
	if b.c.State() != transport.StatePlaying || c.c.State() == transport.StatePlaying {
		t.Fatalf("the fourth seat: bo %v, cy %v %q", b.c.State(), c.c.State(), c.c.LastError())
	}
	t.Logf("%v; cy: %q", s, c.c.LastError())
	if _, err := s.srv.SeatGuest(owner); !errors.Is(err, transport.ErrFull) {
		t.Fatalf("a third guest on a full server: %v", err)
	}
	if o, ok := s.srv.UnseatGuest(g1); !ok || o != owner || s.srv.PlayerCount() != 3 {
		t.Fatalf("unseating guest %d: owner %d (%v), %d seats", g1, o, ok, s.srv.PlayerCount())
	}
	if _, ok := s.srv.UnseatGuest(g1); ok {
		t.Fatal("a guest unseated twice")
	}
	if got := s.srv.AppendGuests(nil, owner); len(got) != 1 || got[0] != g2 {
		t.Fatalf("the owner's guests %v", got)
	}
	s.srv.Kick(owner, s.now)
	if n := s.srv.PlayerCount(); n != 1 {
		t.Fatalf("%d seats taken after the owner went", n)
	}
	if _, ok := s.srv.GuestOwner(g2); ok {
		t.Fatal("the departed owner's guest is still seated")
	}
}

// A connection seats at most MaxGuests guests.
func TestGuestLimit(t *testing.T) {
	s := newSim(t, 0x6e58, transport.ServerConfig{MaxPlayers: 16})
	a := s.addClient("ada", memnet.Broadband, transport.ClientConfig{})
	s.join(3 * time.Second)
	for i := range transport.MaxGuests {
		if _, err := s.srv.SeatGuest(a.c.Player()); err != nil {
			t.Fatalf("guest %d: %v", i+1, err)
		}
	}
	if _, err := s.srv.SeatGuest(a.c.Player()); !errors.Is(err, transport.ErrGuestLimit) {
		t.Fatalf("guest %d: %v", transport.MaxGuests+1, err)
	}
}

// Guests and spectators keep to their own bounds: a player and a guest fill
// a two-seat server, a spectator is still let in and takes no seat, and a
// spectator, who plays no one, seats no guest.
func TestGuestsFillSeatsSpectatorsDoNot(t *testing.T) {
	const seed = 0x6e59
	s := newSim(t, seed, transport.ServerConfig{MaxPlayers: 2, MaxSpectators: 1})
	a := s.addClient("ada", memnet.Broadband, transport.ClientConfig{})
	s.join(3 * time.Second)
	if _, err := s.srv.SeatGuest(a.c.Player()); err != nil {
		t.Fatal(err)
	}
	hello := clientHello("wat")
	hello.Spectator = true
	w := s.addClient("wat", memnet.Broadband, transport.ClientConfig{Hello: hello})
	s.runFor(2 * time.Second)
	if w.c.State() != transport.StatePlaying {
		t.Fatalf("the spectator on a server whose seats a guest filled: %v %q", w.c.State(), w.c.LastError())
	}
	if n, sp := s.srv.PlayerCount(), s.srv.Spectators(); n != 2 || sp != 1 {
		t.Fatalf("%d seats taken and %d spectators, want 2 and 1", n, sp)
	}
	if _, err := s.srv.SeatGuest(w.c.Player()); !errors.Is(err, transport.ErrNoPlayer) {
		t.Fatalf("a spectator's guest: %v", err)
	}
	t.Logf("%v", s)
}

package transport

import (
	"errors"
	"slices"
)

// Guests are players who share a seated player's connection: several
// people playing on one screen. Each guest is a player of its own for the
// game (a player number, a name, an entity), and takes a seat of the
// MaxPlayers, but has no address, token or Conn of its own: everything it
// sends and is sent goes over its owner's connection. The Server hands out
// the guest's number and counts its seat; what the guest is in the game is
// the session's.

// MaxGuests is how many guests one connection may seat besides its own
// player: eight players to a screen.
const MaxGuests = 7

// Why a guest is not seated.
var (
	// ErrFull: every seat is taken, guests included.
	ErrFull = errors.New("transport: every seat is taken")
	// ErrGuestLimit: the owner already has MaxGuests guests.
	ErrGuestLimit = errors.New("transport: the connection has as many guests as it may")
	// ErrClosed: the server seats no one new (CloseJoins).
	ErrClosed = errors.New("transport: the server seats no one new")
)

// guestSeats is the Server's record of the guests: each guest's owner, and
// each owner's guests in the order they were seated.
type guestSeats struct {
	owner map[uint16]uint16
	of    map[uint16][]uint16
}

// seatsTaken is every seat taken: each seated player's and each guest's.
func (s *Server) seatsTaken() int {
	players, _ := s.counts()
	return players + len(s.guests.owner)
}

// SeatGuest seats a guest on owner's connection and returns its player
// number. It fails with ErrNoPlayer when owner is not seated (or is itself
// a guest, or a spectator, who plays no one and so seats no one), ErrClosed once CloseJoins was called, ErrFull when every seat
// is taken and ErrGuestLimit when owner has MaxGuests guests.
func (s *Server) SeatGuest(owner uint16) (uint16, error) {
	if p := s.byNum[owner]; p == nil || p.spectator {
		return NoPlayer, ErrNoPlayer
	}
	switch {
	case s.closedTo != nil:
		return NoPlayer, ErrClosed
	case len(s.guests.of[owner]) >= MaxGuests:
		return NoPlayer, ErrGuestLimit
	case s.seatsTaken() >= s.cfg.MaxPlayers:
		return NoPlayer, ErrFull
	}
	num, ok := s.nums.peek()
	if !ok {
		return NoPlayer, ErrFull
	}
	s.nums.take(num)
	if s.guests.owner == nil {
		s.guests.owner, s.guests.of = map[uint16]uint16{}, map[uint16][]uint16{}
	}
	s.guests.owner[num] = owner
	s.guests.of[owner] = append(s.guests.of[owner], num)
	s.log.Debug("guest seated", "player", num, "owner", owner)
	return num, nil
}

// UnseatGuest frees a guest's seat and number and returns its owner; ok is
// false when guest is not a seated guest. The owner's connection is not
// touched.
func (s *Server) UnseatGuest(guest uint16) (owner uint16, ok bool) {
	owner, ok = s.guests.owner[guest]
	if !ok {
		return NoPlayer, false
	}
	delete(s.guests.owner, guest)
	rest := slices.DeleteFunc(s.guests.of[owner], func(g uint16) bool { return g == guest })
	if len(rest) == 0 {
		delete(s.guests.of, owner)
	} else {
		s.guests.of[owner] = rest
	}
	s.nums.release(guest)
	s.log.Debug("guest left", "player", guest, "owner", owner)
	return owner, true
}

// GuestOwner returns the player whose connection guest shares; ok is false
// when guest is not a seated guest.
func (s *Server) GuestOwner(guest uint16) (owner uint16, ok bool) {
	owner, ok = s.guests.owner[guest]
	return owner, ok
}

// AppendGuests appends owner's guests to dst, in the order they were
// seated, and returns the extended slice.
func (s *Server) AppendGuests(dst []uint16, owner uint16) []uint16 {
	return append(dst, s.guests.of[owner]...)
}

// dropGuests frees every guest of p's connection: a connection that goes
// takes its guests with it. The session hears of it through p's EventLeft.
func (s *Server) dropGuests(p *player) {
	for _, g := range s.guests.of[p.num] {
		delete(s.guests.owner, g)
		s.nums.release(g)
	}
	delete(s.guests.of, p.num)
}

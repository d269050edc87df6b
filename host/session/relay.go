package session

import (
	"slices"

	"vkm/host/session/netmsg"
)

// A client predicting its own character meets the others where it guesses
// they are by then (see reckon), and its guess of where another player is
// running is only as good as what it knows of that player's input. The
// server knows it: each tick, the behaviors turn every player's command
// into its character controller's intent. So each snapshot relays to its
// client the intent the players nearest that client's character gave
// their own characters in the tick the snapshot describes, and the client
// runs those characters on it, held, through the ticks it predicts past
// that one: the input extrapolation of remote players that fighting games
// and car football predict with. It is the intent, not the command, that
// travels: turning a command into intent is the behavior's work, which a
// client must not do for a character it does not simulate (a shot would
// wound, an event would play), and the intent is what the controller both
// ends run reads. A snapshot relays the nearest netmsg.MaxRelayed, the
// most a relay section carries.

// RelayReach is how near, in metres, another player's character must be
// to the receiving player's own for its intent to be relayed: farther than
// a round trip's running apart (two characters closing at 16 m/s for
// 200 ms), the two do not meet in the ticks a client predicts. Tuning
// constant.
const RelayReach = 8.0

// IntentsWritten keeps, each tick, the intent the behaviors gave every
// seated player's character, for the snapshots to relay.
func (h *serverHooks) IntentsWritten() {
	s := (*Server)(h)
	st := s.game.Store()
	keep := func(seat *seat) {
		seat.intentOK = false
		if c := st.Controller(seat.entity); c != nil && st.Alive(seat.entity) {
			seat.moveX, seat.moveY, seat.intentOK = c.MoveX, c.MoveY, true
		}
	}
	for _, seat := range s.seats {
		keep(seat)
	}
	for _, seat := range s.guests {
		keep(seat)
	}
}

// relayer is a seated character whose intent another snapshot may relay:
// its seat, its entity, where it stands and the intent it gave.
type relayer struct {
	seat *seat
	x, y float64
	e    netmsg.Intent
}

// gatherRelayers lists, once for every snapshot of a send round, the
// seated characters (players' and guests') whose intent is known and who
// stand in the world: each relay section measures from its own character
// to these, instead of looking every seat's entity up again for each
// connection.
func (s *Server) gatherRelayers() {
	g := s.game.Store()
	rs := s.relayers[:0]
	add := func(o *seat) {
		if !o.intentOK {
			return
		}
		t := g.Transform(o.entity)
		if t == nil || !g.Alive(o.entity) {
			return
		}
		rs = append(rs, relayer{seat: o, x: t.X, y: t.Y, e: netmsg.Intent{ID: o.entity, MoveX: o.moveX, MoveY: o.moveY}})
	}
	for _, o := range s.seats {
		add(o)
	}
	for _, o := range s.guests {
		add(o)
	}
	s.relayers = rs
}

// relayFor returns the relay section for the player of st: the intent of
// the netmsg.MaxRelayed other players' characters nearest st's own (or
// its guests', which its client predicts too), within RelayReach, as of
// the last tick (nil: none is near, or st has no character). Within a
// send round it reads the round's relayers; otherwise it gathers them.
func (s *Server) relayFor(st *seat) []byte {
	g := s.game.Store()
	own := g.Transform(st.entity)
	if own == nil || !g.Alive(st.entity) {
		return nil
	}
	if !s.relayersHeld {
		s.gatherRelayers()
	}
	cands := s.relayNear[:0]
	// nearest is the squared distance from (x, y) to the nearest
	// character of st's screen.
	nearest := func(x, y float64) float64 {
		dx, dy := x-own.X, y-own.Y
		d2 := dx*dx + dy*dy
		for _, gs := range st.guests {
			if t := g.Transform(gs.entity); t != nil && g.Alive(gs.entity) {
				dx, dy := x-t.X, y-t.Y
				d2 = min(d2, dx*dx+dy*dy)
			}
		}
		return d2
	}
	for i := range s.relayers {
		o := &s.relayers[i]
		// A player of st's own screen is predicted there, not relayed.
		if sameScreen(o.seat, st) || o.seat.entity == st.entity {
			continue
		}
		d2 := nearest(o.x, o.y)
		if d2 > RelayReach*RelayReach {
			continue
		}
		cands = append(cands, relayCandidate{d2: d2, e: o.e})
	}
	s.relayNear = cands
	if len(cands) == 0 {
		return nil
	}
	slices.SortFunc(cands, func(a, b relayCandidate) int {
		if c := cmpFloat(a.d2, b.d2); c != 0 {
			return c
		}
		return int(a.e.ID.Slot) - int(b.e.ID.Slot)
	})
	cands = cands[:min(len(cands), netmsg.MaxRelayed)]
	is := s.relayIntents[:0]
	for _, c := range cands {
		is = append(is, c.e)
	}
	slices.SortFunc(is, func(a, b netmsg.Intent) int { return int(a.ID.Slot) - int(b.ID.Slot) })
	s.relayIntents = is
	s.relayBuf = is.Append(s.relayBuf[:0])
	return s.relayBuf
}

// relayCandidate is another character within reach and its distance
// squared from the receiving one.
type relayCandidate struct {
	d2 float64
	e  netmsg.Intent
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

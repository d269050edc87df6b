package session

import (
	"errors"
	"slices"
	"strconv"

	"vkm/host/session/netmsg"
	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/transport"
)

// Guests: several players on one screen, sharing one connection. The
// connection's own player asks for each guest with a guest message
// (netmsg.KindGuest) and the server seats it as a player of its own: a
// player number, a name, an entity from the join handler, its own commands
// (carried in the owner's command packets after the owner's, run by a
// prediction.Follower at the owner's client tick). Every other player sees
// a guest as any player; its own connection is told, in a guest section
// after each snapshot, which player and entity each of its guests is, so
// that it predicts them all and draws none of them as another's. A guest
// takes a seat (transport.Server.SeatGuest); when it leaves, only its seat
// goes, and when its connection goes, every guest of it goes too.

// The server's side.

// guestAt returns owner's guest with local number local, or nil.
func (st *seat) guestAt(local uint8) *seat {
	for _, g := range st.guests {
		if g.local == local {
			return g
		}
	}
	return nil
}

// takeGuest reads a guest message from the connection of st: a join or a
// leave. A message it cannot read, or one from a guest's seat, is dropped.
func (s *Server) takeGuest(st *seat, msg []byte) {
	g, err := netmsg.ParseGuest(msg)
	if err != nil || st.owner != nil {
		st.msgs.Dropped++
		return
	}
	switch g.Op {
	case netmsg.GuestJoin:
		s.seatGuest(st, g.Local, g.Text)
	case netmsg.GuestLeave:
		if gs := st.guestAt(g.Local); gs != nil {
			s.leaveGuest(gs, netmsg.GuestLeft, "")
		}
	default:
		st.msgs.Dropped++ // a server's op, from a client
	}
}

// tellOwner sends a guest message to the connection of owner.
func (s *Server) tellOwner(owner *seat, g netmsg.Guest) {
	if err := owner.rel.Send(g.Append(nil)); err != nil {
		s.log.Warn("guest message not sent", "player", owner.player, "local", g.Local, "err", err)
	}
}

// seatGuest seats owner's local player local, named name, if a seat is
// free and the join handler gives it an entity, and tells owner either
// way. A local player already seated is told its number again.
func (s *Server) seatGuest(owner *seat, local uint8, name string) {
	if gs := owner.guestAt(local); gs != nil {
		s.tellOwner(owner, netmsg.Guest{Op: netmsg.GuestSeated, Local: local, Player: gs.player})
		return
	}
	refuse := func(why string) {
		s.log.Info("guest refused", "owner", owner.player, "local", local, "why", why)
		s.tellOwner(owner, netmsg.Guest{Op: netmsg.GuestRefused, Local: local, Text: why})
	}
	if s.draining {
		refuse("The server is stopping: it seats no one new.")
		return
	}
	num, err := s.net.SeatGuest(owner.player)
	switch {
	case errors.Is(err, transport.ErrFull):
		refuse("Every seat is taken (" + strconv.Itoa(s.game.Project().Players) + " players, guests included).")
		return
	case errors.Is(err, transport.ErrGuestLimit):
		refuse("A screen seats at most " + strconv.Itoa(netmsg.MaxGuests+1) + " players.")
		return
	case err != nil:
		refuse("The server seats no one new.")
		return
	}
	if name == "" {
		name = "Player " + strconv.Itoa(int(num))
	}
	id, err := s.game.Join(num)
	s.recordJoin(num, name, id, err)
	if err != nil || id.IsNone() {
		s.net.UnseatGuest(num)
		if err != nil {
			s.joinErr++
			s.log.Error("join handler failed", "player", num, "name", name, "err", err)
			refuse("The server could not seat this player: the game's join handler failed.")
			return
		}
		refuse("The game declined this player.")
		return
	}
	gs := &seat{player: num, name: name, entity: id, since: s.now, owner: owner, local: local}
	owner.guests = append(owner.guests, gs)
	slices.SortFunc(owner.guests, func(a, b *seat) int { return int(a.local) - int(b.local) })
	s.guests[num] = gs
	s.driven[id] = &gs.cmd
	s.byEntity[id] = num
	s.rosterChanged = true
	s.log.Info("guest joined", "player", num, "name", name, "owner", owner.player, "local", local)
	s.tellOwner(owner, netmsg.Guest{Op: netmsg.GuestSeated, Local: local, Player: num})
}

// leaveGuest ends a guest's seat: the game's leave handler runs as for any
// player, the guest's seat and number are freed, and its connection, still
// seated, is told with op (GuestLeft or GuestKicked, and the sentence); op 0
// tells nobody (the connection itself is going).
func (s *Server) leaveGuest(gs *seat, op netmsg.GuestOp, sentence string) {
	owner := gs.owner
	s.net.UnseatGuest(gs.player)
	s.runLeave(gs)
	delete(s.guests, gs.player)
	owner.guests = slices.DeleteFunc(owner.guests, func(g *seat) bool { return g == gs })
	s.log.Info("guest left", "player", gs.player, "owner", owner.player, "local", gs.local)
	if op != 0 {
		s.tellOwner(owner, netmsg.Guest{Op: op, Local: gs.local, Player: gs.player, Text: sentence})
	}
}

// leaveGuests ends every guest of st's connection, which is going.
func (s *Server) leaveGuests(st *seat) {
	for len(st.guests) > 0 {
		s.leaveGuest(st.guests[len(st.guests)-1], 0, "")
	}
}

// kickGuest removes a guest with an operator's kick, telling its
// connection why; the connection stays. It reports whether player was a
// guest.
func (s *Server) kickGuest(player uint16, sentence string) bool {
	gs := s.guests[player]
	if gs == nil {
		return false
	}
	s.kicks++
	s.log.Warn("player kicked", "player", player, "name", gs.name, "owner", gs.owner.player, "why", sentence)
	s.leaveGuest(gs, netmsg.GuestKicked, sentence)
	return true
}

// takeGuestCommands gives every guest's entity its command for the tick
// about to run: the one made for the client tick its owner's queue ran
// (takeCommands has run), nothing while the owner is away or idle.
func (s *Server) takeGuestCommands() {
	for _, gs := range s.guests {
		o := gs.owner
		if o.away {
			gs.cmd = prediction.Command{}
			delete(s.drivenTick, gs.entity)
			continue
		}
		gs.cmd = prediction.Command{}
		if o.ran.Kind != prediction.Idle && o.ran.ClientTick != 0 {
			gs.cmd = gs.follow.At(o.ran.ClientTick)
		}
		s.drivenTick[gs.entity] = o.ran.ClientTick
		if o.drawnSeq != 0 {
			s.lag.drawnAt[gs.entity] = prediction.DrawnAt(o.drawn, o.drawnSeq, o.ran.Seq)
		}
	}
}

// guestCommands takes the guests' streams off the end of owner's packet
// proper into their followers and returns the owner's own command packet.
// A stream for a local player not seated (one that has just left) is
// dropped; one that does not parse is counted against its guest.
func (s *Server) guestCommands(owner *seat, payload []byte) []byte {
	p := s.game.Project()
	own, streams, err := netmsg.SplitGuestCommands(payload, len(p.Axes), len(p.Buttons), s.guestStreams)
	s.guestStreams = streams
	if err != nil {
		owner.badPackets++
		return own
	}
	for _, g := range streams {
		gs := owner.guestAt(g.Local)
		if gs == nil {
			continue
		}
		if err := prediction.ParsePacket(g.Packet, len(p.Axes), len(p.Buttons), &gs.packet); err != nil {
			gs.badPackets++
			continue
		}
		gs.follow.Push(&gs.packet)
	}
	return own
}

// guestSection returns the guest section for st's connection (nil when it
// has no guest): each guest's local number, player and entity.
func (s *Server) guestSection(st *seat) []byte {
	if len(st.guests) == 0 {
		return nil
	}
	sec := s.guestSec[:0]
	for _, gs := range st.guests {
		id := gs.entity
		if !s.game.Store().Alive(id) {
			id = entity.None
		}
		sec = append(sec, netmsg.Seated{Local: gs.local, Player: gs.player, Entity: id})
	}
	s.guestSec = sec
	s.guestBuf = sec.Append(s.guestBuf[:0])
	return s.guestBuf
}

// connOf returns the seat whose connection player's messages go over:
// player's own, or its owner's for a guest; nil when player is not seated.
func (s *Server) connOf(player uint16) *seat {
	if st := s.seats[player]; st != nil {
		return st
	}
	if gs := s.guests[player]; gs != nil {
		return gs.owner
	}
	return nil
}

// eachConn calls fn once for each connection the players to play on,
// however many of them share it.
func (s *Server) eachConn(to []uint16, fn func(*seat)) {
	for i, p := range to {
		st := s.connOf(p)
		if st == nil || slices.ContainsFunc(to[:i], func(q uint16) bool { return s.connOf(q) == st }) {
			continue
		}
		fn(st)
	}
}

// sameScreen reports whether a and b play on one connection: the same
// seat, or an owner and its guest, or two guests of one owner.
func sameScreen(a, b *seat) bool {
	ra, rb := a, b
	if ra.owner != nil {
		ra = ra.owner
	}
	if rb.owner != nil {
		rb = rb.owner
	}
	return ra == rb
}

// GuestInfo is one seated guest, as Guests lists it.
type GuestInfo struct {
	Player, Owner uint16
	Local         uint8
	Name          string
}

// Guests lists every seated guest in number order, for an operator.
func (s *Server) Guests() []GuestInfo {
	out := make([]GuestInfo, 0, len(s.guests))
	for _, gs := range s.guests {
		out = append(out, GuestInfo{Player: gs.player, Owner: gs.owner.player, Local: gs.local, Name: gs.name})
	}
	slices.SortFunc(out, func(a, b GuestInfo) int { return int(a.Player) - int(b.Player) })
	return out
}

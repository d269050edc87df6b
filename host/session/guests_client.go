package session

import (
	"errors"

	"vkm/host/game"
	"vkm/host/session/netmsg"
	"vkm/internal/entity"
	"vkm/prediction"
)

// The client's side of guests (see guests.go): a Client seats up to
// netmsg.MaxGuests players besides its own, each driven by an Input of its
// own. Each guest's command for a tick is made with the own player's, kept
// by client tick, sent in every command packet after the own player's for
// the same ticks, and used again when a correction replays them. The
// guests' characters are simulated and predicted here as the own one is,
// and judged at the same tick: the server runs each guest's command for
// the client tick it runs the own player's.

// Guest is one of this client's guests, as Guests reports it.
type Guest struct {
	// Local is its number on this client, 1..netmsg.MaxGuests.
	Local uint8
	// Name is the name it asked for; Player and Entity what the server
	// gave it (0 and None until seated).
	Name   string
	Player uint16
	Entity entity.ID
	// Seated says the server seated it; Ended says its seat is over
	// (refused, kicked or left), and Why says why.
	Seated, Ended bool
	Why           string
	// Kicked says an operator removed it.
	Kicked bool
}

// localGuest is a guest of this client, from the join it asked for until
// its seat is over.
type localGuest struct {
	Guest
	in game.Input
	// start is the client tick of its first command; cmds its commands by
	// tick, for the packets and for replays; cur the command of the tick
	// being run.
	start uint32
	cmds  [prediction.HistorySize]tickCommand
	cur   prediction.Command
	// packet is appendGuestCommands' scratch.
	packet prediction.Packet
}

// ErrGuests is AddGuest's refusal when every local number is taken.
var ErrGuests = errors.New("session: this client already has as many guests as a connection may")

// ErrNotPlaying is AddGuest's refusal before the server has seated this
// client.
var ErrNotPlaying = errors.New("session: not playing")

// AddGuest asks the server to seat another player on this client's
// connection, named name (empty: the server names it) and driven by in
// (nil: the empty command), and returns its local number. The answer comes
// later: Guests says whether it was seated or refused.
func (c *Client) AddGuest(name string, in game.Input) (uint8, error) {
	if !c.playing {
		return 0, ErrNotPlaying
	}
	if c.watch.spectator {
		return 0, ErrSpectatorGuests
	}
	local := uint8(0)
	for l := uint8(1); l <= netmsg.MaxGuests; l++ {
		if c.guests[l] == nil {
			local = l
			break
		}
	}
	if local == 0 {
		return 0, ErrGuests
	}
	msg := netmsg.Guest{Op: netmsg.GuestJoin, Local: local, Text: name}.Append(nil)
	if err := c.rel.Send(msg); err != nil {
		return 0, err
	}
	c.guests[local] = &localGuest{Guest: Guest{Local: local, Name: netmsg.CleanText(name)}, in: in}
	return local, nil
}

// RemoveGuest asks the server to end the seat of guest local; it leaves
// at once on this end. It reports whether local was a guest.
func (c *Client) RemoveGuest(local uint8) bool {
	if local < 1 || local > netmsg.MaxGuests || c.guests[local] == nil {
		return false
	}
	c.rel.Send(netmsg.Guest{Op: netmsg.GuestLeave, Local: local}.Append(nil)) // small: fits unless the channel is full
	c.dropGuest(local, "left", false)
	return true
}

// SetGuestInput sets the Input that drives guest local; it reports
// whether local is a guest.
func (c *Client) SetGuestInput(local uint8, in game.Input) bool {
	if local < 1 || local > netmsg.MaxGuests || c.guests[local] == nil {
		return false
	}
	c.guests[local].in = in
	return true
}

// Guests returns this client's guests, those waiting for the server's
// answer included, and those whose seat ended since the last call (once),
// in local order.
func (c *Client) Guests() []Guest {
	var out []Guest
	for _, g := range c.guests {
		if g != nil {
			out = append(out, g.Guest)
		}
	}
	out = append(out, c.guestsGone...)
	c.guestsGone = c.guestsGone[:0]
	// In local order, by insertion: a connection has at most eight guests,
	// and a slices.SortFunc here is a sort function of its own in the
	// browser client's download.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Local < out[j-1].Local; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// dropGuest ends guest local's seat on this end.
func (c *Client) dropGuest(local uint8, why string, kicked bool) {
	g := c.guests[local]
	if g == nil {
		return
	}
	c.guests[local] = nil
	if !g.Entity.IsNone() {
		delete(c.lastWord, g.Entity)
	}
	g.Ended, g.Seated, g.Why, g.Kicked = true, false, why, kicked
	c.guestsGone = append(c.guestsGone, g.Guest)
}

// takeGuest reads the server's word on a guest: seated, refused, kicked or
// left. One this client cannot read, or about a guest it did not ask for,
// is logged and dropped.
func (c *Client) takeGuest(msg []byte) {
	m, err := netmsg.ParseGuest(msg)
	if err != nil {
		c.log.Warn("unreadable guest message from the server", "err", err)
		return
	}
	g := c.guests[m.Local]
	if g == nil {
		return // one this end has let go of
	}
	switch m.Op {
	case netmsg.GuestSeated:
		if !g.Seated {
			g.Seated, g.Player = true, m.Player
			c.log.Info("guest seated", "local", m.Local, "player", m.Player)
		}
	case netmsg.GuestRefused:
		c.log.Info("guest refused", "local", m.Local, "why", m.Text)
		c.dropGuest(m.Local, m.Text, false)
	case netmsg.GuestKicked:
		why := m.Text
		if why == "" {
			why = "kicked"
		}
		c.log.Warn("guest kicked", "local", m.Local, "player", m.Player, "why", why)
		c.dropGuest(m.Local, why, true)
	case netmsg.GuestLeft:
		c.dropGuest(m.Local, "left", false)
	}
}

// takeGuestSection reads which entity each guest has from a snapshot's
// guest section. A guest's character is simulated here from then on; the
// server's word on it is kept (lastWord) to judge its predictions by.
func (c *Client) takeGuestSection(sec netmsg.GuestSection) {
	for _, e := range sec {
		g := c.guests[e.Local]
		if g == nil || !g.Seated || g.Player != e.Player {
			continue
		}
		if g.Entity != e.Entity {
			if !g.Entity.IsNone() {
				delete(c.lastWord, g.Entity)
			}
			g.Entity = e.Entity
		}
		// The character may come in a later snapshot than the section
		// naming it: the server's word on it is kept from the first that
		// brings it.
		if _, ok := c.lastWord[e.Entity]; !ok && !e.Entity.IsNone() && c.game.Store().Alive(e.Entity) {
			c.lastWord[e.Entity] = c.body(e.Entity)
		}
	}
}

// guestOf returns the guest whose character id is, or nil.
func (c *Client) guestOf(id entity.ID) *localGuest {
	if id.IsNone() {
		return nil
	}
	for _, g := range c.guests {
		if g != nil && g.Entity == id {
			return g
		}
	}
	return nil
}

// guestCommands sets each guest's command for the tick being run: made by
// its Input and kept, or, in a replay, the one kept for the tick.
func (c *Client) guestCommands() {
	g := c.game
	tick := g.Tick()
	p := g.Project()
	for _, gu := range c.guests {
		if gu == nil || !gu.Seated {
			continue
		}
		if g.IsReplaying() {
			gu.cur = prediction.Command{}
			if tc := gu.cmds[tick%prediction.HistorySize]; tc.ok && tc.tick == tick {
				gu.cur = tc.cmd
			}
			continue
		}
		var cmd prediction.Command
		if gu.in != nil {
			cmd = gu.in.Next()
		}
		cmd = cmd.Quantize(len(p.Axes), len(p.Buttons))
		if gu.start == 0 {
			gu.start = tick
		}
		gu.cur = cmd
		gu.cmds[tick%prediction.HistorySize] = tickCommand{tick: tick, cmd: cmd, ok: true}
	}
}

// appendGuestCommands appends to the own player's command packet each
// seated guest's commands for the same ticks (those it has made).
func (c *Client) appendGuestCommands(b []byte) []byte {
	own := &c.packet
	if len(own.Commands) == 0 {
		return b
	}
	p := c.game.Project()
	for _, gu := range c.guests {
		if gu == nil || !gu.Seated || gu.start == 0 {
			continue
		}
		first := own.FirstTick
		if int32(gu.start-first) > 0 {
			first = gu.start
		}
		pk := &gu.packet
		pk.Commands = pk.Commands[:0]
		pk.FirstTick, pk.FirstSeq = first, first-gu.start+1
		pk.DrawnTick, pk.DrawnFrac = own.DrawnTick, own.DrawnFrac
		for t := first; int32(t-(own.FirstTick+uint32(len(own.Commands)))) < 0; t++ {
			tc := gu.cmds[t%prediction.HistorySize]
			if !tc.ok || tc.tick != t {
				break
			}
			pk.Commands = append(pk.Commands, tc.cmd)
		}
		if len(pk.Commands) == 0 {
			continue
		}
		b = append(b, gu.Local)
		b = pk.Append(b, len(p.Axes), len(p.Buttons))
	}
	return b
}

// recordGuests keeps each guest character's predicted pose for the tick
// just run, for reconcile to judge.
func (c *Client) recordGuests(g *game.Game) {
	for _, gu := range c.guests {
		if gu != nil && gu.Seated && g.Store().Alive(gu.Entity) {
			c.recordBody(g, gu.Entity)
		}
	}
}

// guestIslands walks the island of each guest's character with join.
func (c *Client) guestIslands(g *game.Game, join func(entity.ID) bool) {
	for _, gu := range c.guests {
		if gu != nil && gu.Seated && g.Store().Alive(gu.Entity) {
			g.Physics().Island(gu.Entity, join)
		}
	}
}

// holdGuests adds each guest character to what a snapshot's reading sets
// aside.
func (c *Client) holdGuests(keep func(entity.ID) bool) {
	for _, gu := range c.guests {
		if gu != nil && gu.Seated && c.game.Store().Alive(gu.Entity) {
			keep(gu.Entity)
		}
	}
}

// guestsAgree reports whether every guest character's prediction for
// judged stands against the server's word on it.
func (c *Client) guestsAgree(judged uint32) bool {
	for _, gu := range c.guests {
		if gu == nil || !gu.Seated || gu.Entity.IsNone() {
			continue
		}
		w, ok := c.lastWord[gu.Entity]
		if !ok {
			continue
		}
		predicted, _, ok := c.rec.pred.At(judged, gu.Entity)
		if ok && !prediction.Agrees(predicted, w.t) {
			return false
		}
	}
	return true
}

// GuestCorrections counts the snapshots whose word on a guest character
// differed from this client's prediction, and so were corrections.
func (c *Client) GuestCorrections() uint64 { return c.guestCorrections }

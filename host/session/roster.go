package session

import (
	"slices"
	"time"

	"vkm/host/session/netmsg"
	"vkm/scripting"
	"vkm/transport"
)

// The players message and the round trips (netmsg.Players,
// netmsg.RoundTrips) tell every client who plays: the server sends the
// first whenever a player joins or leaves, and the second every
// RoundTripsEvery.

// RoundTripsEvery is how often the server tells every client each
// player's round trip. A scoreboard redrawn once a second reads as
// steady; the message costs 4 bytes a player.
const RoundTripsEvery = time.Second

// The server's side.

// players appends every seated player in number order, with the round
// trip the transport measures to each.
func (s *Server) players(dst []scripting.PlayerInfo) []scripting.PlayerInfo {
	start := len(dst)
	for _, st := range s.seats {
		p := scripting.PlayerInfo{Number: st.player, Name: st.name, Entity: st.entity}
		if s.replay != nil {
			p.RTT = st.recRTT
		} else if conn := s.net.Conn(st.player); conn != nil {
			p.RTT = conn.RTT()
		}
		dst = append(dst, p)
	}
	for _, gs := range s.guests {
		p := scripting.PlayerInfo{Number: gs.player, Name: gs.name, Entity: gs.entity, RTT: gs.owner.recRTT}
		if s.replay == nil {
			if conn := s.net.Conn(gs.owner.player); conn != nil {
				p.RTT = conn.RTT()
			}
		}
		dst = append(dst, p)
	}
	slices.SortFunc(dst[start:], func(a, b scripting.PlayerInfo) int { return int(a.Number) - int(b.Number) })
	return dst
}

// tellPlayers queues, for every seated player, the roster when it changed
// since it was last sent, and the round trips when RoundTripsEvery has
// passed. A round trip message waits while the player's channel still
// holds an earlier message, so a slow link is not sent a backlog of them.
func (s *Server) tellPlayers(now transport.Time) {
	changed := s.rosterChanged
	due := len(s.seats) > 0 && now >= s.roundTripsAt
	if !changed && !due {
		return
	}
	s.roster = s.players(s.roster[:0])
	if changed {
		s.rosterChanged = false
		s.listed = s.listed[:0]
		for _, p := range s.roster {
			s.listed = append(s.listed, netmsg.Player{Number: p.Number, Entity: p.Entity, Name: p.Name})
		}
		msg := s.listed.Append(nil)
		for _, st := range s.seats {
			if err := st.rel.Send(msg); err != nil {
				s.log.Warn("player list not sent", "player", st.player, "err", err)
			}
		}
		for _, w := range s.watchers {
			if err := w.rel.Send(msg); err != nil {
				s.log.Warn("player list not sent", "spectator", w.player, "err", err)
			}
		}
	}
	if due {
		s.roundTripsAt = now + transport.Time(RoundTripsEvery)
		s.rtts = s.rtts[:0]
		for _, p := range s.roster {
			s.rtts = append(s.rtts, netmsg.RoundTrip{Player: p.Number, RTT: p.RTT})
		}
		msg := s.rtts.Append(nil)
		for _, st := range s.seats {
			if st.rel.PendingMessages() == 0 {
				st.rel.Send(msg) // cannot fail on an empty channel: the message is small
			}
		}
	}
}

// The client's side.

// takeRoster reads a players or round trips message from the server. One
// this client cannot read ends the session: the server speaks another
// protocol or lies.
func (c *Client) takeRoster(msg []byte) {
	var err error
	if netmsg.KindOf(msg) == netmsg.KindPlayers {
		c.listed, err = netmsg.ParsePlayers(msg, c.listed)
		// A player still listed keeps the round trip last told.
		next := c.rosterNext[:0]
		for _, p := range c.listed {
			info := scripting.PlayerInfo{Number: p.Number, Name: p.Name, Entity: p.Entity}
			if j, ok := c.rosterIndex(p.Number); ok {
				info.RTT = c.roster[j].RTT
			}
			next = append(next, info)
		}
		c.roster, c.rosterNext = next, c.roster
		clear(c.rosterBy)
		for i, p := range c.roster {
			if !p.Entity.IsNone() {
				c.rosterBy[p.Entity] = c.roster[i].Number
			}
		}
	} else {
		c.rtts, err = netmsg.ParseRoundTrips(msg, c.rtts)
		for _, r := range c.rtts {
			if i, ok := c.rosterIndex(r.Player); ok {
				c.roster[i].RTT = r.RTT
			}
		}
	}
	if err != nil {
		c.roster = c.roster[:0]
		clear(c.rosterBy)
		c.end("The server sent a player list this client cannot read: " + err.Error())
	}
}

// rosterIndex finds a player in the roster by number.
func (c *Client) rosterIndex(player uint16) (int, bool) {
	return slices.BinarySearchFunc(c.roster, player, func(p scripting.PlayerInfo, n uint16) int { return int(p.Number) - int(n) })
}

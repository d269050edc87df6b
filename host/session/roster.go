package session

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"vkm/internal/entity"
	"vkm/scripting"
	"vkm/transport"
	"vkm/transport/handshake"
)

// Messages on the reliable channel that tell every client who plays (see
// bundle.go for the others).
const (
	// msgRoster lists every seated player: number, entity and name. The
	// server sends it to every player whenever a player joins or leaves.
	msgRoster = 3
	// msgRoundTrips gives the round trip the server measures to each
	// player, about once a second: for a scoreboard, never the simulation.
	msgRoundTrips = 4
)

// RoundTripsEvery is how often the server tells every client each
// player's round trip. A scoreboard redrawn once a second reads as
// steady; the message costs 4 bytes a player.
const RoundTripsEvery = time.Second

// maxRoster bounds the players a roster message may list: the most seats
// a project may have (project.toml's players is at most 256).
const maxRoster = 256

// rosterEntry is 10 bytes and a name: number u16, slot u32, generation
// u32, name length u8.
const rosterEntry = 2 + 4 + 4 + 1

// encodeRoster appends the msgRoster message for players, which are in
// number order:
//
//	kind u8 = 3, count u16, then per player: number u16, entity slot u32,
//	entity generation u32 (0: no entity), name length u8, name (UTF-8)
//
// all little-endian. Names are handshake.CleanName's, as the server took
// them from the players' Hellos.
func encodeRoster(dst []byte, players []scripting.PlayerInfo) []byte {
	dst = append(dst, msgRoster)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(players)))
	for _, p := range players {
		name := handshake.CleanName(p.Name)
		dst = binary.LittleEndian.AppendUint16(dst, p.Number)
		dst = binary.LittleEndian.AppendUint32(dst, p.Entity.Slot)
		dst = binary.LittleEndian.AppendUint32(dst, p.Entity.Gen)
		dst = append(dst, byte(len(name)))
		dst = append(dst, name...)
	}
	return dst
}

var errRoster = errors.New("session: malformed player list")

// decodeRoster reads a msgRoster message into dst (reused). It refuses,
// never panicking: more than maxRoster players, numbers that are 0 or not
// in increasing order, an entity that cannot be one (a slot above
// entity.MaxSlot, a generation Lua cannot hold, a slot without a
// generation), a name longer than handshake.NameMax or one
// handshake.CleanName would change (invalid UTF-8, control or format
// characters), and bytes left over.
func decodeRoster(msg []byte, dst []scripting.PlayerInfo) ([]scripting.PlayerInfo, error) {
	dst = dst[:0]
	if len(msg) < 3 || msg[0] != msgRoster {
		return dst, errRoster
	}
	n := int(binary.LittleEndian.Uint16(msg[1:3]))
	if n > maxRoster {
		return dst, fmt.Errorf("%w: %d players", errRoster, n)
	}
	b := msg[3:]
	prev := uint16(0)
	for range n {
		if len(b) < rosterEntry {
			return dst, errRoster
		}
		num := binary.LittleEndian.Uint16(b[0:2])
		id := entity.ID{Slot: binary.LittleEndian.Uint32(b[2:6]), Gen: binary.LittleEndian.Uint32(b[6:10])}
		size := int(b[10])
		b = b[rosterEntry:]
		switch {
		case num <= prev:
			return dst, fmt.Errorf("%w: player %d after %d", errRoster, num, prev)
		case id.Slot > entity.MaxSlot || id.Gen >= 1<<29 || (id.Gen == 0 && id.Slot != 0):
			return dst, fmt.Errorf("%w: player %d's entity %d#%d", errRoster, num, id.Slot, id.Gen)
		case size > handshake.NameMax || size > len(b):
			return dst, fmt.Errorf("%w: player %d's name", errRoster, num)
		}
		name := string(b[:size])
		if handshake.CleanName(name) != name {
			return dst, fmt.Errorf("%w: player %d's name is not printable text", errRoster, num)
		}
		b = b[size:]
		prev = num
		dst = append(dst, scripting.PlayerInfo{Number: num, Entity: id, Name: name})
	}
	if len(b) != 0 {
		return dst, fmt.Errorf("%w: %d bytes after the players", errRoster, len(b))
	}
	return dst, nil
}

// encodeRoundTrips appends the msgRoundTrips message for players, in
// number order:
//
//	kind u8 = 4, count u16, then per player: number u16, round trip u16
//	in milliseconds (65535: that or more)
//
// all little-endian.
func encodeRoundTrips(dst []byte, players []scripting.PlayerInfo) []byte {
	dst = append(dst, msgRoundTrips)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(players)))
	for _, p := range players {
		ms := min(p.RTT.Round(time.Millisecond)/time.Millisecond, 65535)
		dst = binary.LittleEndian.AppendUint16(dst, p.Number)
		dst = binary.LittleEndian.AppendUint16(dst, uint16(max(ms, 0)))
	}
	return dst
}

// decodeRoundTrips reads a msgRoundTrips message and calls fn with each
// player's number and round trip. It refuses (before calling fn) more
// than maxRoster players, numbers that are 0 or out of order, and a
// length that is not the count's.
func decodeRoundTrips(msg []byte, fn func(player uint16, rtt time.Duration)) error {
	if len(msg) < 3 || msg[0] != msgRoundTrips {
		return errRoster
	}
	n := int(binary.LittleEndian.Uint16(msg[1:3]))
	b := msg[3:]
	if n > maxRoster || len(b) != 4*n {
		return fmt.Errorf("%w: %d round trips in %d bytes", errRoster, n, len(b))
	}
	prev := uint16(0)
	for i := 0; i < len(b); i += 4 {
		num := binary.LittleEndian.Uint16(b[i:])
		if num <= prev {
			return fmt.Errorf("%w: player %d after %d", errRoster, num, prev)
		}
		prev = num
	}
	for i := 0; i < len(b); i += 4 {
		fn(binary.LittleEndian.Uint16(b[i:]), time.Duration(binary.LittleEndian.Uint16(b[i+2:]))*time.Millisecond)
	}
	return nil
}

// The server's side.

// players appends every seated player in number order, with the round
// trip the transport measures to each.
func (s *Server) players(dst []scripting.PlayerInfo) []scripting.PlayerInfo {
	start := len(dst)
	for _, st := range s.seats {
		p := scripting.PlayerInfo{Number: st.player, Name: st.name, Entity: st.entity}
		if conn := s.net.Conn(st.player); conn != nil {
			p.RTT = conn.RTT()
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
		msg := encodeRoster(nil, s.roster)
		for _, st := range s.seats {
			if err := st.rel.Send(msg); err != nil {
				s.log.Warn("player list not sent", "player", st.player, "err", err)
			}
		}
	}
	if due {
		s.roundTripsAt = now + transport.Time(RoundTripsEvery)
		msg := encodeRoundTrips(nil, s.roster)
		for _, st := range s.seats {
			if st.rel.PendingMessages() == 0 {
				st.rel.Send(msg) // cannot fail on an empty channel: the message is small
			}
		}
	}
}

// The client's side.

// takeRoster reads a msgRoster or msgRoundTrips message from the server.
// One this client cannot read ends the session: the server speaks another
// protocol or lies.
func (c *Client) takeRoster(msg []byte) {
	var err error
	if msg[0] == msgRoster {
		// A player still listed keeps the round trip last told.
		var next []scripting.PlayerInfo
		next, err = decodeRoster(msg, c.rosterNext)
		for i := range next {
			if j, ok := c.rosterIndex(next[i].Number); ok {
				next[i].RTT = c.roster[j].RTT
			}
		}
		c.roster, c.rosterNext = next, c.roster
		clear(c.rosterBy)
		for i, p := range c.roster {
			if !p.Entity.IsNone() {
				c.rosterBy[p.Entity] = c.roster[i].Number
			}
		}
	} else {
		err = decodeRoundTrips(msg, func(player uint16, rtt time.Duration) {
			if i, ok := c.rosterIndex(player); ok {
				c.roster[i].RTT = rtt
			}
		})
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

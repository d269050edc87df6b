package conformance

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Message kinds a server sends on the reliable channel ("Messages a server
// sends"): the first byte of a message.
const (
	MessageBundle     = 1
	MessageNoReload   = 2
	MessagePlayers    = 3
	MessageRoundTrips = 4
	maxPlayersListed  = 256
)

// Player is one entry of a players message.
type Player struct {
	Number uint16
	Entity Entity // 0#0: no entity
	Name   string
}

// ParsePlayers decodes a players message (kind 3): the count (u16, at
// most 256), then per player in rising number its number (not 0), entity
// slot (u32, at most 2^24 − 1), generation (u32, below 2^29; 0 only with
// slot 0), name length (u8, at most 32) and name, no bytes left over.
func ParsePlayers(m []byte) ([]Player, error) {
	if len(m) < 3 || m[0] != MessagePlayers {
		return nil, errors.New("conformance: not a players message")
	}
	le := binary.LittleEndian
	n := int(le.Uint16(m[1:3]))
	if n > maxPlayersListed {
		return nil, fmt.Errorf("conformance: %d players, over %d", n, maxPlayersListed)
	}
	b := m[3:]
	var out []Player
	for range n {
		if len(b) < 11 {
			return nil, errors.New("conformance: player cut short")
		}
		p := Player{Number: le.Uint16(b[0:2]), Entity: Entity{Slot: le.Uint32(b[2:6]), Generation: le.Uint32(b[6:10])}}
		nameLen := int(b[10])
		if nameLen > MaxNameLen || len(b) < 11+nameLen {
			return nil, errors.New("conformance: player name too long or cut short")
		}
		if err := checkName(b[11 : 11+nameLen]); err != nil {
			return nil, err
		}
		p.Name = string(b[11 : 11+nameLen])
		b = b[11+nameLen:]
		if err := checkPlayer(p, out); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("conformance: %d bytes after the players", len(b))
	}
	return out, nil
}

func checkPlayer(p Player, before []Player) error {
	switch {
	case p.Number == 0:
		return errors.New("conformance: player number 0")
	case len(before) > 0 && p.Number <= before[len(before)-1].Number:
		return errors.New("conformance: player numbers not rising")
	case p.Entity.Slot > MaxSlot || p.Entity.Generation >= 1<<29:
		return fmt.Errorf("conformance: player entity %v out of range", p.Entity)
	case p.Entity.Generation == 0 && p.Entity.Slot != 0:
		return fmt.Errorf("conformance: player entity %v with generation 0", p.Entity)
	}
	return nil
}

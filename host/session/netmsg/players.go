package netmsg

import (
	"encoding/binary"

	"vkm/internal/entity"
	"vkm/transport/handshake"
)

// MaxPlayers bounds the players a players or round trips message lists:
// the most seats a project may have (project.toml's players is at most
// 256). Protocol constant.
const MaxPlayers = 256

// playerEntry is the fixed part of each player in a players message:
// number u16, slot u32, generation u32, name length u8.
const playerEntry = 2 + 4 + 4 + 1

// Player is one seated player as a players message lists it.
type Player struct {
	// Number is the player's number; never 0.
	Number uint16
	// Entity is the one the join handler gave the player (entity.None:
	// none). Its slot is at most entity.MaxSlot and its generation below
	// 2^29, which is how Lua holds an entity.
	Entity entity.ID
	// Name is the player's name as handshake.CleanName leaves it.
	Name string
}

// Players is the players message (KindPlayers): every seated player, in
// rising number. The server sends it to every player whenever a player
// joins or leaves. On the wire:
//
//	kind u8 = 3, count u16 (at most MaxPlayers), then per player:
//	number u16, entity slot u32, entity generation u32 (0, with slot 0:
//	no entity), name length u8 (at most handshake.NameMax), name (UTF-8)
type Players []Player

// Append appends the players message of ps, which are in rising number,
// at most MaxPlayers of them. Each name is written as handshake.CleanName
// makes it, so a name the server took from a Hello travels as it was and
// no name can break what the client parses.
func (ps Players) Append(b []byte) []byte {
	b = append(b, byte(KindPlayers))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(ps)))
	for _, p := range ps {
		name := handshake.CleanName(p.Name)
		b = binary.LittleEndian.AppendUint16(b, p.Number)
		b = binary.LittleEndian.AppendUint32(b, p.Entity.Slot)
		b = binary.LittleEndian.AppendUint32(b, p.Entity.Gen)
		b = append(b, byte(len(name)))
		b = append(b, name...)
	}
	return b
}

// ParsePlayers reads a players message into dst[:0]. It refuses another
// kind, more than MaxPlayers players, numbers that are 0 or not rising, an
// entity that cannot be one (a slot above entity.MaxSlot, a generation Lua
// cannot hold, a slot without a generation), a name longer than
// handshake.NameMax or one handshake.CleanName would change (invalid
// UTF-8, control or format characters), a message cut short and bytes left
// over.
func ParsePlayers(msg []byte, dst Players) (Players, error) {
	dst = dst[:0]
	if len(msg) < 3 || Kind(msg[0]) != KindPlayers {
		return dst, fail(FormatPlayers)
	}
	n := int(binary.LittleEndian.Uint16(msg[1:3]))
	if n > MaxPlayers {
		return dst, failf(FormatPlayers, "%d players", n)
	}
	b := msg[3:]
	prev := uint16(0)
	for range n {
		if len(b) < playerEntry {
			return dst, fail(FormatPlayers)
		}
		num := binary.LittleEndian.Uint16(b[0:2])
		id := entity.ID{Slot: binary.LittleEndian.Uint32(b[2:6]), Gen: binary.LittleEndian.Uint32(b[6:10])}
		size := int(b[10])
		b = b[playerEntry:]
		switch {
		case num <= prev:
			return dst, failf(FormatPlayers, "player %d after %d", num, prev)
		case id.Slot > entity.MaxSlot || id.Gen >= 1<<29 || (id.Gen == 0 && id.Slot != 0):
			return dst, failf(FormatPlayers, "player %d's entity %d#%d", num, id.Slot, id.Gen)
		case size > handshake.NameMax || size > len(b):
			return dst, failf(FormatPlayers, "player %d's name", num)
		}
		name := string(b[:size])
		if handshake.CleanName(name) != name {
			return dst, failf(FormatPlayers, "player %d's name is not printable text", num)
		}
		b = b[size:]
		prev = num
		dst = append(dst, Player{Number: num, Entity: id, Name: name})
	}
	if len(b) != 0 {
		return dst, failf(FormatPlayers, "%d bytes after the players", len(b))
	}
	return dst, nil
}

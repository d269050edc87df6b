package conformance

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Guests ("Guests"): players sharing another player's connection, numbered
// 1..7 on their client.
const (
	MessageGuest  = 12
	FlagGuests    = 1 << 2
	MaxGuests     = 7
	maxGuestText  = 200
	maxEntitySlot = 1<<24 - 1
)

// The guest message's ops.
const (
	GuestJoin    = 1
	GuestLeave   = 2
	GuestSeated  = 3
	GuestRefused = 4
	GuestKicked  = 5
	GuestLeft    = 6
)

// Guest is a decoded guest message.
type Guest struct {
	Op     uint8
	Local  uint8
	Player uint16 // seated, kicked, left
	Text   string // join's name, refused's reason, kicked's sentence
}

// ParseGuest decodes a guest message (kind 12): op, local number 1..7,
// then by op a name (0..32 bytes), nothing, a player (u16, not 0), a
// reason (1..200 bytes), a player and a sentence (0..200), or a player;
// texts are printable UTF-8 with no space at either end.
func ParseGuest(m []byte) (Guest, error) {
	if len(m) < 3 || m[0] != MessageGuest {
		return Guest{}, errors.New("conformance: not a guest message")
	}
	g := Guest{Op: m[1], Local: m[2]}
	if g.Local < 1 || g.Local > MaxGuests {
		return Guest{}, fmt.Errorf("conformance: guest local number %d outside 1..7", g.Local)
	}
	rest := m[3:]
	player := func() error {
		if len(rest) < 2 {
			return errors.New("conformance: guest message cut short")
		}
		g.Player, rest = binary.LittleEndian.Uint16(rest), rest[2:]
		if g.Player == 0 {
			return errors.New("conformance: guest player 0")
		}
		return nil
	}
	text := func(lo, hi int) error {
		if len(rest) < lo || len(rest) > hi {
			return fmt.Errorf("conformance: guest text of %d bytes, outside %d..%d", len(rest), lo, hi)
		}
		if len(rest) > 0 {
			if err := checkText(rest); err != nil {
				return err
			}
		}
		g.Text, rest = string(rest), nil
		return nil
	}
	var err error
	switch g.Op {
	case GuestJoin:
		err = text(0, MaxNameLen)
	case GuestLeave:
	case GuestSeated, GuestLeft:
		err = player()
	case GuestRefused:
		err = text(1, maxGuestText)
	case GuestKicked:
		if err = player(); err == nil {
			err = text(0, maxGuestText)
		}
	default:
		return Guest{}, fmt.Errorf("conformance: guest op %d", g.Op)
	}
	if err == nil && len(rest) != 0 {
		err = errors.New("conformance: bytes past the guest message")
	}
	return g, err
}

// checkText holds a text to a chat text's rules as far as this check
// reads them: valid UTF-8, no control character, no space at either end.
func checkText(b []byte) error {
	if !utf8.Valid(b) {
		return errors.New("conformance: text not UTF-8")
	}
	if b[0] == ' ' || b[len(b)-1] == ' ' {
		return errors.New("conformance: text with a space at an end")
	}
	for _, r := range string(b) {
		if r < 0x20 || r == 0x7f {
			return errors.New("conformance: text with a control character")
		}
	}
	return nil
}

// GuestSeat is one entry of a guest section.
type GuestSeat struct {
	Local  uint8
	Player uint16
	Entity Entity // 0#0: no entity
}

// ParseGuestSection reads the guest section that ends a server's payload
// (flag bit 2): its last byte is its length; before it, a count 1..7, then
// per guest in rising local number the local number, the player (u16, not
// 0), the slot and generation (LEB128; both 0 or neither). It returns the
// entries and the bytes before the section.
func ParseGuestSection(b []byte) ([]GuestSeat, []byte, error) {
	if len(b) < 1 {
		return nil, nil, errors.New("conformance: no guest section")
	}
	n := int(b[len(b)-1])
	if n < 1 || n > len(b)-1 {
		return nil, nil, fmt.Errorf("conformance: guest section of %d bytes in %d", n, len(b)-1)
	}
	head, s := b[:len(b)-1-n], b[len(b)-1-n:len(b)-1]
	count := int(s[0])
	if count < 1 || count > MaxGuests {
		return nil, nil, fmt.Errorf("conformance: %d guests", count)
	}
	s = s[1:]
	var out []GuestSeat
	for range count {
		if len(s) < 3 {
			return nil, nil, errors.New("conformance: guest entry cut short")
		}
		g := GuestSeat{Local: s[0], Player: binary.LittleEndian.Uint16(s[1:3])}
		if g.Local < 1 || g.Local > MaxGuests || g.Player == 0 || (len(out) > 0 && out[len(out)-1].Local >= g.Local) {
			return nil, nil, fmt.Errorf("conformance: guest entry %+v", g)
		}
		var slot, gen uint64
		var err error
		if slot, s, err = leb128(s[3:]); err != nil {
			return nil, nil, err
		}
		if gen, s, err = leb128(s); err != nil {
			return nil, nil, err
		}
		if slot > maxEntitySlot || gen > 1<<32-1 || (slot == 0) != (gen == 0) {
			return nil, nil, fmt.Errorf("conformance: guest entity %d#%d", slot, gen)
		}
		g.Entity = Entity{Slot: uint32(slot), Generation: uint32(gen)}
		out = append(out, g)
	}
	if len(s) != 0 {
		return nil, nil, errors.New("conformance: bytes between the guest entries and the length")
	}
	return out, head, nil
}

// GuestStream is one guest's command packet in a client's packet proper.
type GuestStream struct {
	Local  uint8
	Packet CommandPacket
}

// SplitCommands reads a client's packet proper: its own command packet,
// then each guest's stream (local number 1..7, rising, then a command
// packet), each packet's length from its count (byte 13's low 5 bits).
func SplitCommands(b []byte, axes, buttons int) (CommandPacket, []GuestStream, error) {
	size := func(b []byte) (int, error) {
		if len(b) < 14 {
			return 0, errors.New("conformance: command packet cut short")
		}
		n := CommandPacketLen(int(b[13]&0x1f), axes, buttons)
		if n > len(b) {
			return 0, errors.New("conformance: command packet cut short")
		}
		return n, nil
	}
	n, err := size(b)
	if err != nil {
		return CommandPacket{}, nil, err
	}
	own, err := ParseCommandPacket(b[:n], axes, buttons)
	if err != nil {
		return CommandPacket{}, nil, err
	}
	b = b[n:]
	var out []GuestStream
	for len(b) > 0 {
		local := b[0]
		if local < 1 || local > MaxGuests || (len(out) > 0 && out[len(out)-1].Local >= local) {
			return own, nil, fmt.Errorf("conformance: guest stream local number %d", local)
		}
		n, err := size(b[1:])
		if err != nil {
			return own, nil, err
		}
		p, err := ParseCommandPacket(b[1:1+n], axes, buttons)
		if err != nil {
			return own, nil, err
		}
		out = append(out, GuestStream{Local: local, Packet: p})
		b = b[1+n:]
	}
	return own, out, nil
}

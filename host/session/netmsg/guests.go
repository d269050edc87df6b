package netmsg

import (
	"encoding/binary"
	"math"

	"vkm/internal/entity"
)

// Guests are players who share one connection with its own player: several
// people on one screen (docs/protocol.md, "Guests"). The client numbers
// them 1..MaxGuests, its local numbers; local 0 is the connection's own
// player. Three formats carry them: the guest message on the reliable
// channel (KindGuest) seats and unseats them, each guest's commands ride in
// the command packet after the own player's (SplitGuestCommands), and a
// server's payload ends with a guest section naming each local player's
// number and entity (GuestSection).

// KindGuest seats and unseats a connection's guests (Guest), both ways.
const KindGuest Kind = 12

// MaxGuests is the highest local number a guest may have: eight players to
// a connection. Protocol constant.
const MaxGuests = 7

// GuestOp says what a guest message does.
type GuestOp uint8

// The guest messages. A client sends GuestJoin and GuestLeave; a server
// answers a join with GuestSeated or GuestRefused, and says GuestKicked
// when it removes a guest itself (an operator's kick) and GuestLeft when a
// guest's seat ended otherwise (its leave asked for, or the server's
// game). Protocol constants.
const (
	GuestJoin    GuestOp = 1 // client: seat local player Local, named Text
	GuestLeave   GuestOp = 2 // client: unseat local player Local
	GuestSeated  GuestOp = 3 // server: Local is seated as Player
	GuestRefused GuestOp = 4 // server: Local was not seated; Text says why
	GuestKicked  GuestOp = 5 // server: Local (Player) was removed; Text says why
	GuestLeft    GuestOp = 6 // server: Local (Player) has left its seat
)

// Guest is a guest message (KindGuest). On the wire:
//
//	kind u8 = 12, op u8, local u8 (1..7), then by op:
//	  1 join:    the guest's name (UTF-8 as CleanText leaves it, at most MaxName bytes; may be empty)
//	  2 leave:   nothing
//	  3 seated:  player u16
//	  4 refused: the reason (as CleanText leaves it, 1..MaxChat bytes)
//	  5 kicked:  player u16, then the sentence (0..MaxChat bytes)
//	  6 left:    player u16
type Guest struct {
	Op     GuestOp
	Local  uint8
	Player uint16
	Text   string
}

// MaxName bounds a guest's name in bytes, as a Hello bounds a player's.
// Protocol constant.
const MaxName = 32

// Append appends the guest message of g. A name or text is cleaned as
// CleanText makes it, and a name cut to MaxName bytes at a character
// boundary.
func (g Guest) Append(b []byte) []byte {
	b = append(b, byte(KindGuest), byte(g.Op), g.Local)
	switch g.Op {
	case GuestJoin:
		b = append(b, cutName(CleanText(g.Text))...)
	case GuestSeated, GuestLeft:
		b = binary.LittleEndian.AppendUint16(b, g.Player)
	case GuestRefused:
		b = append(b, CleanText(g.Text)...)
	case GuestKicked:
		b = binary.LittleEndian.AppendUint16(b, g.Player)
		b = append(b, CleanText(g.Text)...)
	}
	return b
}

// cutName cuts a clean name to MaxName bytes at a character boundary,
// trimming a space the cut leaves at its end.
func cutName(s string) string {
	if len(s) <= MaxName {
		return s
	}
	n := MaxName
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return CleanText(s[:n])
}

// ParseGuest reads a guest message. It refuses another kind, an unknown
// op, a local number outside 1..MaxGuests, a player of 0, a name over
// MaxName bytes or a text CleanText would change, and bytes past the
// layout's end.
func ParseGuest(msg []byte) (Guest, error) {
	if KindOf(msg) != KindGuest || len(msg) < 3 {
		return Guest{}, fail(FormatGuest)
	}
	g := Guest{Op: GuestOp(msg[1]), Local: msg[2]}
	if g.Local < 1 || g.Local > MaxGuests {
		return Guest{}, failf(FormatGuest, "local player %d outside 1..%d", g.Local, MaxGuests)
	}
	rest := msg[3:]
	player := func() bool {
		if len(rest) < 2 {
			return false
		}
		g.Player, rest = binary.LittleEndian.Uint16(rest), rest[2:]
		return g.Player != 0
	}
	var err error
	switch g.Op {
	case GuestJoin:
		if len(rest) > MaxName {
			return Guest{}, failf(FormatGuest, "a name of %d bytes", len(rest))
		}
		if len(rest) > 0 {
			g.Text, err = parseText(FormatGuest, rest)
		}
	case GuestLeave:
		if len(rest) != 0 {
			return Guest{}, fail(FormatGuest)
		}
	case GuestSeated, GuestLeft:
		if !player() || len(rest) != 0 {
			return Guest{}, fail(FormatGuest)
		}
	case GuestRefused:
		g.Text, err = parseText(FormatGuest, rest)
	case GuestKicked:
		if !player() {
			return Guest{}, fail(FormatGuest)
		}
		if len(rest) > 0 {
			g.Text, err = parseText(FormatGuest, rest)
		}
	default:
		return Guest{}, failf(FormatGuest, "op %d not understood", g.Op)
	}
	if err != nil {
		return Guest{}, err
	}
	return g, nil
}

// Seated is one local player in a guest section: its local number, the
// player number the server gave it, and its entity (none while it has
// none).
type Seated struct {
	Local  uint8
	Player uint16
	Entity entity.ID
}

// GuestSection is the guest section that ends a server's payload when the
// connection has guests (flag bit 2): which player and entity each of the
// connection's guests is, so the client predicts them as its own and draws
// none of them as another's. On the wire, after the packet proper:
//
//	count u8 (1..MaxGuests), then per guest in rising local order:
//	  local u8 (1..MaxGuests), player u16, slot LEB128, generation LEB128
//	  (slot 0 generation 0: no entity)
//	then the section's length u8, counting every byte before it
//
// so a reader finds it from the payload's end.
type GuestSection []Seated

// Append appends the guest section of s, which holds 1..MaxGuests
// entries in rising local order: a section that breaks those rules is the
// caller's mistake, and ParseGuestSection refuses it.
func (s GuestSection) Append(b []byte) []byte {
	at := len(b)
	b = append(b, byte(len(s)))
	for _, e := range s {
		b = append(b, e.Local)
		b = binary.LittleEndian.AppendUint16(b, e.Player)
		b = binary.AppendUvarint(b, uint64(e.Entity.Slot))
		b = binary.AppendUvarint(b, uint64(e.Entity.Gen))
	}
	return append(b, byte(len(b)-at))
}

// ParseGuestSection reads the guest section at the end of p into dst[:0]
// and returns it with what comes before it. It refuses a section longer
// than p, a count outside 1..MaxGuests, local numbers not rising within
// 1..MaxGuests, a player of 0, a slot or generation out of range or not in
// its shortest form (or one of the two 0 without the other), and bytes
// left between the entries and the length.
func ParseGuestSection(p []byte, dst GuestSection) (GuestSection, []byte, error) {
	dst = dst[:0]
	if len(p) < 1 {
		return dst, p, fail(FormatGuests)
	}
	n := int(p[len(p)-1])
	if n < 1 || n > len(p)-1 {
		return dst, p, fail(FormatGuests)
	}
	head, b := p[:len(p)-1-n], p[len(p)-1-n:len(p)-1]
	count := int(b[0])
	if count < 1 || count > MaxGuests {
		return dst, p, failf(FormatGuests, "%d guests", count)
	}
	at := 1
	for range count {
		if len(b) < at+3 {
			return dst, p, fail(FormatGuests)
		}
		e := Seated{Local: b[at], Player: binary.LittleEndian.Uint16(b[at+1:])}
		at += 3
		if e.Local < 1 || e.Local > MaxGuests || e.Player == 0 ||
			(len(dst) > 0 && dst[len(dst)-1].Local >= e.Local) {
			return dst, p, fail(FormatGuests)
		}
		slot, k := uvarint(b[at:])
		if k <= 0 || slot > entity.MaxSlot {
			return dst, p, fail(FormatGuests)
		}
		at += k
		gen, k := uvarint(b[at:])
		if k <= 0 || gen > math.MaxUint32 || (gen == 0) != (slot == 0) {
			return dst, p, fail(FormatGuests)
		}
		at += k
		e.Entity = entity.ID{Slot: uint32(slot), Gen: uint32(gen)}
		dst = append(dst, e)
	}
	if at != len(b) {
		return dst[:0], p, failf(FormatGuests, "%d bytes past the entries", len(b)-at)
	}
	return dst, head, nil
}

// GuestCommands is one guest's command packet, as a client's command
// packet carries it after the own player's: the guest's local number and
// the bytes of its packet (a prediction.Packet's encoding).
type GuestCommands struct {
	Local  uint8
	Packet []byte
}

// commandHeader is the bytes of a command packet before its commands, and
// the command count's place: the low 5 bits of byte 13 (after the
// sequence, tick, drawn tick and fraction).
const commandHeader = 13

// CommandPacketSize returns the size of the command packet at the start of
// b for a project of axes axes and buttons buttons, as its count says, and
// false when b is too short to hold it or its count is over 16.
func CommandPacketSize(b []byte, axes, buttons int) (int, bool) {
	if len(b) <= commandHeader {
		return 0, false
	}
	count := int(b[commandHeader] & 0x1f)
	if count > 16 {
		return 0, false
	}
	n := (commandHeader*8 + 5 + count*(8*axes+2*buttons) + 7) / 8
	return n, n <= len(b)
}

// AppendGuestCommands appends one guest's stream to a command packet: its
// local number, then its packet.
func AppendGuestCommands(b []byte, local uint8, packet []byte) []byte {
	return append(append(b, local), packet...)
}

// SplitGuestCommands takes a client's packet proper apart: the own
// player's command packet, then each guest's stream (a local number
// 1..MaxGuests, rising, then that guest's command packet), appended to
// dst[:0]. It checks each packet's length by its count only; the packets
// themselves are prediction.ParsePacket's to read. It refuses a stream
// cut short, a local number out of range or not rising, and more than
// MaxGuests streams.
func SplitGuestCommands(p []byte, axes, buttons int, dst []GuestCommands) (own []byte, guests []GuestCommands, err error) {
	dst = dst[:0]
	n, ok := CommandPacketSize(p, axes, buttons)
	if !ok {
		return p, dst, nil // the own packet's parser says what is wrong
	}
	own, p = p[:n], p[n:]
	for len(p) > 0 {
		local := p[0]
		if local < 1 || local > MaxGuests || (len(dst) > 0 && dst[len(dst)-1].Local >= local) {
			return own, dst[:0], fail(FormatGuestCommands)
		}
		n, ok := CommandPacketSize(p[1:], axes, buttons)
		if !ok {
			return own, dst[:0], fail(FormatGuestCommands)
		}
		dst = append(dst, GuestCommands{Local: local, Packet: p[1 : 1+n]})
		p = p[1+n:]
	}
	return own, dst, nil
}

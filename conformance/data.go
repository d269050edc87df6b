package conformance

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Connection header ("Data: the connection header"): sequence u16, ack
// u16, ack bits u32, payload length u16, then the payload. Unsealed it
// starts at 12; sealed, it is the start of the opened bytes.
const (
	ConnHeaderLen = 10
	// NoAck is the ack of an end that has received no Data: the sequence
	// "before 0".
	NoAck = 0xFFFF
	// MaxDataPayload is the payload's budget whether or not a server seals.
	MaxDataPayload = 1154
)

// Payload flags ("Data: the payload").
const (
	FlagReliable = 1 << 0
	FlagRelay    = 1 << 1
)

// Conn is a decoded connection header and its payload.
type Conn struct {
	Sequence, Ack uint16
	AckBits       uint32
	Payload       []byte // empty: a keep-alive
}

// ParseConn reads a connection header and payload, refusing a payload
// length that does not match the bytes exactly.
func ParseConn(b []byte) (Conn, error) {
	if len(b) < ConnHeaderLen {
		return Conn{}, fmt.Errorf("conformance: connection header of %d bytes, under %d", len(b), ConnHeaderLen)
	}
	le := binary.LittleEndian
	c := Conn{Sequence: le.Uint16(b[0:2]), Ack: le.Uint16(b[2:4]), AckBits: le.Uint32(b[4:8])}
	if n := int(le.Uint16(b[8:10])); n != len(b)-ConnHeaderLen {
		return Conn{}, fmt.Errorf("conformance: payload length %d, but %d bytes follow", n, len(b)-ConnHeaderLen)
	}
	c.Payload = b[ConnHeaderLen:]
	return c, nil
}

// Acked lists the sequences an ack and its bits acknowledge: ack itself
// and, for each bit i set, ack − 1 − i (16-bit wrap). An ack of NoAck with
// no bits acknowledges nothing.
func (c Conn) Acked() []uint16 {
	if c.Ack == NoAck && c.AckBits == 0 {
		return nil
	}
	out := []uint16{c.Ack}
	for i := range 32 {
		if c.AckBits&(1<<i) != 0 {
			out = append(out, c.Ack-1-uint16(i))
		}
	}
	return out
}

// Newer reports whether sequence a is newer than b: (a − b) mod 65536 in
// 1..32767.
func Newer(a, b uint16) bool {
	d := a - b
	return d >= 1 && d <= 32767
}

// Payload is a non-empty Data payload split into its parts.
type Payload struct {
	Flags    uint8
	Reliable []Fragment  // with FlagReliable
	Relay    []Relayed   // with FlagRelay
	Guests   []GuestSeat // with FlagGuests ("Guests")
	Packet   []byte      // the packet proper, to the end or the guest section
}

// ParsePayload splits a non-empty payload: flags, a reliable section with
// bit 0, a relay section with bit 1 (only from the server), the packet
// proper to the end.
func ParsePayload(b []byte, fromServer bool) (Payload, error) {
	if len(b) == 0 {
		return Payload{}, errors.New("conformance: an empty payload is a keep-alive, not a payload")
	}
	p := Payload{Flags: b[0]}
	if p.Flags&^(FlagReliable|FlagRelay|FlagGuests) != 0 {
		return Payload{}, fmt.Errorf("conformance: payload flags %#x with unknown bits", p.Flags)
	}
	if p.Flags&FlagRelay != 0 && !fromServer {
		return Payload{}, errors.New("conformance: a client's payload with a relay section")
	}
	if p.Flags&FlagGuests != 0 && !fromServer {
		return Payload{}, errors.New("conformance: a client's payload with a guest section")
	}
	rest := b[1:]
	var err error
	if p.Flags&FlagReliable != 0 {
		if p.Reliable, rest, err = parseReliable(rest); err != nil {
			return Payload{}, err
		}
	}
	if p.Flags&FlagRelay != 0 {
		if p.Relay, rest, err = parseRelay(rest); err != nil {
			return Payload{}, err
		}
	}
	if p.Flags&FlagGuests != 0 {
		if p.Guests, rest, err = ParseGuestSection(rest); err != nil {
			return Payload{}, err
		}
	}
	p.Packet = rest
	return p, nil
}

// Fragment is one fragment of a reliable section ("Reliable messages").
type Fragment struct {
	Message uint16 // low 16 bits of the message number
	Size    uint32 // the whole message's
	Offset  uint32
	Data    []byte
}

// MaxMessage is the largest reliable message (4 MiB).
const MaxMessage = 4 << 20

// parseReliable reads a count byte (1..255) and that many fragments, each
// inside its message and empty only as the single fragment of an empty
// message, and returns what follows the section.
func parseReliable(b []byte) ([]Fragment, []byte, error) {
	if len(b) < 1 || b[0] == 0 {
		return nil, nil, errors.New("conformance: reliable section without fragments")
	}
	n := int(b[0])
	b = b[1:]
	frags := make([]Fragment, 0, n)
	for range n {
		if len(b) < 10 {
			return nil, nil, errors.New("conformance: reliable fragment cut short")
		}
		f := Fragment{Message: binary.LittleEndian.Uint16(b[0:2]), Size: u24(b[2:5]), Offset: u24(b[5:8])}
		length := int(binary.LittleEndian.Uint16(b[8:10]))
		if len(b) < 10+length {
			return nil, nil, errors.New("conformance: reliable fragment data cut short")
		}
		f.Data = b[10 : 10+length]
		b = b[10+length:]
		if err := f.check(); err != nil {
			return nil, nil, err
		}
		frags = append(frags, f)
	}
	return frags, b, nil
}

func (f Fragment) check() error {
	switch {
	case f.Size > MaxMessage:
		return fmt.Errorf("conformance: reliable message of %d bytes, over 4 MiB", f.Size)
	case uint64(f.Offset)+uint64(len(f.Data)) > uint64(f.Size):
		return errors.New("conformance: reliable fragment past its message's end")
	case len(f.Data) == 0 && (f.Size != 0 || f.Offset != 0):
		return errors.New("conformance: empty fragment of a non-empty message")
	}
	return nil
}

func u24(b []byte) uint32 { return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 }

// Relayed is one character of a relay section.
type Relayed struct {
	Slot, Generation uint32
	RunX, RunY       uint8 // command-axis codes
}

// parseRelay reads a relay section: a count 1..4, then the characters in
// rising slot order, no slot twice, each slot (LEB128, below 2^24),
// generation (LEB128, 1..2^32 − 1) and the two run bytes, command-axis
// codes of which 0 is "never written and refused".
func parseRelay(b []byte) ([]Relayed, []byte, error) {
	if len(b) < 1 || b[0] < 1 || b[0] > 4 {
		return nil, nil, errors.New("conformance: relay count not 1..4")
	}
	n := int(b[0])
	b = b[1:]
	out := make([]Relayed, 0, n)
	for range n {
		var c Relayed
		var slot, gen uint64
		var err error
		if slot, b, err = leb128(b); err != nil {
			return nil, nil, err
		}
		if gen, b, err = leb128(b); err != nil {
			return nil, nil, err
		}
		if slot >= 1<<24 || gen == 0 || gen >= 1<<32 {
			return nil, nil, fmt.Errorf("conformance: relayed entity %d#%d out of range", slot, gen)
		}
		if len(out) > 0 && uint32(slot) <= out[len(out)-1].Slot {
			return nil, nil, errors.New("conformance: relay slots not rising")
		}
		if len(b) < 2 {
			return nil, nil, errors.New("conformance: relay run cut short")
		}
		if b[0] == 0 || b[1] == 0 {
			return nil, nil, fmt.Errorf("conformance: relayed %d#%d with run code 0", slot, gen)
		}
		c = Relayed{Slot: uint32(slot), Generation: uint32(gen), RunX: b[0], RunY: b[1]}
		b = b[2:]
		out = append(out, c)
	}
	return out, b, nil
}

// leb128 reads an unsigned LEB128 value of at most 5 bytes, refusing any
// but the shortest form.
func leb128(b []byte) (uint64, []byte, error) {
	var v uint64
	for i := 0; i < len(b) && i < 5; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			if i > 0 && b[i] == 0 {
				return 0, nil, errors.New("conformance: LEB128 not in its shortest form")
			}
			return v, b[i+1:], nil
		}
	}
	return 0, nil, errors.New("conformance: LEB128 cut short or over 5 bytes")
}

// AxisValue decodes a command-axis code: (code − 128) / 127, code 0 read
// as −1 ("Command packets").
func AxisValue(code uint8) float64 {
	if code == 0 {
		return -1
	}
	return float64(int(code)-128) / 127
}

package prediction

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"vkm/wire"
)

// Protocol constants of the command packet: part of the wire contract.
const (
	// MaxPerPacket is the most commands one packet carries. Sixteen is the
	// redundancy window (12) plus room for a few never-sent commands, so a
	// quarter-second stutter at 128 Hz (32 commands) goes out over two
	// frames; sixteen of the widest command (8 axes, 32 buttons) make a
	// 270-byte packet, well inside a datagram.
	MaxPerPacket = 16

	// countBits is the width of the command count: 0..16 needs five bits;
	// 17..31 are refused.
	countBits = 5

	// headerBits is everything before the first command: first sequence,
	// first tick, drawn tick (32 bits each), drawn fraction (8) and count.
	headerBits = 32 + 32 + 32 + 8 + countBits
)

// Packet is one command packet, client to server: an unbroken run of the
// client's commands (each one sequence and one client tick after the one
// before, which is what ticking makes) and the server tick the client was
// drawing when it sent it.
//
// Wire layout (bits least significant first, see the wire package):
//
//	FirstSeq   32
//	FirstTick  32
//	DrawnTick  32
//	DrawnFrac   8
//	count       5   0..16; more is refused
//	count × command:
//	  nAxes × 8        wire.Axis codes, in the project's axis order
//	  nButtons × 1     Held, button 0 first
//	  nButtons × 1     Pressed, button 0 first
//	zero bits to the next byte boundary
//
// Nothing is said per command but its input: its sequence and tick are
// implied by its place in the run. A packet with no command is allowed; it
// still carries the connection's acknowledgements. The project's axis and
// button counts are not on the wire: both ends load the same project, which
// the join checks.
//
// An edge without its button (Pressed set where Held is not) is cleared, by
// Append and by ParsePacket alike, rather than refused: an edge means the
// button went down in that command, so it is down; a packet carrying one
// otherwise is malformed in one bit, and refusing it would throw away the
// fifteen good commands beside it and, since redundancy sends the same bits
// again, every packet after it too. A tap shorter than a tick is the input
// layer's to stretch over one held command.
//
// The zero value is an empty packet. A Packet is not safe for concurrent
// use.
type Packet struct {
	FirstSeq  uint32    // sequence of the first command; sequences start at 1
	FirstTick uint32    // client tick of the first command
	Commands  []Command // the run, oldest first; at most MaxPerPacket
	DrawnTick uint32    // the server tick the client drew (whole ticks), for lag compensation
	DrawnFrac uint8     // the fraction of a tick past DrawnTick, in 1/256ths
}

var (
	errCount    = errors.New("prediction: command packet count over 16")
	errLength   = errors.New("prediction: command packet length does not match its count")
	errPadding  = errors.New("prediction: command packet padding not zero")
	errSequence = errors.New("prediction: command packet sequence zero or wrapping")
)

// PacketSize returns the encoded size in bytes of a packet of n commands for
// a project of nAxes axes and nButtons buttons.
func PacketSize(n, nAxes, nButtons int) int {
	return (headerBits + n*commandBits(nAxes, nButtons) + 7) / 8
}

// commandBits returns the width of one command on the wire.
func commandBits(nAxes, nButtons int) int { return nAxes*int(wire.Axis.Bits) + 2*nButtons }

// checkCounts reports whether a project's axis and button counts fit a
// Command.
func checkCounts(nAxes, nButtons int) error {
	if nAxes < 0 || nAxes > MaxAxes || nButtons < 0 || nButtons > MaxButtons {
		return fmt.Errorf("prediction: %d axes and %d buttons, at most %d and %d", nAxes, nButtons, MaxAxes, MaxButtons)
	}
	return nil
}

// Append appends p's encoding for a project of nAxes axes and nButtons
// buttons to dst and returns the extended slice. Axes are clamped by the
// quantiser; buttons past nButtons, and edges whose button is not held, are
// not sent. Counts out of range, or more than MaxPerPacket commands, are a
// programmer error and panic.
func (p *Packet) Append(dst []byte, nAxes, nButtons int) []byte {
	if err := checkCounts(nAxes, nButtons); err != nil {
		panic(err)
	}
	if len(p.Commands) > MaxPerPacket {
		panic(errCount)
	}
	size := PacketSize(len(p.Commands), nAxes, nButtons)
	start := len(dst)
	dst = slices.Grow(dst, size)
	// The writer fills dst's spare capacity in place: there is room for
	// all of it, so it never reallocates.
	var w wire.Writer
	w.Reset(dst[start : start+size])
	w.WriteUint32(p.FirstSeq)
	w.WriteUint32(p.FirstTick)
	w.WriteUint32(p.DrawnTick)
	w.WriteUint8(p.DrawnFrac)
	w.WriteBits(uint64(len(p.Commands)), countBits)
	mask := buttonMask(nButtons)
	for i := range p.Commands {
		c := &p.Commands[i]
		for a := range nAxes {
			wire.Axis.Write(&w, c.Axes[a])
		}
		held := c.Held & mask
		w.WriteBits(uint64(held), nButtons)
		w.WriteBits(uint64(c.Pressed&held), nButtons)
	}
	return dst[:start+size]
}

// ParsePacket decodes b, a whole command packet for a project of nAxes axes
// and nButtons buttons, into p, reusing p.Commands' storage. It fails, and
// never panics, on bytes that are short, long, carry a count over
// MaxPerPacket, have non-zero padding, start at sequence 0 or run past the
// largest sequence; p's contents are then unspecified. An edge whose button
// is not held is cleared (see Packet).
func ParsePacket(b []byte, nAxes, nButtons int, p *Packet) error {
	if err := checkCounts(nAxes, nButtons); err != nil {
		return err
	}
	var r wire.Reader
	r.Reset(b)
	p.FirstSeq, _ = r.ReadUint32()
	p.FirstTick, _ = r.ReadUint32()
	p.DrawnTick, _ = r.ReadUint32()
	p.DrawnFrac, _ = r.ReadUint8()
	nc, err := r.ReadBits(countBits)
	if err != nil {
		return fmt.Errorf("prediction: command packet header: %w", err)
	}
	n := int(nc)
	switch {
	case n > MaxPerPacket:
		return errCount
	case len(b) != PacketSize(n, nAxes, nButtons):
		return errLength
	case n > 0 && (p.FirstSeq == 0 || uint64(p.FirstSeq)+uint64(n)-1 > math.MaxUint32):
		return errSequence
	}
	p.Commands = p.Commands[:0]
	for range n {
		var c Command
		for a := range nAxes {
			c.Axes[a] = wire.Axis.Read(&r)
		}
		held, _ := r.ReadBits(nButtons)
		pressed, _ := r.ReadBits(nButtons)
		c.Held = uint32(held)
		c.Pressed = uint32(pressed) & c.Held
		p.Commands = append(p.Commands, c)
	}
	// The length was checked against the count, so every read above fits
	// and fewer than eight bits are left: the padding.
	if pad, _ := r.ReadBits(r.Remaining()); pad != 0 {
		return errPadding
	}
	return r.Err()
}

package conformance

import (
	"errors"
	"fmt"
	"math"
)

// Command packet bounds ("Command packets").
const (
	MaxCommands     = 16
	MaxAxes         = 8
	MaxButtons      = 32
	commandHeadBits = 109 // 32 + 32 + 32 + 8 + 5
)

// Command is one command of a packet: the axis codes and the held and
// pressed buttons, button 0 in bit 0.
type Command struct {
	Axes    []uint8
	Held    uint32
	Pressed uint32
}

// CommandPacket is a decoded command packet.
type CommandPacket struct {
	FirstSequence uint32
	FirstTick     uint32
	DrawnTick     uint32
	DrawnFraction uint8 // 1/256ths
	Commands      []Command
}

// CommandPacketLen is the exact length of a packet of count commands:
// ceil((109 + count × (8 × axes + 2 × buttons)) / 8) bytes.
func CommandPacketLen(count, axes, buttons int) int {
	return (commandHeadBits + count*(8*axes+2*buttons) + 7) / 8
}

// ParseCommandPacket decodes a command packet of a project with the given
// axes and buttons (not on the wire). It refuses a count over 16, commands
// from sequence 0 or running past 2^32 − 1, and any length but the
// formula's.
func ParseCommandPacket(b []byte, axes, buttons int) (CommandPacket, error) {
	if axes < 0 || axes > MaxAxes || buttons < 0 || buttons > MaxButtons {
		return CommandPacket{}, fmt.Errorf("conformance: %d axes and %d buttons, over 8 and 32", axes, buttons)
	}
	r := newBitReader(b)
	p := CommandPacket{
		FirstSequence: uint32(r.read(32)),
		FirstTick:     uint32(r.read(32)),
		DrawnTick:     uint32(r.read(32)),
		DrawnFraction: uint8(r.read(8)),
	}
	count := int(r.read(5))
	if r.err != nil {
		return CommandPacket{}, r.err
	}
	if err := checkCommandRun(p.FirstSequence, count); err != nil {
		return CommandPacket{}, err
	}
	if want := CommandPacketLen(count, axes, buttons); len(b) != want {
		return CommandPacket{}, fmt.Errorf("conformance: command packet of %d bytes; %d commands need %d", len(b), count, want)
	}
	for range count {
		c := Command{Axes: make([]uint8, axes)}
		for i := range c.Axes {
			c.Axes[i] = uint8(r.read(8))
		}
		c.Held = uint32(r.read(buttons))
		c.Pressed = uint32(r.read(buttons))
		p.Commands = append(p.Commands, c)
	}
	if err := r.finish(); err != nil {
		return CommandPacket{}, err
	}
	return p, nil
}

func checkCommandRun(first uint32, count int) error {
	switch {
	case count > MaxCommands:
		return fmt.Errorf("conformance: %d commands, over %d", count, MaxCommands)
	case count > 0 && first == 0:
		return errors.New("conformance: commands from sequence 0")
	case count > 0 && uint64(first)+uint64(count)-1 > math.MaxUint32:
		return errors.New("conformance: commands running past 2^32 − 1")
	}
	return nil
}

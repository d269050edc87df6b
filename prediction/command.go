// Package prediction holds the client's own copy of time: commands and their
// history, the server's per-player command queue, pacing, reconciliation and
// interpolation. It knows nothing of sockets or Lua.
package prediction

import "vkm/wire"

// MaxAxes and MaxButtons bound a project's input actions so a Command is a
// fixed-size value: copying one never allocates, and its wire form has a
// known upper size.
const (
	MaxAxes    = 8
	MaxButtons = 32
)

// Command is one tick of one player's input. Axes are -1..1 in the
// project's axis order; Held and Pressed are bit masks in the project's
// button order. Pressed is an edge: true for exactly the one command in
// which the button went down.
type Command struct {
	Axes    [MaxAxes]float64
	Held    uint32
	Pressed uint32
}

// Axis returns axis i, or 0 if i is out of range.
func (c *Command) Axis(i int) float64 {
	if i < 0 || i >= MaxAxes {
		return 0
	}
	return c.Axes[i]
}

// IsHeld reports whether button i is down.
func (c *Command) IsHeld(i int) bool { return i >= 0 && i < MaxButtons && c.Held&(1<<i) != 0 }

// WasPressed reports whether button i went down in this command.
func (c *Command) WasPressed(i int) bool {
	return i >= 0 && i < MaxButtons && c.Pressed&(1<<i) != 0
}

// Next builds the command that follows prev when the buttons now held are
// held: Pressed is set for each button held now but not in prev.
func Next(prev Command, axes [MaxAxes]float64, held uint32) Command {
	return Command{Axes: axes, Held: held, Pressed: held &^ prev.Held}
}

// Quantize returns c as a command packet carries it for a project of nAxes
// axes and nButtons buttons: each axis through wire.Axis (clamped to -1..1,
// zero exact, NaN read as 0), axes and buttons past the project's counts
// cleared, and Pressed cleared for any button not Held (see Packet). A client
// predicts with the quantised command so that the server runs exactly what
// the client ran. nAxes and nButtons are clamped to 0..MaxAxes and
// 0..MaxButtons.
func (c *Command) Quantize(nAxes, nButtons int) Command {
	nAxes = max(0, min(nAxes, MaxAxes))
	var q Command
	for i := range nAxes {
		q.Axes[i] = wire.Axis.Quantize(c.Axes[i])
	}
	m := buttonMask(nButtons)
	q.Held = c.Held & m
	q.Pressed = c.Pressed & q.Held
	return q
}

// buttonMask returns the bits of the first n buttons, n clamped to
// 0..MaxButtons.
func buttonMask(n int) uint32 {
	n = max(0, min(n, MaxButtons))
	return uint32(uint64(1)<<n - 1)
}

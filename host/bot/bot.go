// Package bot plays a project's input actions by itself, from a seed: the
// same seed gives the same commands tick for tick, so a bot's match is
// repeatable. It is what the client's --bot and --bots run.
package bot

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"vkm/prediction"
)

// Bot plays a project's input actions by itself, from a seed: the same seed
// gives the same commands, tick for tick, so a bot's match is repeatable. It
// knows the actions only by position, so it plays any project.
//
// The zero value is not usable; build one with New.
type Bot struct {
	rng     *rand.Rand
	axes    []botAxis
	buttons []botButton
	prev    prediction.Command
}

type botAxis struct {
	value float64
	left  int // ticks until a new value
}

type botButton struct {
	left int // ticks the button stays down (0: up)
}

// Kinds lists the bots New builds.
var Kinds = []string{"wander", "idle"}

// CheckKind reports a bot kind New does not build (one not in Kinds).
func CheckKind(kind string) error {
	if !slices.Contains(Kinds, kind) {
		return fmt.Errorf("bot: unknown bot %q (known: %s)", kind, strings.Join(Kinds, ", "))
	}
	return nil
}

// New returns a bot of the given kind for a project with nAxes axes and
// nButtons buttons. "wander" runs about, stopping and turning at random,
// sweeps its aim and taps each button every half second or so. "idle" holds
// nothing, so its character stands still: a settled world, the quietest a
// server gets.
func New(kind string, seed uint64, nAxes, nButtons int) (*Bot, error) {
	if err := CheckKind(kind); err != nil {
		return nil, err
	}
	if nAxes > prediction.MaxAxes || nButtons > prediction.MaxButtons {
		return nil, fmt.Errorf("bot: %d axes and %d buttons exceed the command's %d and %d", nAxes, nButtons, prediction.MaxAxes, prediction.MaxButtons)
	}
	if kind == "idle" {
		nAxes, nButtons = 0, 0 // moves nothing: every command is empty
	}
	return &Bot{
		rng:     rand.New(rand.NewPCG(seed, 0x766b6d626f74)), // "vkmbot"
		axes:    make([]botAxis, nAxes),
		buttons: make([]botButton, nButtons),
	}, nil
}

// Next returns the bot's command for the next tick.
func (b *Bot) Next() prediction.Command {
	var axes [prediction.MaxAxes]float64
	for i := range b.axes {
		a := &b.axes[i]
		if a.left == 0 {
			// Mostly full deflection, so a run axis really runs; now and then
			// a partial one or a stop.
			switch r := b.rng.Float64(); {
			case r < 0.7:
				a.value = float64(1 - 2*b.rng.IntN(2))
			case r < 0.85:
				a.value = 0
			default:
				a.value = 2*b.rng.Float64() - 1
			}
			a.left = 20 + b.rng.IntN(100)
		}
		a.left--
		axes[i] = a.value
	}
	var held uint32
	for i := range b.buttons {
		bt := &b.buttons[i]
		if bt.left == 0 && b.rng.IntN(30) == 0 {
			bt.left = 2 + b.rng.IntN(8)
		}
		if bt.left > 0 {
			bt.left--
			held |= 1 << i
		}
	}
	b.prev = prediction.Next(b.prev, axes, held)
	return b.prev
}

package game

import (
	"math"
	"time"
)

// MaxCatchUp is how many ticks one frame may run before the rest of the
// backlog is dropped. A stalled process (a debugger, a swapped-out page)
// would otherwise come back owing hundreds of ticks and spend the next
// seconds running them, frozen, instead of carrying on from now.
const MaxCatchUp = 8

// Clock turns elapsed wall time into a whole number of fixed ticks. The step
// a tick simulates never varies; what can vary is how many ticks a second of
// wall time buys (Pace), which client pacing bends by a few per cent.
//
// The zero value is not usable; build one with NewClock. A Clock is not safe
// for concurrent use.
type Clock struct {
	step       time.Duration
	pace       float64
	acc        time.Duration
	maxCatchUp int
	dropped    int64
}

// NewClock returns a clock for tickRate ticks a second, at real-time pace.
func NewClock(tickRate int) *Clock {
	return &Clock{
		step:       time.Duration(float64(time.Second) / float64(tickRate)),
		pace:       1,
		maxCatchUp: MaxCatchUp,
	}
}

// Step is the wall time one tick stands for at real-time pace.
func (c *Clock) Step() time.Duration { return c.step }

// SetPace sets how many ticks of simulated time a tick of wall time buys:
// 1 is real time, 1.05 ticks five per cent fast. Values outside 0.5..2 are
// clamped: the clock is bent, never broken.
func (c *Clock) SetPace(p float64) {
	switch {
	case !(p >= 0.5): // also catches NaN
		p = 0.5
	case p > 2:
		p = 2
	}
	c.pace = p
}

// Pace returns the current pace (1 = real time).
func (c *Clock) Pace() float64 { return c.pace }

// Advance adds elapsed wall time and returns how many ticks are now due, at
// most MaxCatchUp; a backlog beyond that is dropped and counted.
func (c *Clock) Advance(elapsed time.Duration) int {
	if elapsed > 0 {
		// Rounded up, as Until is: a loop that sleeps for Until and
		// advances by what it slept finds the tick due, never a
		// nanosecond short of it (a loop on a synthetic clock, where no
		// time passes while it runs, would wake forever for nothing).
		c.acc += time.Duration(math.Ceil(float64(elapsed) * c.pace))
	}
	n := int(c.acc / c.step)
	c.acc -= time.Duration(n) * c.step
	if n > c.maxCatchUp {
		c.dropped += int64(n - c.maxCatchUp)
		n = c.maxCatchUp
	}
	return n
}

// Alpha is how far wall time has run into the next tick, 0..1: the share of
// a tick a frame drawn now stands past the last tick run.
func (c *Clock) Alpha() float64 { return float64(c.acc) / float64(c.step) }

// Until returns the wall time left before the next tick is due at the
// current pace, for a loop that sleeps between ticks.
func (c *Clock) Until() time.Duration { return c.UntilTicks(1) }

// UntilTicks returns the wall time left before the nth tick from now is
// due at the current pace (n below 1 counts as 1), for a loop that lets
// ticks no one looks at wait and runs them together.
func (c *Clock) UntilTicks(n int) time.Duration {
	left := time.Duration(max(n, 1))*c.step - c.acc
	return time.Duration(math.Ceil(float64(left) / c.pace))
}

// Dropped is how many ticks were dropped because a frame owed more than
// MaxCatchUp.
func (c *Clock) Dropped() int64 { return c.dropped }

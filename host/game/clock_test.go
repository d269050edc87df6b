package game

import (
	"testing"
	"time"
)

func TestClockRunsWholeTicksAndKeepsTheRemainder(t *testing.T) {
	c := NewClock(64)
	if got := c.Step(); got != 15625*time.Microsecond {
		t.Fatalf("step at 64 Hz = %v, want 15.625ms", got)
	}
	if n := c.Advance(10 * time.Millisecond); n != 0 {
		t.Fatalf("10ms gave %d ticks, want 0", n)
	}
	if n := c.Advance(10 * time.Millisecond); n != 1 {
		t.Fatalf("20ms in all gave %d ticks, want 1", n)
	}
	// 4.375 ms carried over: 11.25 ms more makes exactly one more tick.
	if n := c.Advance(11250 * time.Microsecond); n != 1 {
		t.Fatalf("carry-over lost: got %d ticks, want 1", n)
	}
	if a := c.Alpha(); a != 0 {
		t.Fatalf("alpha after an exact tick = %v, want 0", a)
	}
}

func TestClockCapsCatchUpAndCountsTheDrop(t *testing.T) {
	c := NewClock(64)
	if n := c.Advance(time.Second); n != MaxCatchUp {
		t.Fatalf("a one-second stall ran %d ticks, want the cap %d", n, MaxCatchUp)
	}
	if d := c.Dropped(); d != 64-MaxCatchUp {
		t.Fatalf("dropped %d, want %d", d, 64-MaxCatchUp)
	}
	if n := c.Advance(0); n != 0 {
		t.Fatalf("the dropped backlog came back: %d ticks", n)
	}
}

func TestClockPaceBendsTicksPerSecondNotTheStep(t *testing.T) {
	c := NewClock(100)
	c.SetPace(1.05)
	total := 0
	for range 100 {
		total += c.Advance(10 * time.Millisecond)
	}
	if total != 105 {
		t.Fatalf("one second at pace 1.05 ran %d ticks, want 105", total)
	}
	if c.Step() != 10*time.Millisecond {
		t.Fatalf("pace changed the step: %v", c.Step())
	}
	c.SetPace(10)
	if c.Pace() != 2 {
		t.Fatalf("pace not clamped: %v", c.Pace())
	}
}

func TestClockUntilTicksCountsWholeStepsAhead(t *testing.T) {
	c := NewClock(128) // a step of 7.8125 ms
	c.Advance(3 * time.Millisecond)
	if got, want := c.UntilTicks(1), c.Until(); got != want {
		t.Fatalf("UntilTicks(1) = %v, Until = %v", got, want)
	}
	if got, want := c.UntilTicks(2), 12625*time.Microsecond; got != want {
		t.Fatalf("UntilTicks(2) = %v, want %v", got, want)
	}
	if n := c.Advance(c.UntilTicks(2)); n != 2 {
		t.Fatalf("sleeping UntilTicks(2) made %d ticks due, want 2", n)
	}
	if got := c.UntilTicks(0); got != c.Step() {
		t.Fatalf("UntilTicks(0) = %v, want one step", got)
	}
	c.SetPace(2)
	if got, want := c.UntilTicks(2), c.Step(); got != want {
		t.Fatalf("at pace 2, UntilTicks(2) = %v, want one step of wall time %v", got, want)
	}
}

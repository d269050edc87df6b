package game

import (
	"testing"
	"time"
)

// TestTimedPhasesAreTheClocksBetweenMarks: a tick's phases are the
// differences of the clock read before the behaviors, the controllers,
// physics and after it, on each clock; untimed, they are zero.
func TestTimedPhasesAreTheClocksBetweenMarks(t *testing.T) {
	g := newGame(t, loadArena(t))
	g.RunTick()
	if g.Phases() != (TickPhases{}) {
		t.Fatalf("untimed phases %+v", g.Phases())
	}
	// Each read moves the wall on by 1, 2, 4, 8 µs and the CPU clock by
	// half that, so every phase's length says which reads bound it.
	var reads int
	var now PhaseTime
	g.TimePhases(func() PhaseTime {
		step := time.Duration(1<<(reads%4)) * time.Microsecond
		reads++
		now.Wall += step
		now.CPU += step / 2
		return now
	})
	g.RunTick()
	want := TickPhases{
		Behaviors:   PhaseTime{Wall: 2 * time.Microsecond, CPU: time.Microsecond},
		Controllers: PhaseTime{Wall: 4 * time.Microsecond, CPU: 2 * time.Microsecond},
		Physics:     PhaseTime{Wall: 8 * time.Microsecond, CPU: 4 * time.Microsecond},
		Step:        g.Physics().LastStep(),
	}
	if want.Step.Contacts == 0 {
		t.Errorf("the arena's step made no contacts: %+v", want.Step)
	}
	if reads != 4 || g.Phases() != want {
		t.Errorf("%d reads, phases %+v, want 4 and %+v", reads, g.Phases(), want)
	}
	g.TimePhases(nil)
	g.RunTick()
	if reads != 4 || g.Phases() != (TickPhases{}) {
		t.Errorf("timing stopped: %d reads, phases %+v", reads, g.Phases())
	}
}

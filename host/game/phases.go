package game

import (
	"time"

	"vkm/physics"
)

// PhaseTime is a reading of the two clocks a tick's phases are timed on:
// wall time and the CPU time of the thread running the tick.
type PhaseTime struct {
	Wall, CPU time.Duration
}

// Sub is the time from o to t on each clock.
func (t PhaseTime) Sub(o PhaseTime) PhaseTime {
	return PhaseTime{Wall: t.Wall - o.Wall, CPU: t.CPU - o.CPU}
}

// TickPhases is what the phases of one tick took: the behaviors
// (on_fixed_update and the handlers they run), the character controllers,
// and the physics step with the placing of bodies before it; and what the
// step did (contacts, islands, times of impact), which sets its cost.
type TickPhases struct {
	Behaviors, Controllers, Physics PhaseTime
	Step                            physics.StepCounts
}

// phaseTimer times the phases of each tick while it has a clock; the
// zero value times nothing and costs one nil check a phase.
type phaseTimer struct {
	read func() PhaseTime
	last TickPhases
}

// TimePhases times every tick's phases from now on, on read, which returns
// the clocks at the moment it is called (a serving loop reads the wall and
// its thread's CPU clock); nil stops timing. Phases gives the last tick's.
// It is for finding what a slow tick spent its time on: a read costs what
// the clocks cost, a few of them a tick.
func (g *Game) TimePhases(read func() PhaseTime) { g.timer = phaseTimer{read: read} }

// Phases is what the last tick's phases took, if they were timed
// (TimePhases); zero otherwise.
func (g *Game) Phases() TickPhases { return g.timer.last }

// mark reads the clocks if phases are timed.
func (p *phaseTimer) mark() PhaseTime {
	if p.read == nil {
		return PhaseTime{}
	}
	return p.read()
}

// done keeps a tick's phases from its four marks: before the behaviors,
// before the controllers, before physics and after it.
func (p *phaseTimer) done(behaviors, controllers, phys, end PhaseTime, step physics.StepCounts) {
	if p.read == nil {
		return
	}
	p.last = TickPhases{
		Behaviors:   controllers.Sub(behaviors),
		Controllers: phys.Sub(controllers),
		Physics:     end.Sub(phys),
		Step:        step,
	}
}

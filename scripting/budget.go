package scripting

import (
	"context"
	"fmt"
	"time"
)

// checkEvery is how many checkpoints (checkpoints.go: backward jumps,
// loop rounds and calls, between which the VM runs at most once through a
// function's code) pass between two looks at the clock. Reading the clock
// at every one would cost more than the code between them, and 256 of
// them is well under a tenth of a millisecond of lateness against a budget
// of tens of milliseconds. Must be a power of two.
const checkEvery = 256

// watchdog is the one context.Context a Lua state carries for its whole life.
// It stops a runaway call without a goroutine, a timer or a context per call:
//
//   - enter arms it for an outermost call into Lua (nested calls, such as an
//     on_destroy run from inside self:destroy(), share the outer budget);
//   - Done, which the VM calls at every checkpoint (checkpoints.go), counts
//     them and every checkEvery of them compares the clock with the
//     moment of the call's first look (taken lazily, so a short call never
//     reads the clock at all);
//   - once the budget is spent, Done returns a closed channel for every
//     later checkpoint, so the VM raises Err at once — even inside a Lua
//     pcall, because the pcall's caller meets the closed channel at its next
//     checkpoint too;
//   - leave disarms it, so the same state serves the next call normally.
//
// Between checks Done returns a nil channel, which the VM's select skips as
// cheaply as an open one. Time spent inside Go functions (a World call, a
// string pattern match) is not interrupted; it only counts toward the
// budget once Lua runs again. A watchdog belongs to one Lua state and, like
// the state, is not safe for concurrent use.
type watchdog struct {
	budget time.Duration
	depth  int
	count  uint32
	timed  bool
	start  time.Time
	// confirm is the clock an overrun on the wall is checked against
	// before the call is stopped (nil: the wall's word is final), and
	// confirmed its reading at the call's first look.
	confirm   func() time.Duration
	confirmed time.Duration
	fired     bool
	err       error
	stopped   chan struct{} // closed once, at construction
}

var _ context.Context = (*watchdog)(nil)

// newWatchdog returns a watchdog that stops a call once it has run past
// its budget on the wall and, when confirm is not nil, on confirm too.
// The wall is read at every look (a cheap read); confirm, which may be a
// system call, only at a call's first look and once the wall says the
// budget is spent.
func newWatchdog(confirm func() time.Duration) *watchdog {
	w := &watchdog{stopped: make(chan struct{}), confirm: confirm}
	close(w.stopped)
	return w
}

// enter arms the watchdog for a call into Lua that may run for budget.
// Only the outermost call sets the budget.
func (w *watchdog) enter(budget time.Duration) {
	if w.depth == 0 {
		w.budget, w.count, w.timed, w.fired = budget, 0, false, false
	}
	w.depth++
}

// leave ends a call begun with enter and reports whether the budget was
// spent while it ran.
func (w *watchdog) leave() (stopped bool) {
	w.depth--
	stopped = w.fired
	if w.depth == 0 {
		w.fired = false
	}
	return stopped
}

// Done implements context.Context; see the type's comment.
func (w *watchdog) Done() <-chan struct{} {
	if w.look() {
		return w.stopped
	}
	return nil
}

// look is Done without the channel: it counts a checkpoint and reports
// whether the call is to be stopped. The VM's checkpoints (checkpoints.go)
// call it directly, without the interface call and the channel receive.
func (w *watchdog) look() bool {
	if w.fired {
		return true
	}
	w.count++
	return w.count&(checkEvery-1) == 0 && w.check()
}

// check is look's every checkEvery-th: it reads the clock.
func (w *watchdog) check() bool {
	if w.depth == 0 {
		return false
	}
	if !w.timed {
		w.timed, w.start = true, time.Now()
		if w.confirm != nil {
			w.confirmed = w.confirm()
		}
		return false
	}
	if time.Since(w.start) < w.budget {
		return false
	}
	if w.confirm != nil && w.confirm()-w.confirmed < w.budget {
		return false
	}
	w.fired = true
	w.err = fmt.Errorf("ran past its %v budget (runaway script stopped)", w.budget)
	return true
}

// Err implements context.Context: the reason the VM raises in the script.
func (w *watchdog) Err() error {
	if w.fired {
		return w.err
	}
	return nil
}

// Deadline implements context.Context; the watchdog has no fixed deadline.
func (w *watchdog) Deadline() (time.Time, bool) { return time.Time{}, false }

// Value implements context.Context; the watchdog carries no values.
func (w *watchdog) Value(any) any { return nil }

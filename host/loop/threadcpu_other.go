//go:build !linux

package loop

import "time"

// ThreadCPU reports no thread CPU clock where the system gives none to
// this program: the tick's CPU figures stay 0.
func ThreadCPU() (time.Duration, bool) { return 0, false }

// ScriptClock is nil here: behaviors are budgeted on wall time.
func ScriptClock() func() time.Duration { return nil }

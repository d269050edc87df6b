//go:build !linux

package host

import "time"

// threadCPU reports no thread CPU clock where the system gives none to
// this program: the tick's CPU figures stay 0.
func threadCPU() (time.Duration, bool) { return 0, false }

// scriptClock is nil here: behaviors are budgeted on wall time.
func scriptClock() func() time.Duration { return nil }

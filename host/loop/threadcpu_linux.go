package loop

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ThreadCPU is the CPU time the calling OS thread has used, and whether
// the system gives this program a thread CPU clock. The serving
// loop is locked to its thread, so the difference across a tick is what
// the tick cost in CPU, its garbage collection assists included, apart
// from any time the thread waited for a core.
func ThreadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	// Raw, like every call the serving loop makes: see Timer.
	if _, _, e := unix.RawSyscall(unix.SYS_CLOCK_GETTIME, unix.CLOCK_THREAD_CPUTIME_ID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// ScriptClock is the clock a served game's behaviors are budgeted on: the
// serving thread's CPU time, so that on a machine busy with other work a
// behavior is not stopped as a runaway for time its thread spent waiting
// for a core. Nil (wall time) when the system has no thread clock.
func ScriptClock() func() time.Duration {
	if _, ok := ThreadCPU(); !ok {
		return nil
	}
	return func() time.Duration {
		d, _ := ThreadCPU()
		return d
	}
}

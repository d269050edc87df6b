package host

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time the calling OS thread has used. The serving
// loop is locked to its thread, so the difference across a tick is what
// the tick cost in CPU, its garbage collection assists included, apart
// from any time the thread waited for a core.
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	// Raw, like every call the serving loop makes: see loopTimer.
	if _, _, e := unix.RawSyscall(unix.SYS_CLOCK_GETTIME, unix.CLOCK_THREAD_CPUTIME_ID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// scriptClock is the clock a served game's behaviors are budgeted on: the
// serving thread's CPU time, so that on a machine busy with other work a
// behavior is not stopped as a runaway for time its thread spent waiting
// for a core. Nil (wall time) when the system has no thread clock.
func scriptClock() func() time.Duration {
	if _, ok := threadCPU(); !ok {
		return nil
	}
	return func() time.Duration {
		d, _ := threadCPU()
		return d
	}
}

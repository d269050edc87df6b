package host

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time the calling OS thread has used. The serving
// loop is locked to its thread, so the difference across a tick is what
// the tick cost in CPU, its garbage collection assists included, apart
// from any time the thread waited for a core.
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
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

// threadSleeps says threadSleep is available here.
const threadSleeps = true

// threadSleep sleeps for d on the calling OS thread, in a system call,
// instead of parking the goroutine on a Go timer. The serving loop is
// locked to its thread, and a locked goroutine that parks hands its P to
// another thread and takes it back when woken: two thread switches a
// wake-up, which at 128 ticks a second cost the arena's server about a
// third of its CPU. Asleep in a system call, the goroutine keeps its
// thread, and the runtime lends the P to any other goroutine that needs
// it meanwhile.
func threadSleep(d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}

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

// threadSleep sleeps for d on the calling OS thread, in nanosleep, instead
// of parking the goroutine on a Go timer. The serving loop runs locked to
// its thread, and a locked goroutine that parks hands its P to another
// thread and takes it back when woken: two thread switches a wake-up, which
// at 128 ticks a second cost the arena's server about a third of its CPU.
//
// With one P (vkmd's default, runtime.GOMAXPROCS(0) == 1) the call is made
// without telling the scheduler (raw): a goroutine in a system call for
// more than 20 µs has its P taken by the runtime's monitor thread, and with
// one P that happened at every sleep, and the monitor then woke every 20 µs
// while the next tick ran and was woken again when the sleep ended: a sixth
// of the server's CPU. Nothing else can be waiting to run then: the loop
// yields (runtime.Gosched) before it sleeps, and a goroutine made runnable
// meanwhile runs at the next wake-up. With more Ps the sleep is a plain
// system call, so that a collection started elsewhere never waits for it.
func threadSleep(d time.Duration, raw bool) {
	ts := unix.NsecToTimespec(int64(d))
	if !raw {
		for unix.Nanosleep(&ts, &ts) == unix.EINTR {
		}
		return
	}
	for {
		_, _, e := unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), uintptr(unsafe.Pointer(&ts)), 0)
		if e != unix.EINTR {
			return
		}
	}
}

package loop

import (
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Timer is what the serving loop waits on between wake-ups: a timerfd
// read through the runtime's network poller, with the goroutine parked
// and its P idle meanwhile. Make one with NewTimer; it is not safe for
// concurrent use.
//
// Each other way of waiting cost the loop more than the waiting was worth,
// chiefly by keeping the runtime's monitor thread (sysmon) busy, each of
// whose wake-ups here is two thread switches:
//
//   - On a Go timer, the monitor sleeps only until the next timer, so it
//     woke with every tick, and a goroutine locked to its thread that parks
//     hands its P to another thread and takes it back when woken.
//   - In nanosleep, a system call holding the P, the monitor took the P
//     after 20 µs at every sleep, polled every 20 µs through the next
//     tick, and was woken again when the sleep ended: a sixth of the
//     arena's CPU at 128 Hz.
//   - In nanosleep made raw (the scheduler not told), the P looks busy, so
//     the monitor polls at its slowest, every 10 ms, and preempts the loop
//     when it has run 10 ms on one scheduling.
//
// Parked on the poller with every P idle, the monitor sleeps until the next
// Go timer (the run's duration; at most a minute), the thread that polls
// runs the loop when the timer fires (one thread switch), and other
// goroutines and the collector's idle workers have the P while the loop
// waits. For the monitor to stay asleep, the loop's own system calls are
// raw ones (the socket's, the thread CPU clock, the timer's): a plain
// system call wakes the monitor whenever it sleeps that deeply.
type Timer struct {
	fd   int
	f    *os.File
	rc   syscall.RawConn
	buf  [8]byte
	read func(fd uintptr) bool
}

// NewTimer makes the loop's timer: a non-blocking timerfd on the
// monotonic clock, which os.NewFile hands to the poller.
func NewTimer() (*Timer, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	t := &Timer{fd: fd, f: os.NewFile(uintptr(fd), "timerfd")}
	if t.rc, err = t.f.SyscallConn(); err != nil {
		t.f.Close()
		return nil, err
	}
	// Bound once, so a wait makes no closure. Done unless the timer has
	// not fired yet (EAGAIN), which parks the goroutine on the poller.
	t.read = func(fd uintptr) bool {
		_, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&t.buf[0])), uintptr(len(t.buf)))
		return e != unix.EAGAIN
	}
	return t, nil
}

// wait returns once d has passed (at once when d is not positive). The
// caller should not be locked to its thread: a locked goroutine that parks
// hands its thread's P to another.
func (t *Timer) wait(d time.Duration) {
	if d <= 0 {
		return // a zero time would disarm the timer, and the read never end
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if _, _, e := unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(t.fd), 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0); e != 0 {
		return
	}
	t.rc.Read(t.read)
}

// SleepUntil is the serving loop's wait until wake. The loop lets go of
// its thread while it waits, so that parking does not hand the P between
// threads, and locks it again on waking, before anything reads the
// thread's CPU clock. A wake already past is no wait.
func (t *Timer) SleepUntil(wake time.Time) {
	runtime.UnlockOSThread()
	t.wait(time.Until(wake))
	runtime.LockOSThread()
}

// Close releases the timer.
func (t *Timer) Close() { t.f.Close() }

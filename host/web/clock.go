package web

import "time"

// clock is the time the gateway's limits and deadlines run on: the wall
// clock, or a test's, which moves only when the test says.
type clock interface {
	Now() time.Time
	// AfterFunc calls f on a goroutine of its own once d has passed, as
	// time.AfterFunc does.
	AfterFunc(d time.Duration, f func()) timer
}

// timer is what clock.AfterFunc returns: *time.Timer's two methods.
type timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// wallClock is the clock of a gateway outside tests.
type wallClock struct{}

func (wallClock) Now() time.Time                            { return time.Now() }
func (wallClock) AfterFunc(d time.Duration, f func()) timer { return time.AfterFunc(d, f) }

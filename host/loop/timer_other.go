//go:build !linux

package loop

import (
	"errors"
	"time"
)

// Timer is not made here: the serving loop waits on a Go timer.
type Timer struct{}

// NewTimer fails: there is no timerfd on this system.
func NewTimer() (*Timer, error) {
	return nil, errors.New("loop: no timerfd on this system")
}

// SleepUntil returns at once.
func (*Timer) SleepUntil(time.Time) {}

// Close does nothing.
func (*Timer) Close() {}

//go:build !linux

package host

import (
	"errors"
	"time"
)

// loopTimer is not made here: the serving loop waits on a Go timer.
type loopTimer struct{}

func newLoopTimer() (*loopTimer, error) {
	return nil, errors.New("no timerfd on this system")
}

func (*loopTimer) wait(time.Duration) {}

func (*loopTimer) close() {}

package netio

import (
	"context"
	"fmt"
	"time"
)

// Pump runs a session's I/O on the wall clock until ctx ends, duration
// passes (0: no limit) or the socket closes (an error). Each datagram goes
// to receive; after every wake-up, step runs the session with the wall time
// elapsed since the last and returns how long the loop may sleep; a status
// callback runs once a second.
func Pump(ctx context.Context, duration time.Duration, sock Socket, receive func(Datagram), step func(elapsed time.Duration) time.Duration, status func()) error {
	last := time.Now()
	nextStatus := last.Add(time.Second)
	timer := time.NewTimer(0)
	defer timer.Stop()
	var stop <-chan time.Time
	if duration > 0 {
		t := time.NewTimer(duration)
		defer t.Stop()
		stop = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-stop:
			return nil
		case d, ok := <-sock.Incoming():
			if !ok {
				return fmt.Errorf("netio: the socket closed: %v", sock.Err())
			}
			receive(d)
		case <-timer.C:
		}
		now := time.Now()
		wait := step(now.Sub(last))
		last = now
		if !now.Before(nextStatus) {
			status()
			nextStatus = nextStatus.Add(time.Second)
		}
		timer.Reset(min(wait, time.Until(nextStatus)))
	}
}

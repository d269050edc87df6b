package web

import (
	"sync"
	"time"
)

// fakeClock is a clock that moves only when a test advances it. Its
// timers run on the goroutine that advances it, each at its own time, in
// order; a timer may re-arm itself (watch does) and runs again if that
// falls within the same advance. It is safe for concurrent use.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers map[*fakeTimer]bool // armed ones
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), timers: map[*fakeTimer]bool{}}
}

type fakeTimer struct {
	c    *fakeClock
	when time.Time
	f    func()
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, when: c.now.Add(d), f: f}
	c.timers[t] = true
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	armed := t.c.timers[t]
	delete(t.c.timers, t)
	return armed
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	armed := t.c.timers[t]
	t.when = t.c.now.Add(d)
	t.c.timers[t] = true
	return armed
}

// Advance moves the clock d on, running every timer that falls due on the
// way.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	for {
		var next *fakeTimer
		for t := range c.timers {
			if !t.when.After(end) && (next == nil || t.when.Before(next.when)) {
				next = t
			}
		}
		if next == nil {
			break
		}
		delete(c.timers, next)
		if next.when.After(c.now) {
			c.now = next.when
		}
		c.mu.Unlock()
		next.f()
		c.mu.Lock()
	}
	c.now = end
	c.mu.Unlock()
}

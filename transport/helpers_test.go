package transport

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"
)

// flight is a datagram on its way through a testLink.
type flight struct {
	at Time
	b  []byte
}

// testLink is a fixed-delay, optionally lossy, one-way link for tests in this
// package (memnet imports transport, so it cannot be used here). A fixed
// delay keeps it first-in, first-out.
type testLink struct {
	delay time.Duration
	loss  float64
	rng   *rand.Rand
	q     []flight
	sent  int
	lost  int
}

func newTestLink(delay time.Duration, loss float64, seed uint64) *testLink {
	return &testLink{delay: delay, loss: loss, rng: rand.New(rand.NewPCG(seed, 0x7e57))}
}

func (l *testLink) send(b []byte, now Time) {
	l.sent++
	if l.loss > 0 && l.rng.Float64() < l.loss {
		l.lost++
		return
	}
	l.q = append(l.q, flight{now.Add(l.delay), bytes.Clone(b)})
}

// next returns the arrival time of the first datagram in flight.
func (l *testLink) next() (Time, bool) {
	if len(l.q) == 0 {
		return 0, false
	}
	return l.q[0].at, true
}

// deliver opens at c every datagram due by now.
func (l *testLink) deliver(tb testing.TB, c *Conn, now Time) {
	tb.Helper()
	for len(l.q) > 0 && l.q[0].at <= now {
		if _, err := c.Open(l.q[0].b, now); err != nil {
			tb.Fatalf("open at %v: %v", time.Duration(now), err)
		}
		l.q = l.q[1:]
	}
}

// pairRun drives two Conns sending at a fixed rate each way over two links,
// by events on a synthetic clock: A sends at k·interval, B at k·interval +
// phase. each is called after every step with the current time.
type pairRun struct {
	a, b     *Conn
	ab, ba   *testLink
	interval time.Duration
	phase    time.Duration
	payload  []byte
	buf      []byte
}

func (p *pairRun) run(tb testing.TB, from, until Time, each func(now Time)) {
	tb.Helper()
	nextA, nextB := from, from.Add(p.phase)
	for {
		now := min(nextA, nextB)
		if t, ok := p.ab.next(); ok {
			now = min(now, t)
		}
		if t, ok := p.ba.next(); ok {
			now = min(now, t)
		}
		if now >= until {
			return
		}
		p.ab.deliver(tb, p.b, now)
		p.ba.deliver(tb, p.a, now)
		if now == nextA {
			p.seal(tb, p.a, p.ab, now)
			nextA = nextA.Add(p.interval)
		}
		if now == nextB {
			p.seal(tb, p.b, p.ba, now)
			nextB = nextB.Add(p.interval)
		}
		if each != nil {
			each(now)
		}
	}
}

func (p *pairRun) seal(tb testing.TB, c *Conn, l *testLink, now Time) {
	tb.Helper()
	d, _, err := c.Seal(p.buf[:0], p.payload, now)
	if err != nil {
		tb.Fatal(err)
	}
	if len(d) > MaxDatagram {
		tb.Fatalf("sealed %d bytes", len(d))
	}
	p.buf = d
	l.send(d, now)
}

// mustSeal seals payload at now and fails the test on error.
func mustSeal(tb testing.TB, c *Conn, payload []byte, now Time) ([]byte, uint16) {
	tb.Helper()
	d, seq, err := c.Seal(nil, payload, now)
	if err != nil {
		tb.Fatal(err)
	}
	return d, uint16(seq)
}

// ms is a Time n milliseconds after zero.
func ms(n int) Time { return Time(time.Duration(n) * time.Millisecond) }

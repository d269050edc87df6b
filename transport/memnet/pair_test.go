package memnet

import (
	"errors"
	"math"
	"testing"
	"time"

	"vkm/transport"
)

// end is one side of a simulated session: a Conn, the link it sends into,
// and the link it hears from.
type end struct {
	name     string
	conn     *transport.Conn
	out, in  *Link
	nextSend transport.Time
	buf      []byte
}

// runPair streams datagrams both ways at 64 a second for d of simulated time,
// stepping the clock from event to event. It fails on any error other than a
// stale refusal.
func runPair(t *testing.T, a, b *end, d time.Duration) {
	t.Helper()
	const interval = time.Second / 64
	payload := make([]byte, 300)
	stop := transport.Time(0).Add(d)
	for {
		now := min(a.nextSend, b.nextSend)
		for _, e := range []*end{a, b} {
			if at, ok := e.in.NextArrival(); ok {
				now = min(now, at)
			}
		}
		if now >= stop {
			return
		}
		for _, e := range []*end{a, b} {
			for {
				dg, ok := e.in.Receive(now)
				if !ok {
					break
				}
				if _, err := e.conn.Open(dg, now); err != nil && !errors.Is(err, transport.ErrStale) {
					t.Fatalf("%s at %v: %v", e.name, time.Duration(now), err)
				}
			}
			if now == e.nextSend {
				var err error
				e.buf, _, err = e.conn.Seal(e.buf[:0], payload, now)
				if err != nil {
					t.Fatal(err)
				}
				e.out.Send(e.buf, now)
				e.nextSend = e.nextSend.Add(interval)
			}
			if e.conn.TimedOut(now) {
				t.Fatalf("%s timed out at %v", e.name, time.Duration(now))
			}
		}
	}
}

// Two Conns talk through a Broadband pipe for a minute of simulated time, 64
// datagrams a second each way: the round trip comes out near 2 × 35 ms plus
// the wait for the peer's next datagram, and every duplicate or overtaken
// datagram is refused as stale. The loss a Conn reports is the share of its
// datagrams never acknowledged, so it is the link's 0.5 % loss plus the
// 0.1 % it reorders (a datagram overtaken is refused, hence never acked).
func TestConnsOverBroadband(t *testing.T) {
	const seed = 20260101
	pipe, err := NewPipe(Broadband, seed)
	if err != nil {
		t.Fatal(err)
	}
	a := &end{name: "A", conn: transport.NewConn(transport.Config{}, 0), out: pipe.AtoB, in: pipe.BtoA}
	b := &end{name: "B", conn: transport.NewConn(transport.Config{}, 0), out: pipe.BtoA, in: pipe.AtoB,
		nextSend: transport.Time(5 * time.Millisecond)}
	const d = 60 * time.Second
	runPair(t, a, b, d)

	for _, e := range []*end{a, b} {
		s, lc := e.conn.Stats(), e.out.Counts()
		in := e.in.Counts()
		lossRate := float64(s.Lost) / float64(s.PacketsSent)
		t.Logf("seed %d %s: rtt %v rttvar %v loss() %.2f%% lost %d/%d (%.2f%%) stale %d; out link %+v",
			seed, e.name, e.conn.RTT(), e.conn.RTTVar(), 100*e.conn.Loss(transport.Time(d)),
			s.Lost, s.PacketsSent, 100*lossRate, s.Stale, lc)
		if rtt := e.conn.RTT(); rtt < 65*time.Millisecond || rtt > 95*time.Millisecond {
			t.Errorf("%s: RTT %v, want about 70 ms plus up to 15.6 ms of ack wait", e.name, rtt)
		}
		if want := Broadband.Up.Loss + Broadband.Up.Reorder; math.Abs(lossRate-want) > 0.004 {
			t.Errorf("%s: loss %.2f%%, want %.1f%% ± 0.4", e.name, 100*lossRate, 100*want)
		}
		// Every datagram the link delivered was either accepted or refused as
		// stale; none was malformed.
		if s.PacketsReceived+s.Stale != in.Delivered || s.Malformed != 0 {
			t.Errorf("%s: received %d + stale %d != delivered %d (malformed %d)",
				e.name, s.PacketsReceived, s.Stale, in.Delivered, s.Malformed)
		}
		// Every duplicate is refused, and so is nearly every datagram held
		// back for reordering.
		if s.Stale < in.Duplicated || s.Stale > in.Duplicated+in.Reordered {
			t.Errorf("%s: %d stale, link duplicated %d and reordered %d", e.name, s.Stale, in.Duplicated, in.Reordered)
		}
		// What the link dropped or held back is what went unacknowledged;
		// the tail of the run may still be in flight.
		inFlight := s.PacketsSent - s.Acked - s.Lost
		if s.Lost > lc.Dropped+lc.Reordered || s.Lost+inFlight < lc.Dropped {
			t.Errorf("%s: lost %d (in flight %d), link dropped %d and reordered %d",
				e.name, s.Lost, inFlight, lc.Dropped, lc.Reordered)
		}
	}
	if a.conn.Stats().Stale+b.conn.Stats().Stale == 0 {
		t.Error("no stale datagram in a minute of Broadband: the duplicate and reorder paths went untested")
	}
}

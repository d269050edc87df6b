package fleet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"
)

// TestStandingThroughATenSecondOutage runs a registration's schedule on a
// synthetic clock: Redis answers, goes away for 10 s, comes back. The loss
// is one change, the return one more; the retries back off to MaxBackoff
// and no further, so the entry is back within MaxBackoff of Redis's
// return; every failure is counted by its kind.
func TestStandingThroughATenSecondOutage(t *testing.T) {
	t0 := time.Unix(1000, 0)
	down, up := t0.Add(5*time.Second), t0.Add(15*time.Second)
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	for _, jitter := range []float64{0, 0.999} {
		s := NewStanding(Heartbeat, func() float64 { return jitter })
		now := t0
		changes := map[Change]int{}
		var backAt time.Time
		for now.Before(t0.Add(20 * time.Second)) {
			next := s.Next()
			if next.Before(now) {
				next = now
			}
			now = next
			var err error
			if !now.Before(down) && now.Before(up) {
				err = refused
			}
			c := s.Wrote(now, err)
			changes[c]++
			if c == CameBack {
				backAt = now
			}
			now = now.Add(time.Millisecond) // the write took a moment
		}
		if changes[Listed] != 1 || changes[WentAway] != 1 || changes[CameBack] != 1 || changes[NotListed] != 0 {
			t.Errorf("jitter %v: changes %v, want one each of listed, went away and came back", jitter, changes)
		}
		if late := backAt.Sub(up); backAt.IsZero() || late > MaxBackoff {
			t.Errorf("jitter %v: back %v after Redis returned, want at most %v", jitter, late, MaxBackoff)
		}
		fails := s.Errors(KindConnection)
		if fails < 10/0.5 || fails > 10/0.05 || s.Errors(KindTimeout)+s.Errors(KindReply)+s.Errors(KindOther) != 0 {
			t.Errorf("jitter %v: %d connection failures (others %d/%d/%d) in a 10 s outage", jitter, fails,
				s.Errors(KindTimeout), s.Errors(KindReply), s.Errors(KindOther))
		}
		t.Logf("jitter %v: %d failed writes in 10 s, back %v after Redis returned", jitter, fails, backAt.Sub(up))
	}
}

// TestStandingBacksOffToItsBound: 100 ms, doubling, at most MaxBackoff;
// jitter takes up to half of each off; a landed write puts the next a
// heartbeat on; a server whose first write fails is not listed, once.
func TestStandingBacksOffToItsBound(t *testing.T) {
	t0 := time.Unix(0, 0)
	s := NewStanding(time.Second, func() float64 { return 0 })
	fail := errors.New("boom")
	want := []time.Duration{100, 200, 400, 500, 500}
	for i, w := range want {
		c := s.Wrote(t0, fail)
		if got := s.Next().Sub(t0); got != w*time.Millisecond {
			t.Errorf("after failure %d: next in %v, want %v", i+1, got, w*time.Millisecond)
		}
		if wantC := map[bool]Change{true: NotListed, false: NoChange}[i == 0]; c != wantC {
			t.Errorf("failure %d changed %v, want %v", i+1, c, wantC)
		}
	}
	if s.State() != Unlisted || s.Errors(KindOther) != 5 {
		t.Errorf("state %v, other errors %d", s.State(), s.Errors(KindOther))
	}
	if c := s.Wrote(t0, nil); c != CameBack || s.Next() != t0.Add(time.Second) {
		t.Errorf("a landed write: %v, next %v", c, s.Next())
	}
	half := NewStanding(time.Second, func() float64 { return 0.5 })
	half.Wrote(t0, fail)
	if got := half.Next().Sub(t0); got != 75*time.Millisecond {
		t.Errorf("jitter 0.5 after one failure: %v, want 75ms", got)
	}
}

// TestKindOf sorts real failures: a refused dial, a deadline, anything
// else.
func TestKindOf(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, dialErr := net.Dial("tcp", addr)
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	<-ctx.Done()
	for _, tc := range []struct {
		err  error
		want ErrorKind
	}{
		{dialErr, KindConnection},
		{fmt.Errorf("fleet: registering: %w", dialErr), KindConnection},
		{ctx.Err(), KindTimeout},
		{errors.New("something"), KindOther},
	} {
		if got := KindOf(tc.err); got != tc.want {
			t.Errorf("KindOf(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

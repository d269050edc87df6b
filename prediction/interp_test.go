package prediction

import (
	"math"
	"testing"
	"time"

	"vkm/internal/entity"
)

// interpSnapEvery is the spacing of snapshots at 64 a second, exact in
// nanoseconds.
const interpSnapEvery = time.Second / interpSnapshots

// TestInterpFirstSnapshot checks that the first snapshot places the clock
// two intervals behind it without counting a jump, and that nothing moves
// before it.
func TestInterpFirstSnapshot(t *testing.T) {
	for _, c := range []struct {
		tickRate int
		want     float64
	}{{64, 98}, {128, 96}} {
		p := NewInterp(c.tickRate, interpSnapshots)
		p.Advance(time.Second)
		if p.Time() != 0 || p.Stalls() != 0 {
			t.Fatalf("%d Hz before any snapshot: time %v, %d stalls", c.tickRate, p.Time(), p.Stalls())
		}
		p.Arrive(100, time.Second)
		if p.Time() != c.want || p.Jumps() != 0 || p.Newest() != 100 {
			t.Errorf("%d Hz first snapshot at tick 100: time %v, %d jumps, newest %d; want %v, 0, 100",
				c.tickRate, p.Time(), p.Jumps(), p.Newest(), c.want)
		}
	}
}

// TestInterpJitterReadings checks what the jitter measure takes as a
// reading: a lost snapshot is not a late one, a drifting clock barely
// registers, a snapshot no newer than the newest is ignored, a leap of the
// server's ticks gives no reading, one very late snapshot is cut to the
// largest delay, and the measure rises quickly and falls slowly.
func TestInterpJitterReadings(t *testing.T) {
	t.Run("loss", func(t *testing.T) {
		p := NewInterp(64, interpSnapshots)
		for k := range 640 {
			if k%3 == 1 || k%10 == 7 {
				continue // lost
			}
			p.Arrive(uint32(k), time.Duration(k)*interpSnapEvery)
		}
		if p.Jitter() != 0 || p.Delay() != 2 {
			t.Errorf("on-time snapshots with a third lost: jitter %v, delay %v; want 0, 2", p.Jitter(), p.Delay())
		}
	})
	t.Run("drift", func(t *testing.T) {
		for _, drift := range []float64{0.97, 1.03} {
			p := NewInterp(64, interpSnapshots)
			for k := range 640 {
				p.Arrive(uint32(k), time.Duration(float64(k)*float64(interpSnapEvery)*drift))
			}
			t.Logf("client clock ×%.2f: jitter %v", drift, p.Jitter())
			if p.Jitter() > time.Millisecond || p.Delay() != 2 {
				t.Errorf("client clock ×%.2f: jitter %v, delay %v; want under 1 ms, 2", drift, p.Jitter(), p.Delay())
			}
		}
	})
	t.Run("stale", func(t *testing.T) {
		p := NewInterp(64, interpSnapshots)
		for k := range 10 {
			p.Arrive(uint32(k), time.Duration(k)*interpSnapEvery)
		}
		p.Arrive(9, 20*interpSnapEvery) // a duplicate, late
		p.Arrive(4, 30*interpSnapEvery) // overtaken long ago
		p.Arrive(10, 10*interpSnapEvery)
		if p.Jitter() != 0 || p.Newest() != 10 {
			t.Errorf("after a late duplicate and a stale snapshot: jitter %v, newest %d; want 0, 10", p.Jitter(), p.Newest())
		}
	})
	t.Run("leap", func(t *testing.T) {
		p := NewInterp(64, interpSnapshots)
		p.Arrive(10, 0)
		p.Arrive(10+InterpJumpTicks+1, interpSnapEvery)
		if p.Jitter() != 0 {
			t.Errorf("a leap of %d ticks read as %v of jitter", InterpJumpTicks+1, p.Jitter())
		}
	})
	t.Run("cut", func(t *testing.T) {
		p := NewInterp(64, interpSnapshots)
		p.Arrive(10, 0)
		p.Arrive(11, interpSnapEvery+time.Second) // one long frame
		want := time.Duration(jitterRise * InterpMaxDelay * float64(interpSnapEvery))
		if d := p.Jitter() - want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("a snapshot a second late: jitter %v, want %v", p.Jitter(), want)
		}
	})
	t.Run("rise-fall", func(t *testing.T) {
		p := NewInterp(64, interpSnapshots)
		late := 40 * time.Millisecond
		p.Arrive(0, 0)
		p.Arrive(1, interpSnapEvery+late)
		p.Arrive(2, 2*interpSnapEvery) // as early against the late one
		rose := p.Jitter()
		// Two readings of 40 ms: 40/8, then 40/8 more of what is left.
		want := time.Duration(float64(late) * (1 - (1-jitterRise)*(1-jitterRise)))
		if d := rose - want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("two readings of %v: jitter %v, want %v", late, rose, want)
		}
		for k := 3; k < 3+128; k++ {
			p.Arrive(uint32(k), time.Duration(k)*interpSnapEvery)
		}
		fell := p.Jitter()
		// 128 readings of zero at 1/128 each leave about 1/e.
		if r := float64(fell) / float64(rose); r < 0.35 || r > 0.38 {
			t.Errorf("after 128 on-time snapshots the jitter kept %.3f of itself, want about 1/e", r)
		}
		t.Logf("rose to %v in two readings, fell to %v in 128", rose, fell)
	})
}

// TestInterpDelayRule checks the delay at the edges of its rule, in ticks
// at 64 and 128 Hz: two intervals up to a jitter of one interval, one
// interval plus twice the jitter above it, four intervals at most, and two
// whatever the jitter when the delay is fixed.
func TestInterpDelayRule(t *testing.T) {
	for _, tickRate := range []int{64, 128} {
		interval := float64(tickRate) / interpSnapshots
		for _, c := range []struct {
			jitter float64 // in intervals
			want   float64 // in intervals
		}{
			{0, 2}, {0.5, 2}, {0.75, 2}, {1, 2}, {1.01, 3.02}, {1.25, 3.5}, {1.5, 4}, {10, 4},
		} {
			p := NewInterp(tickRate, interpSnapshots)
			p.jitter = c.jitter * interpSnapEvery.Seconds()
			if got := p.Delay() / interval; math.Abs(got-c.want) > 1e-9 {
				t.Errorf("%d Hz, jitter %.2f intervals: delay %.4f intervals, want %v", tickRate, c.jitter, got, c.want)
			}
			p.FixedDelay = true
			if got := p.Delay() / interval; got != InterpDelay {
				t.Errorf("%d Hz fixed, jitter %.2f intervals: delay %v intervals, want 2", tickRate, c.jitter, got)
			}
		}
	}
}

// TestInterpStall checks that a clock whose snapshots stop holds at the
// newest one and counts each frame it is held, then moves on when the next
// arrives.
func TestInterpStall(t *testing.T) {
	p := NewInterp(64, interpSnapshots)
	frame := time.Second / interpFrames
	p.Arrive(100, 0)
	for range 144 { // a second with no snapshot
		p.Advance(frame)
		if p.Time() > 100 {
			t.Fatalf("clock ran past the newest snapshot: %v", p.Time())
		}
	}
	t.Logf("a second without snapshots: %d stalled frames of 144", p.Stalls())
	// Two ticks to reach the newest take about five frames, the clock
	// slowing as it passes its target.
	if p.Time() != 100 || p.Stalls() < 135 || p.Stalls() > 141 {
		t.Errorf("after a second without snapshots: time %v, %d stalls; want 100, about 139", p.Time(), p.Stalls())
	}
	held := p.Stalls()
	p.Arrive(110, time.Second)
	p.Advance(frame)
	if p.Time() <= 100 || p.Stalls() != held || p.Jumps() != 0 {
		t.Errorf("after the next snapshot: time %v, %d stalls, %d jumps; want moving, %d, 0",
			p.Time(), p.Stalls(), p.Jumps(), held)
	}
}

// TestInterpReset checks that Reset forgets the snapshots, the jitter and
// the counts but keeps the rates and FixedDelay.
func TestInterpReset(t *testing.T) {
	p := NewInterp(128, interpSnapshots)
	p.FixedDelay = true
	p.Arrive(500, 0)
	p.Arrive(502, 3*interpSnapEvery)
	for range 100 {
		p.Advance(time.Second / interpFrames)
	}
	p.Reset()
	if p.Time() != 0 || p.Newest() != 0 || p.Jitter() != 0 || p.Stalls() != 0 || p.Jumps() != 0 || !p.FixedDelay {
		t.Errorf("after Reset: time %v newest %d jitter %v stalls %d jumps %d fixed %v",
			p.Time(), p.Newest(), p.Jitter(), p.Stalls(), p.Jumps(), p.FixedDelay)
	}
	p.Arrive(7, time.Hour) // a restarted server, lower ticks
	if p.Time() != 3 || p.Jumps() != 0 {
		t.Errorf("first snapshot after Reset: time %v, %d jumps; want 3 (two intervals of two ticks), 0", p.Time(), p.Jumps())
	}
}

// trackPose is a Transform for the track tests.
func trackPose(x, y, angle, scale float64) entity.Transform {
	return entity.Transform{X: x, Y: y, Angle: angle, Scale: scale}
}

// trackNear reports whether a and b agree within 1e-12 in every field.
func trackNear(a, b entity.Transform) bool {
	const eps = 1e-12
	return math.Abs(a.X-b.X) < eps && math.Abs(a.Y-b.Y) < eps &&
		math.Abs(a.Angle-b.Angle) < eps && math.Abs(a.Scale-b.Scale) < eps
}

// TestTrackAt checks interpolation between samples, the angle along the
// shorter arc, and holding at either end.
func TestTrackAt(t *testing.T) {
	var tr Track
	if _, ok := tr.At(5); ok {
		t.Fatal("an empty track reported a pose")
	}
	tr.Add(10, trackPose(0, 0, 3.0, 1))
	tr.Add(12, trackPose(2, -4, -3.0, 3))
	tr.Add(13, trackPose(2, -4, -3.0, 3))
	short := 2*math.Pi - 6 // the arc from 3 to -3 through π
	for _, c := range []struct {
		name string
		at   float64
		want entity.Transform
	}{
		{"before oldest", 9, trackPose(0, 0, 3.0, 1)},
		{"at oldest", 10, trackPose(0, 0, 3.0, 1)},
		{"quarter", 10.5, trackPose(0.5, -1, 3.0+short/4, 1.5)},
		{"midpoint", 11, trackPose(1, -2, math.Pi, 2)},
		{"three quarters", 11.5, trackPose(1.5, -3, 3.0+3*short/4-2*math.Pi, 2.5)},
		{"at a sample", 12, trackPose(2, -4, -3.0, 3)},
		{"at newest", 13, trackPose(2, -4, -3.0, 3)},
		{"past newest", 40.25, trackPose(2, -4, -3.0, 3)},
		{"NaN", math.NaN(), trackPose(2, -4, -3.0, 3)},
	} {
		got, ok := tr.At(c.at)
		// π and -π are one angle: compare the midpoint's angle by its size.
		if c.name == "midpoint" {
			got.Angle = math.Abs(got.Angle)
		}
		if !ok || !trackNear(got, c.want) {
			t.Errorf("%s (%v): got %+v %v, want %+v", c.name, c.at, got, ok, c.want)
		}
	}
}

// TestTrackAdd checks that stale and repeated ticks are ignored, that the
// oldest sample goes once the ring is full, and that ticks stay in order
// across a wrap of the counter.
func TestTrackAdd(t *testing.T) {
	var tr Track
	tr.Add(20, trackPose(20, 0, 0, 1))
	tr.Add(20, trackPose(99, 0, 0, 1))
	tr.Add(19, trackPose(99, 0, 0, 1))
	if tick, p, ok := tr.Newest(); !ok || tick != 20 || p.X != 20 || tr.Len() != 1 {
		t.Errorf("after a repeat and a stale tick: newest %d %+v %v, len %d; want 20, x 20, 1", tick, p, ok, tr.Len())
	}

	tr = Track{}
	for k := range uint32(TrackSize + 5) {
		tr.Add(100+2*k, trackPose(float64(k), 0, 0, 1))
	}
	oldest := uint32(100 + 2*5)
	if got, _ := tr.At(0); tr.Len() != TrackSize || got.X != 5 {
		t.Errorf("full ring: len %d, oldest x %v; want %d, 5", tr.Len(), got.X, TrackSize)
	}
	if got, _ := tr.At(float64(oldest) + 1); got.X != 5.5 {
		t.Errorf("between the two oldest: x %v, want 5.5", got.X)
	}

	tr = Track{}
	top := uint32(math.MaxUint32)
	tr.Add(top-1, trackPose(0, 0, 0, 1))
	tr.Add(top, trackPose(1, 0, 0, 1))
	tr.Add(0, trackPose(2, 0, 0, 1)) // one tick after top
	tr.Add(top, trackPose(9, 0, 0, 1))
	if tick, p, _ := tr.Newest(); tick != 0 || p.X != 2 || tr.Len() != 3 {
		t.Errorf("across the wrap: newest %d x %v len %d; want 0, 2, 3", tick, p.X, tr.Len())
	}
	// Relative to the newest tick (0), the sample at top is one tick back.
	if got, _ := tr.At(-0.5); got.X != 1.5 {
		t.Errorf("half a tick before the wrap's newest: x %v, want 1.5", got.X)
	}
}

// TestTrackMotion: a track remembers whether its newest sample was of a
// moving body, and a repeated tick changes neither the pose nor that.
func TestTrackMotion(t *testing.T) {
	var tr Track
	if tr.NewestMoving() {
		t.Fatal("an empty track says its body was moving")
	}
	tr.AddMotion(10, trackPose(0, 0, 0, 1), true)
	tr.Add(10, trackPose(5, 0, 0, 1)) // a repeat: ignored
	if !tr.NewestMoving() {
		t.Fatal("a moving sample read back as at rest")
	}
	tr.AddMotion(14, trackPose(4, 0, 0, 1), true)
	if p, _ := tr.At(12); p.X != 2 {
		t.Fatalf("halfway between two movers' samples 4 ticks apart: x %v, want 2", p.X)
	}
	tr.Add(15, trackPose(4, 0, 0, 1))
	if tr.NewestMoving() {
		t.Fatal("a sample at rest read back as moving")
	}
}

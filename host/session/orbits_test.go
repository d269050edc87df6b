package session

import (
	"math"
	"testing"
	"time"

	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/transport"
	"vkm/transport/memnet"
)

func loadOrbits(t testing.TB) *project.Project {
	t.Helper()
	p, err := project.LoadProject("../../bench/orbits")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOrbitsAreDrawnWithoutStalls watches the busy world (500 scripted
// bodies on circles, more than a snapshot holds, so each is mentioned only
// every few snapshots) from two watchers for ten seconds. Drawn at the
// interpolation clock alone, some body would be past its newest pose, and
// frozen there, in most frames; each is drawn behind by its own update
// interval instead, and carried on by its velocity across a longer gap,
// so a mover is drawn frozen in at most one frame a second, and no drawn
// body jumps when its next pose arrives.
func TestOrbitsAreDrawnWithoutStalls(t *testing.T) {
	t.Parallel() // its own sessions, game and link; nothing shared
	if testing.Short() {
		t.Skip("a long seeded match: runs without -short")
	}
	if raceEnabled {
		t.Skip("500 scripted bodies for 10 s take minutes under the race detector, which finds nothing on one goroutine")
	}
	h := newHarness(t, loadOrbits(t))
	a := h.join(loadOrbits(t), memnet.Broadband, 71)
	b := h.join(loadOrbits(t), memnet.Broadband, 72)
	h.runUntil(5*time.Second, "both joins", func() bool { return a.c.Playing() && b.c.Playing() })
	type figures struct {
		stats ClientStats
		bytes uint64
	}
	take := func(p *peer) figures { return figures{p.c.Stats(h.now), p.c.Net().Stats().BytesIn} }
	a0, b0 := take(a), take(b) // counted from the join: the world is heard of a part at a time
	start := h.now
	h.run(time.Second / 2)

	g := a.c.Game()
	var watched []entity.ID
	for id := range a.c.interp.tracks {
		if len(watched) < 40 {
			watched = append(watched, id)
		}
	}
	if len(watched) < 40 {
		t.Fatalf("the watcher draws %d bodies", len(a.c.interp.tracks))
	}
	last := make([]entity.Transform, len(watched))
	drawn := func(out []entity.Transform) {
		a.c.Drawn(func() {
			for i, id := range watched {
				out[i] = *g.Store().Transform(id)
			}
		})
	}
	drawn(last)
	const seconds = 10
	now := make([]entity.Transform, len(watched))
	var largest float64
	frames, pastNewest := 0, 0
	for end := h.now + transport.Time(seconds*time.Second); h.now < end; {
		h.step()
		drawn(now)
		for i := range watched {
			largest = max(largest, math.Hypot(now[i].X-last[i].X, now[i].Y-last[i].Y))
		}
		copy(last, now)
		frames++
		for _, tr := range a.c.interp.tracks {
			if tr.NewestMoving() && tr.Silence(a.c.interp.clock.Time()) > 0 {
				pastNewest++ // drawn from the clock alone, frozen
				break
			}
		}
	}
	secs := time.Duration(h.now - start).Seconds()
	var intervals, lags float64
	for _, tr := range a.c.interp.tracks {
		intervals += tr.Interval()
		lags += tr.lag
	}
	intervals /= float64(len(a.c.interp.tracks))
	lags /= float64(len(a.c.interp.tracks))
	// The fastest orbiter turns 1.1 rad/s on a 1.5 m circle: 1.65 m/s,
	// 3.3 mm in a 2 ms frame, 10% more on a fast clock.
	const fastest = 1.65 * 0.002 * 1.1
	for _, p := range []struct {
		name string
		peer *peer
		from figures
	}{{"a", a, a0}, {"b", b, b0}} {
		st := p.peer.c.Stats(h.now)
		stalls := st.InterpStalls - p.from.stats.InterpStalls
		ahead := st.InterpExtrapolated - p.from.stats.InterpExtrapolated
		snaps := st.Snapshots - p.from.stats.Snapshots
		bytes := float64(p.peer.c.Net().Stats().BytesIn-p.from.bytes) / secs
		t.Logf("%s: %.1f s from the join, %d frames watched, %d snapshots: %d stalls, %d frames carried a body on; %.0f bytes/s in; delay %.2f ticks",
			p.name, secs, frames, snaps, stalls, ahead, bytes, st.InterpDelay)
		if float64(stalls) > secs {
			t.Errorf("%s: %d stalls in %.0f s, want at most one a second", p.name, stalls, secs)
		}
		if budget := float64(SnapshotRate * transport.MaxDatagram); bytes > budget {
			t.Errorf("%s: %.0f bytes/s in, over the budget of %.0f", p.name, bytes, budget)
		}
	}
	t.Logf("a body is heard every %.1f ticks (measured near its longer gaps) and drawn %.1f ticks behind the clock; "+
		"drawn at the clock, one would be past its newest pose in %d of %d frames; largest drawn step a frame %.2f mm, the fastest body %.2f mm",
		intervals, lags, pastNewest, frames, largest*1000, fastest*1000)
	if intervals < 3 || pastNewest < frames/2 {
		t.Errorf("bodies heard every %.1f ticks, past their newest pose at the clock in %d of %d frames: not the deferred world this test is for",
			intervals, pastNewest, frames)
	}
	// Carried on and then blended into the next pose, a body never
	// moves much more in a frame than the fastest of them does.
	if largest > 2*fastest {
		t.Errorf("a drawn body stepped %.2f mm in one frame, against %.2f mm for the fastest", largest*1000, fastest*1000)
	}
}

// TestABlendSnapsATeleport: a sample that moves where a body is drawn by
// more than Teleport is drawn as it is; a small difference is kept as an
// offset and decays to exactly nothing.
func TestABlendSnapsATeleport(t *testing.T) {
	ip := newInterpolation(64)
	ip.haveTicks = true
	ip.clock.Arrive(100, 0)
	tr := &drawnTrack{}
	tr.AddVelocity(98, entity.Transform{X: 1, Scale: 1}, prediction.Velocity{X: 0.01})
	ip.tracks[entity.ID{}] = tr
	before := ip.draw(tr)
	tr.AddVelocity(100, entity.Transform{X: 1.03, Scale: 1}, prediction.Velocity{X: 0.01})
	ip.ease(tr, before)
	if got := ip.draw(tr); math.Abs(got.X-before.X) > 1e-12 {
		t.Fatalf("drawn at %v after the sample, %v before", got.X, before.X)
	}
	for range 500 {
		ip.advance(2*time.Millisecond, func(entity.ID) bool { return false }, func(entity.ID) bool { return true })
	}
	if tr.dx != 0 || tr.dy != 0 || tr.da != 0 {
		t.Fatalf("the offset never reached zero: %v %v %v", tr.dx, tr.dy, tr.da)
	}
	before = ip.draw(tr)
	tr.AddVelocity(110, entity.Transform{X: 40, Scale: 1}, prediction.Velocity{})
	ip.ease(tr, before)
	if tr.dx != 0 || tr.dy != 0 {
		t.Fatalf("a teleport kept an offset of %v, %v", tr.dx, tr.dy)
	}
}

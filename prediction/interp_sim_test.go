package prediction

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"vkm/internal/entity"
)

// interpLink describes one interpolation simulation: a server sending 64
// snapshots a second of its ticks to a client drawing 144 frames a second.
// Each snapshot takes interpLatency plus a seeded uniform 0..jitter (so
// jitter is the whole spread, as in the pacing simulation; memnet's
// LinkConfig.Jitter is half of it, spread either way) and is lost with
// probability loss. Delays are drawn per snapshot, so a late one can be
// overtaken. The shift, if any, moves the server's tick numbering ahead by
// shift ticks from shiftAt on, as a reconnection or a server that skipped
// ticks does.
type interpLink struct {
	tickRate int
	jitter   time.Duration
	loss     float64
	span     time.Duration
	seed     uint64
	shift    uint32
	shiftAt  time.Duration
}

// Simulation constants.
const (
	// interpLatency is the one-way base delay; it only moves every arrival
	// by the same amount, which the clock absorbs.
	interpLatency = 50 * time.Millisecond
	// interpFrames is the client's frame rate, the one the model measured
	// at.
	interpFrames = 144
	// interpSnapshots is the snapshot rate the design fixes.
	interpSnapshots = 64
	// interpFirstTick is the first snapshot's tick, away from zero so a
	// clock placed behind it is not negative.
	interpFirstTick = 1000
)

// interpArrival is one snapshot on its way.
type interpArrival struct {
	at   time.Duration
	tick uint32
}

// schedule returns the snapshots that arrive, in order of arrival, and how
// many were lost and how many arrived behind a newer one.
func (l interpLink) schedule() (arrivals []interpArrival, lost, reordered int) {
	rng := rand.New(rand.NewPCG(l.seed, 0x1e7b))
	every := time.Second / interpSnapshots
	perSnapshot := l.tickRate / interpSnapshots
	for k := 0; time.Duration(k)*every < l.span; k++ {
		sent := time.Duration(k) * every
		late := time.Duration(rng.Float64() * float64(l.jitter))
		if rng.Float64() < l.loss {
			lost++
			continue
		}
		tick := uint32(interpFirstTick + k*perSnapshot)
		if l.shift != 0 && sent >= l.shiftAt {
			tick += l.shift
		}
		arrivals = append(arrivals, interpArrival{at: sent + interpLatency + late, tick: tick})
	}
	slices.SortStableFunc(arrivals, func(a, b interpArrival) int { return cmp.Compare(a.at, b.at) })
	var newest uint32
	for _, a := range arrivals {
		if a.tick < newest {
			reordered++
		}
		newest = max(newest, a.tick)
	}
	return arrivals, lost, reordered
}

// interpRun is what one run of the clock over a schedule counted.
type interpRun struct {
	frames     int
	stalls     uint64
	jumps      uint64
	twoFrames  int        // frames the delay was exactly InterpDelay intervals
	delay      [2]float64 // least and most delay, in intervals
	rate       [2]float64 // least and most clock rate in a frame that neither stalled nor jumped
	jitterMed  time.Duration
	jitterMax  time.Duration
	drawnWrong int     // frames a linearly moving body was drawn off its line
	finalOff   float64 // the clock's distance from its target after the last frame, ticks
}

// run plays arrivals to a fresh Interp (fixed or measured delay), frame by
// frame: every snapshot that has arrived by a frame is read at that
// frame's time, as a client reading its socket once a frame does, then the
// clock advances. A body at x = 0.1 m × its tick is fed to a Track and
// drawn each frame; while the clock is within the track it must be drawn on
// that line, held at the newest sample when the clock is.
func (l interpLink) run(arrivals []interpArrival, fixed bool) interpRun {
	p := NewInterp(l.tickRate, interpSnapshots)
	p.FixedDelay = fixed
	interval := float64(l.tickRate) / interpSnapshots
	res := interpRun{delay: [2]float64{math.Inf(1), 0}, rate: [2]float64{math.Inf(1), 0}}
	var (
		track   Track
		jitters []time.Duration
		next    int
		prev    time.Duration
	)
	for f := 0; ; f++ {
		now := time.Duration(f) * time.Second / interpFrames
		if now >= l.span {
			break
		}
		for ; next < len(arrivals) && arrivals[next].at <= now; next++ {
			a := arrivals[next]
			p.Arrive(a.tick, now)
			track.Add(a.tick, entity.Transform{X: 0.1 * float64(a.tick), Scale: 1})
		}
		dt := now - prev
		prev = now
		if track.Len() == 0 {
			continue
		}
		before, stalls, jumps := p.Time(), p.Stalls(), p.Jumps()
		p.Advance(dt)
		res.frames++
		d := p.Delay() / interval
		res.delay[0], res.delay[1] = min(res.delay[0], d), max(res.delay[1], d)
		if d == InterpDelay {
			res.twoFrames++
		}
		if p.Stalls() == stalls && p.Jumps() == jumps && dt > 0 {
			r := (p.Time() - before) / (dt.Seconds() * float64(l.tickRate))
			res.rate[0], res.rate[1] = min(res.rate[0], r), max(res.rate[1], r)
		}
		jitters = append(jitters, p.Jitter())
		oldest, newest := float64(track.sample(track.Len()-1).tick), float64(track.sample(0).tick)
		if drawn, _ := track.At(p.Time()); p.Time() >= oldest &&
			math.Abs(drawn.X-0.1*min(p.Time(), newest)) > 1e-9 {
			res.drawnWrong++
		}
	}
	res.stalls, res.jumps = p.Stalls(), p.Jumps()
	res.finalOff = p.Time() - (float64(p.Newest()) - p.Delay())
	slices.Sort(jitters)
	if len(jitters) > 0 {
		res.jitterMed, res.jitterMax = jitters[len(jitters)/2], jitters[len(jitters)-1]
	}
	return res
}

// rateWithinBend reports whether every frame's clock ran within
// InterpMaxBend of the tick rate.
func rateWithinBend(r interpRun) bool {
	const eps = 1e-9
	return r.rate[0] >= 1-InterpMaxBend-eps && r.rate[1] <= 1+InterpMaxBend+eps
}

// TestInterpJitter plays a simulated minute of snapshots over a link with
// 45 ms of jitter and one snapshot in ten lost, once with the delay fixed at
// two intervals and once with the measured delay, and over a link with
// 15 ms of jitter and nothing lost, where the measured delay must stay at
// two intervals and nothing stalls. Each at a 64 and a 128 Hz tick.
func TestInterpJitter(t *testing.T) {
	for _, tickRate := range []int{64, 128} {
		for _, c := range []struct {
			name   string
			jitter time.Duration
			loss   float64
			seed   uint64
		}{
			{"45ms-loss10", 45 * time.Millisecond, 0.1, 7},
			{"15ms", 15 * time.Millisecond, 0, 11},
		} {
			l := interpLink{tickRate: tickRate, jitter: c.jitter, loss: c.loss, span: time.Minute, seed: c.seed}
			arrivals, lost, reordered := l.schedule()
			fixed := l.run(arrivals, true)
			measured := l.run(arrivals, false)
			t.Logf("%d Hz %s seed %d: %d snapshots arrived, %d lost, %d overtaken; %d frames",
				tickRate, c.name, c.seed, len(arrivals), lost, reordered, measured.frames)
			t.Logf("  fixed two intervals: %d stalled frames, %d jumps", fixed.stalls, fixed.jumps)
			t.Logf("  measured delay:      %d stalled frames, %d jumps; delay %.2f..%.2f intervals (two on %d frames); "+
				"jitter median %v, peak %v; clock rate %.4f..%.4f",
				measured.stalls, measured.jumps, measured.delay[0], measured.delay[1], measured.twoFrames,
				measured.jitterMed.Round(100*time.Microsecond), measured.jitterMax.Round(100*time.Microsecond),
				measured.rate[0], measured.rate[1])
			for name, r := range map[string]interpRun{"fixed": fixed, "measured": measured} {
				if !rateWithinBend(r) {
					t.Errorf("%s: clock rate %.4f..%.4f, want within ±%.0f%%", name, r.rate[0], r.rate[1], InterpMaxBend*100)
				}
				if r.jumps != 0 {
					t.Errorf("%s: %d jumps on a link without a gap", name, r.jumps)
				}
				if r.drawnWrong != 0 {
					t.Errorf("%s: a body on a straight line drawn off it in %d frames", name, r.drawnWrong)
				}
			}
			if c.loss > 0 {
				if fixed.stalls < 100 {
					t.Errorf("fixed delay stalled %d frames; the link is meant to run two intervals dry often", fixed.stalls)
				}
				if measured.stalls*4 > fixed.stalls {
					t.Errorf("measured delay stalled %d frames against %d fixed; want a quarter or fewer",
						measured.stalls, fixed.stalls)
				}
				continue
			}
			if fixed.stalls != 0 || measured.stalls != 0 {
				t.Errorf("stalled %d frames fixed, %d measured; want none on a 15 ms link", fixed.stalls, measured.stalls)
			}
			if measured.twoFrames != measured.frames {
				t.Errorf("delay was two intervals on %d of %d frames (%.2f..%.2f); want all",
					measured.twoFrames, measured.frames, measured.delay[0], measured.delay[1])
			}
		}
	}
}

// TestInterpJump shifts the server's ticks ahead while the client draws: a
// 200-tick leap, as after a reconnection, is one jump; a 10-tick shift is
// eased with no jump, the clock never more than InterpMaxBend fast, and
// closes on its target.
func TestInterpJump(t *testing.T) {
	for _, c := range []struct {
		shift     uint32
		wantJumps uint64
	}{
		{200, 1},
		{24, 1}, // lands 25 to 27 ticks off: over InterpJumpTicks
		{10, 0},
		{16, 0}, // lands 17 to 19 ticks off: under
	} {
		for _, tickRate := range []int{64, 128} {
			l := interpLink{tickRate: tickRate, span: 6 * time.Second, seed: 3, shift: c.shift, shiftAt: 2 * time.Second}
			arrivals, _, _ := l.schedule()
			r := l.run(arrivals, false)
			t.Logf("%d Hz, shift %d ticks, seed %d: %d jumps, %d stalls, clock rate %.4f..%.4f, ends %.3f ticks off",
				tickRate, c.shift, l.seed, r.jumps, r.stalls, r.rate[0], r.rate[1], r.finalOff)
			if r.jumps != c.wantJumps {
				t.Errorf("%d Hz shift %d: %d jumps, want %d", tickRate, c.shift, r.jumps, c.wantJumps)
			}
			if r.stalls != 0 {
				t.Errorf("%d Hz shift %d: %d stalls, want none", tickRate, c.shift, r.stalls)
			}
			if !rateWithinBend(r) {
				t.Errorf("%d Hz shift %d: clock rate %.4f..%.4f, want within ±%.0f%%",
					tickRate, c.shift, r.rate[0], r.rate[1], InterpMaxBend*100)
			}
			if c.wantJumps == 0 && r.rate[1] < 1+InterpMaxBend-1e-9 {
				t.Errorf("%d Hz shift %d: fastest rate %.4f; the clock should have bent the full %.0f%%",
					tickRate, c.shift, r.rate[1], InterpMaxBend*100)
			}

			interval := float64(tickRate) / interpSnapshots
			if math.Abs(r.finalOff) > interval {
				t.Errorf("%d Hz shift %d: clock ends %.3f ticks off its target, want within an interval",
					tickRate, c.shift, r.finalOff)
			}
		}
	}
}

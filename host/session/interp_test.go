package session

import (
	"math"
	"testing"
	"time"

	"vkm/internal/entity"
	"vkm/transport"
	"vkm/transport/memnet"
)

// TestOthersAreDrawnSmoothly watches, from one client, another player's
// bot-driven character for half a minute over the mobile profile (jitter
// and loss): drawn from the interpolation clock it moves a little every
// frame, never faster than the server moved it (plus the clock's 10%
// bend), while the raw snapshot values it is drawn from stand still
// between arrivals and then leap.
func TestOthersAreDrawnSmoothly(t *testing.T) {
	t.Parallel() // its own sessions, game and link; nothing shared
	const seed = 23
	h := newHarness(t, loadArena(t))
	watcher := h.seated(memnet.Mobile, seed, false)
	runner := h.seated(memnet.Mobile, seed+1, true)
	other := runner.c.Game().Own()
	h.run(2 * time.Second)
	sv := h.server.Game()
	wg := watcher.c.Game()

	// teleport filters respawns out: a step longer than this is one.
	const teleport = 1.0
	var (
		frames, drawnStill, rawStill, moving int
		maxDrawn, maxServer                  float64
		lastDrawnX, lastDrawnY               float64
		lastRawX, lastRawY                   float64
		lastSrvX, lastSrvY                   float64
		lastTick                             = sv.Tick()
		started                              bool
	)
	p := sv.Store().Transform(other)
	lastSrvX, lastSrvY = p.X, p.Y
	stalls0 := watcher.c.interp.clock.Stalls()
	for end := h.now + 30e9; h.now < end; {
		h.step()
		if sv.Tick() != lastTick {
			p := sv.Store().Transform(other)
			if d := math.Hypot(p.X-lastSrvX, p.Y-lastSrvY); d < teleport {
				maxServer = max(maxServer, d/float64(sv.Tick()-lastTick))
			}
			lastSrvX, lastSrvY, lastTick = p.X, p.Y, sv.Tick()
		}
		raw := *wg.Store().Transform(other)
		var drawnX, drawnY float64
		watcher.c.Drawn(func() {
			d := wg.Store().Transform(other)
			drawnX, drawnY = d.X, d.Y
		})
		if started {
			dd := math.Hypot(drawnX-lastDrawnX, drawnY-lastDrawnY)
			dr := math.Hypot(raw.X-lastRawX, raw.Y-lastRawY)
			if dd < teleport && dr < teleport {
				frames++
				maxDrawn = max(maxDrawn, dd)
				if dd == 0 {
					drawnStill++
				}
				if dr == 0 {
					rawStill++
				}
				if p := sv.Store().Rigidbody(other); p != nil && math.Hypot(p.VX, p.VY) > 0.5 {
					moving++
				}
			}
		}
		lastDrawnX, lastDrawnY, lastRawX, lastRawY, started = drawnX, drawnY, raw.X, raw.Y, true
	}
	stalls := watcher.c.interp.clock.Stalls() - stalls0
	frameTicks := frameStep.Seconds() * float64(sv.TickRate())
	bound := maxServer * frameTicks * (1 + 0.10) * 1.001
	t.Logf("seed %d, mobile: %d frames (%d with the server's character moving); still frames: drawn %d, raw %d; stalls %d; delay %.2f ticks, jitter %v",
		seed, frames, moving, drawnStill, rawStill, stalls, watcher.c.interp.clock.Delay(), watcher.c.interp.clock.Jitter())
	t.Logf("largest step a frame: drawn %.2f mm, bound %.2f mm (the server's fastest %.2f mm a tick, %.3f ticks a frame, bent 10%%)",
		maxDrawn*1000, bound*1000, maxServer*1000, frameTicks)
	if maxDrawn > bound {
		t.Errorf("a drawn step of %.2f mm is faster than anything the server did (%.2f mm)", maxDrawn*1000, bound*1000)
	}
	if rawStill < frames/2 {
		t.Fatalf("the raw values moved in %d of %d frames: the test is not seeing snapshot steps", frames-rawStill, frames)
	}
	if drawnStill > rawStill/4 {
		t.Errorf("drawn still in %d frames against %d raw: interpolation is not filling the gaps", drawnStill, rawStill)
	}
}

// TestALapsedLeaseSlidesBack pushes a crate, then walks away until the
// lease lapses: from then on the crate is drawn from the server's word
// again, and the difference from what was predicted is eased out through
// the smoothing offset — no frame jumps.
func TestALapsedLeaseSlidesBack(t *testing.T) {
	h := newHarness(t, loadArena(t))
	a := h.seated(memnet.Mobile, 9, false)
	h.run(time.Second)
	g := a.c.Game()
	crate := g.Store().At(30) // crate1, right of spawn 1
	run := &steady{}
	run.cmd.Axes[g.Project().AxisIndex("run")] = 1
	a.input = run
	drawnX := func() float64 {
		var x float64
		a.c.Drawn(func() { x = g.Store().Transform(crate).X })
		return x
	}
	var (
		last       = drawnX()
		leased     bool
		lapsedAt   transport.Time
		largest    float64
		lapseSteps []float64
	)
	for i := 0; i < 5*500; i++ { // five seconds of 2 ms frames
		if i == 2*500 {
			run.cmd.Axes[g.Project().AxisIndex("run")] = -1 // turn and walk away
		}
		h.step()
		now := a.c.leases.Leased(crate, g.Tick())
		x := drawnX()
		step := math.Abs(x - last)
		largest = max(largest, step)
		if leased && !now {
			lapsedAt = h.now
		}
		if lapsedAt != 0 && len(lapseSteps) < 10 {
			lapseSteps = append(lapseSteps, step)
		}
		leased, last = leased || now, x
	}
	t.Logf("lease lapsed at %v; drawn steps over the next frames %.4f m; largest step of the run %.4f m",
		time.Duration(lapsedAt), lapseSteps, largest)
	if lapsedAt == 0 {
		t.Fatal("the crate was never leased and let go: the test proves nothing")
	}
	// Handed back, the crate eases: no frame after the lapse moves it
	// more than a pushed crate moves in a frame (8 m/s × 2 ms = 16 mm).
	for i, s := range lapseSteps {
		if s > 0.016 {
			t.Fatalf("frame %d after the lapse moved the drawn crate %.1f mm", i, s*1000)
		}
	}
	// And nothing else jumped: a predicted body is drawn between its last
	// two ticks, so it moves every frame by at most what a pushed crate
	// moves in one (16 mm, and 5% more on a fast clock).
	if largest > 0.0168 {
		t.Fatalf("the drawn crate jumped %.1f mm in one frame", largest*1000)
	}
}

// TestOwnCharacterIsDrawnBetweenTicks runs the own character along the
// hall and watches it drawn every 2 ms frame: blended between the last two
// predicted ticks, it moves a little every frame instead of a tick's worth
// every eighth frame.
func TestOwnCharacterIsDrawnBetweenTicks(t *testing.T) {
	h := newHarness(t, loadArena(t))
	a := h.seated(memnet.Lan, 4, false)
	h.run(time.Second)
	g := a.c.Game()
	run := &steady{}
	run.cmd.Axes[g.Project().AxisIndex("run")] = -1 // toward the hall's end, no crates
	a.input = run
	h.run(time.Second / 4) // up to speed
	drawn := func() float64 {
		var x float64
		a.c.Drawn(func() { x = g.Store().Transform(g.Own()).X })
		return x
	}
	var (
		lastDrawn, lastRaw = drawn(), g.Store().Transform(g.Own()).X
		largest            float64
		still, rawStill    int
	)
	const frames = 100
	for range frames {
		h.step()
		d, r := drawn(), g.Store().Transform(g.Own()).X
		largest = max(largest, math.Abs(d-lastDrawn))
		if d == lastDrawn {
			still++
		}
		if r == lastRaw {
			rawStill++
		}
		lastDrawn, lastRaw = d, r
	}
	// 8 m/s for a 2 ms frame is 16 mm; the clock runs at most 5% fast.
	t.Logf("%d frames: drawn still in %d, raw in %d; largest drawn step %.1f mm", frames, still, rawStill, largest*1000)
	if rawStill < frames/2 {
		t.Fatalf("the raw pose moved in %d of %d frames: not the tick steps this test expects", frames-rawStill, frames)
	}
	if still > 0 || largest > 0.0168 {
		t.Fatalf("the own character is drawn in steps: still in %d frames, a step of %.1f mm", still, largest*1000)
	}
}

// TestASettledWorldDoesNotStall: once nothing moves the server sends a
// snapshot every fourth round, and the interpolation clock catches up with
// each; that is no pause anyone could see, and it is not counted as one.
// And a body at rest is drawn exactly where the server said it stands, not
// carried on by the velocity it had before it stopped.
func TestASettledWorldDoesNotStall(t *testing.T) {
	h := newHarness(t, loadArena(t))
	a := h.seated(memnet.Lan, 3, false)
	h.run(10 * time.Second) // the crates settle
	clock0, seen0, snaps0 := a.c.interp.clock.Stalls(), a.c.interp.stalls, a.c.interp.snapshots
	h.run(10 * time.Second)
	clock, seen, snaps := a.c.interp.clock.Stalls()-clock0, a.c.interp.stalls-seen0, a.c.interp.snapshots-snaps0
	t.Logf("10 s of a settled world: %d snapshots, the clock held at the newest %d frames, %d of them with anything moving", snaps, clock, seen)
	if seen != 0 {
		t.Fatalf("%d stalls counted in a world where nothing moves", seen)
	}
	if snaps > 10*64/2 {
		t.Fatalf("%d snapshots in 10 s of a settled world: not the settled rate", snaps)
	}
	// At rest is drawn at rest exactly: every body this client draws is
	// drawn bit for bit where the server last said it stands.
	g := a.c.Game()
	raw := map[entity.ID]entity.Transform{}
	for id := range a.c.interp.tracks {
		if !g.Simulates(id) {
			raw[id] = *g.Store().Transform(id)
		}
	}
	a.c.Drawn(func() {
		for id, want := range raw {
			if got := *g.Store().Transform(id); got != want {
				t.Errorf("%q, at rest, drawn at %+v; the server says %+v", g.Store().Name(id), got, want)
			}
		}
	})
	if len(raw) == 0 {
		t.Fatal("the client draws nothing: the test proves nothing")
	}
	t.Logf("%d bodies at rest drawn exactly where the server put them", len(raw))
}

package session

import (
	"math"
	"testing"
	"time"

	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/transport/memnet"
)

func loadLagcomp(t testing.TB) *project.Project {
	t.Helper()
	p, err := project.LoadProject("testdata/lagcomp")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// scriptedInput plays a held command; once armed, the next command it
// makes asks aim where to point and presses fire.
type scriptedInput struct {
	cmd   prediction.Command
	armed bool
	aim   func() (x, y float64)
}

func (s *scriptedInput) Next() prediction.Command {
	c := s.cmd
	if s.armed {
		c.Axes[1], c.Axes[2] = s.aim()
		c.Held, c.Pressed = 1, 1 // fire is the project's only button
		s.armed = false
	}
	return c
}

// link100 is a steady 100 ms round trip: 50 ms each way, nothing lost.
var link100 = memnet.Profile{
	Name: "rtt100",
	Up:   memnet.LinkConfig{Latency: 50 * time.Millisecond},
	Down: memnet.LinkConfig{Latency: 50 * time.Millisecond},
}

// TestLagCompensatedShot fires at a target running at 6 m/s the moment
// the shooter's client draws it under the crosshair, over a 100 ms round
// trip: rewinding, the server judges the shot a hit; with rewinding off
// the same shot misses, because by the time the command runs the target
// has run on.
func TestLagCompensatedShot(t *testing.T) {
	for _, rewind := range []bool{true, false} {
		const seed = 61
		h := newHarness(t, loadLagcomp(t))
		h.server.lag.off = !rewind
		shooter := h.join(loadLagcomp(t), link100, seed)
		gun := &scriptedInput{}
		shooter.input = gun
		h.runUntil(5*time.Second, "the shooter's join", func() bool { return !shooter.c.Game().Own().IsNone() })
		runner := h.join(loadLagcomp(t), link100, seed+1)
		runner.input = &scriptedInput{cmd: prediction.Command{Axes: [prediction.MaxAxes]float64{1}}}
		h.runUntil(5*time.Second, "the runner's join", func() bool { return !runner.c.Game().Own().IsNone() })
		target := runner.c.Game().Own()
		sg := shooter.c.Game()

		// Once the shooter's picture has the target's centre past x = -3,
		// the next command aims at the centre it draws then, and fires.
		var aimed entity.Transform
		drawn := func() (tt, me entity.Transform) {
			shooter.c.Drawn(func() {
				if p := sg.Store().Transform(target); p != nil {
					tt = *p
				}
				me = *sg.Store().Transform(sg.Own())
			})
			return tt, me
		}
		gun.aim = func() (float64, float64) {
			tt, me := drawn()
			aimed = tt
			dx, dy := tt.X-me.X, tt.Y-me.Y
			n := math.Hypot(dx, dy)
			return dx / n, dy / n
		}
		h.runUntil(10*time.Second, "the target under the crosshair", func() bool {
			tt, _ := drawn()
			gun.armed = tt.X >= -3
			return gun.armed
		})
		sv := h.server.Game()
		clientLook := shooter.c.lookBehind(h.now)
		if rewind {
			// What the server rewound to is what the shooter drew.
			h.runUntil(time.Second, "the shot", func() bool { return h.server.lag.at != 0 })
			past, _ := h.server.lag.history.At(target, h.server.lag.at)
			t.Logf("the server rewound to tick %.3f, where the target stood at x %.4f (drawn: %.4f)", h.server.lag.at, past.X, aimed.X)
			if math.Abs(past.X-aimed.X) > 0.01 || math.Abs(past.Y-aimed.Y) > 0.01 {
				t.Errorf("rewound pose %+v is not the drawn %+v", past, aimed)
			}
		}
		h.run(time.Second)
		hits := sv.Store().Component(target, sv.Schema().Index("Hits"))[0]
		present := sv.Store().Transform(target)
		t.Logf("seed %d, rewind %v: the shooter drew the target at x %.3f; the server has it at %.3f a second later; look-behind %.2f ticks (the client reports %.2f); hits %v",
			seed, rewind, aimed.X, present.X, h.server.lag.lookBehind, clientLook, hits)
		if want := map[bool]float64{true: 1, false: 0}[rewind]; hits != want {
			t.Fatalf("rewind %v: %v hits, want %v", rewind, hits, want)
		}
		if rewind && h.server.lag.lookBehind < 4 {
			t.Fatalf("the server looked back only %.2f ticks over a 100 ms round trip", h.server.lag.lookBehind)
		}
		if rewind {
			checkClamped(t, h, shooter, target)
		}
	}
}

// checkClamped claims drawn ticks outside the server's history: one from
// long ago is judged against the oldest pose kept, one from the future
// against the present, and both put everything back afterwards.
func checkClamped(t *testing.T, h *harness, shooter *peer, target entity.ID) {
	sv := h.server.Game()
	gunner := sv.Store().At(shooter.c.Game().Own().Slot)
	oldest, newest, _ := h.server.lag.history.Span(target)
	first, _ := h.server.lag.history.At(target, float64(oldest))
	present := *sv.Store().Transform(target)
	for _, c := range []struct {
		claim float64
		want  entity.Transform
	}{{1, first}, {float64(sv.Tick()) + 500, present}} {
		h.server.lag.drawnAt[gunner] = c.claim
		var seen, inner, afterInner entity.Transform
		sv.World().Rewind(gunner, func() {
			seen = *sv.Store().Transform(target)
			// A nested scope changes nothing: still the same past, before
			// and after it.
			sv.World().Rewind(gunner, func() { inner = *sv.Store().Transform(target) })
			afterInner = *sv.Store().Transform(target)
		})
		if inner != seen || afterInner != seen {
			t.Errorf("claimed tick %.0f: nested rewind saw %+v, then %+v, the outer %+v", c.claim, inner, afterInner, seen)
		}
		t.Logf("claimed tick %.0f (history %d..%d): target seen at x %.3f, look-behind %.0f", c.claim, oldest, newest, seen.X, h.server.lag.lookBehind)
		if seen != c.want {
			t.Errorf("claimed tick %.0f: target seen at %+v, want %+v", c.claim, seen, c.want)
		}
		if now := *sv.Store().Transform(target); now != present {
			t.Errorf("after the rewind the target is at %+v, not back at %+v", now, present)
		}
	}
}

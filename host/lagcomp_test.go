package host

import (
	"math"
	"testing"
	"time"

	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/transport/memnet"
)

func loadLagcomp(t testing.TB) *Project {
	t.Helper()
	p, err := LoadProject("testdata/lagcomp")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// scriptedInput plays a held command and presses fire once when told.
type scriptedInput struct {
	cmd  prediction.Command
	fire bool
}

func (s *scriptedInput) Next() prediction.Command {
	c := s.cmd
	if s.fire {
		c.Held, c.Pressed = 1, 1 // fire is the project's only button
		s.fire = false
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
		h.server.game.lag.off = !rewind
		shooter := h.join(loadLagcomp(t), link100, seed)
		gun := &scriptedInput{}
		shooter.input = gun
		h.runUntil(5*time.Second, "the shooter's join", func() bool { return !shooter.c.game.own.IsNone() })
		runner := h.join(loadLagcomp(t), link100, seed+1)
		runner.input = &scriptedInput{cmd: prediction.Command{Axes: [prediction.MaxAxes]float64{1}}}
		h.runUntil(5*time.Second, "the runner's join", func() bool { return !runner.c.game.own.IsNone() })
		target := runner.c.game.own
		sg := shooter.c.game

		// Fire when the shooter's picture has the target's centre cross
		// x = -3, aiming at that centre.
		var aimed entity.Transform
		h.runUntil(10*time.Second, "the target under the crosshair", func() bool {
			var tt, me entity.Transform
			shooter.c.Drawn(func() {
				if p := sg.Store().Transform(target); p != nil {
					tt = *p
				}
				me = *sg.Store().Transform(sg.own)
			})
			if tt.X < -3 {
				return false
			}
			dx, dy := tt.X-me.X, tt.Y-me.Y
			n := math.Hypot(dx, dy)
			gun.cmd.Axes[1], gun.cmd.Axes[2] = dx/n, dy/n
			gun.fire, aimed = true, tt
			return true
		})
		h.run(time.Second)
		sv := h.server.game
		hits := sv.Store().Component(target, sv.Schema().Index("Hits"))[0]
		present := sv.Store().Transform(target)
		t.Logf("seed %d, rewind %v: the shooter drew the target at x %.3f; the server has it at %.3f a second later; look-behind %.2f ticks; hits %v",
			seed, rewind, aimed.X, present.X, h.server.game.lag.lookBehind, hits)
		if want := map[bool]float64{true: 1, false: 0}[rewind]; hits != want {
			t.Fatalf("rewind %v: %v hits, want %v", rewind, hits, want)
		}
		if rewind && h.server.game.lag.lookBehind < 4 {
			t.Fatalf("the server looked back only %.2f ticks over a 100 ms round trip", h.server.game.lag.lookBehind)
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
	sv := h.server.game
	gunner := sv.Store().At(shooter.c.game.own.Slot)
	oldest, newest, _ := sv.lag.history.Span(target)
	first, _ := sv.lag.history.At(target, float64(oldest))
	present := *sv.Store().Transform(target)
	for _, c := range []struct {
		claim float64
		want  entity.Transform
	}{{1, first}, {float64(sv.Tick()) + 500, present}} {
		sv.lag.drawnAt[gunner] = c.claim
		var seen entity.Transform
		sv.Rewind(gunner, func() { seen = *sv.Store().Transform(target) })
		t.Logf("claimed tick %.0f (history %d..%d): target seen at x %.3f, look-behind %.0f", c.claim, oldest, newest, seen.X, sv.lag.lookBehind)
		if seen != c.want {
			t.Errorf("claimed tick %.0f: target seen at %+v, want %+v", c.claim, seen, c.want)
		}
		if now := *sv.Store().Transform(target); now != present {
			t.Errorf("after the rewind the target is at %+v, not back at %+v", now, present)
		}
	}
}

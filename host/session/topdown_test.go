package session

import (
	"fmt"
	"testing"
	"time"

	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/transport/memnet"
)

func loadTopDown(t testing.TB) *project.Project {
	t.Helper()
	p, err := project.LoadProject("testdata/topdown")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// diagonals steers along the four diagonals in turn, a leg each
// legTicks ticks of its own, and rests a leg after every fourth, so the
// character runs into walls and the pillar, slides along them, turns and
// stops by friction.
type diagonals struct{ n int }

const legTicks = 160

func (d *diagonals) Next() prediction.Command {
	var c prediction.Command
	legs := [5][2]float64{{1, 1}, {-1, 1}, {-1, -1}, {1, -1}, {0, 0}}
	leg := legs[d.n/legTicks%len(legs)]
	c.Axes[0], c.Axes[1] = leg[0], leg[1]
	d.n++
	return c
}

// TestTopDownPredictionHoldsOverALossyLink plays a top-down character
// steered along the diagonals for twenty seconds over links that lose
// packets: the client's prediction of every tick the server judges is
// exact, so nothing is corrected or replayed, and at the end the client's
// character stands where the server's does, bit for bit.
func TestTopDownPredictionHoldsOverALossyLink(t *testing.T) {
	for _, profile := range []memnet.Profile{memnet.Broadband, memnet.Mobile} {
		for _, seed := range []uint64{3, 17, 2026} {
			t.Run(fmt.Sprintf("%s/%d", profile.Name, seed), func(t *testing.T) {
				h := newHarness(t, loadTopDown(t))
				a := h.join(loadTopDown(t), profile, seed)
				h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
				g, srv := a.c.Game(), h.server.Game()
				if c := g.Store().Controller(g.Own()); c == nil || c.Mode != entity.TopDown {
					t.Fatalf("the client's character has controller %+v, want a top-down one", c)
				}
				in := &diagonals{}
				a.input = in
				h.run(time.Second) // the pacing settles
				before := a.c.rec
				a.c.rec.maxError = 0
				start := *g.Store().Transform(g.Own())
				far, touching := 0.0, 0
				for range 20 * 64 {
					h.run(time.Second / 64)
					far = max(far, prediction.Distance(start, *g.Store().Transform(g.Own())))
					g.Physics().Touching(g.Own(), func(entity.ID) bool { touching++; return false })
				}
				a.input = nil
				h.run(time.Second)
				r := a.c.rec
				n, replayed := r.corrections-before.corrections, r.replayed-before.replayed
				ct, st := g.Store().Transform(g.Own()), srv.Store().Transform(g.Own())
				up, down := a.pipe.AtoB.Counts(), a.pipe.BtoA.Counts()
				t.Logf("seed %d, %s: %d of %d datagrams up and %d of %d down lost; %d corrections, %d ticks replayed, largest prediction error %.1f mm in 20 s of diagonals reaching %.1f m from the start, against a wall or the pillar on %d frames; at rest at (%.3f, %.3f)",
					seed, profile.Name, up.Dropped, up.Sent, down.Dropped, down.Sent, n, replayed, r.maxError*1000, far, touching, ct.X, ct.Y)
				if far < 5 || touching == 0 || up.Dropped == 0 || down.Dropped == 0 {
					t.Fatalf("the character went at most %.1f m from where it started, touched something on %d frames, %d datagrams lost up and %d down: the test proves nothing", far, touching, up.Dropped, down.Dropped)
				}
				if n != 0 || replayed != 0 || r.maxError != 0 {
					t.Errorf("%d corrections, %d ticks replayed, largest prediction error %g mm; want none and 0.0", n, replayed, r.maxError*1000)
				}
				if *ct != *st {
					t.Errorf("at rest the client's character is at %+v, the server's at %+v", *ct, *st)
				}
			})
		}
	}
}

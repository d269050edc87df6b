package physics

import (
	"math"
	"testing"

	"vkm/internal/entity"
)

// TestRestoreKeepsTheMovesOfABodyAddedSince builds a box resting on the
// floor after a Save, as a client builds its world from the first snapshot
// after its clock has run, and then restores that Save, as the client's
// first replay does: the box's pairs are still found at the next step, and
// it stays on the floor rather than falling a step's gravity into it.
func TestRestoreKeepsTheMovesOfABodyAddedSince(t *testing.T) {
	floor := def(entity.Static, chain(entity.Vec2{X: -10, Y: 0}, entity.Vec2{X: 10, Y: 0}))
	// Where the box comes to rest on the floor.
	w, s := gravityWorld(), newStore()
	add(t, w, s, eid(1), floor, 0, 0)
	p := add(t, w, s, eid(2), def(entity.Dynamic, box(1, 1)), 0, 0.6)
	steps(w, s, 120)
	rest := p.t.Y
	for _, restore := range []bool{false, true} {
		w, s := gravityWorld(), newStore()
		add(t, w, s, eid(1), floor, 0, 0)
		steps(w, s, 3)
		var st State
		w.Save(&st)
		p := add(t, w, s, eid(2), def(entity.Dynamic, box(1, 1)), 0, rest)
		if restore {
			w.Restore(&st)
		}
		for i := range 5 {
			w.Step(s)
			if math.Abs(p.t.Y-rest) > 1e-3 {
				t.Fatalf("restored %v: %d steps after it was built at rest, the box stands at y %.4f, %.1f mm from its rest", restore, i+1, p.t.Y, (rest-p.t.Y)*1000)
			}
		}
	}
}

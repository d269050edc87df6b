package physics

import (
	"math"
	"testing"

	"vkm/internal/entity"
)

// TestMovedQueriesSeeThePast casts rays and boxes at a body moved to a
// past pose: they find it there and not where the world has it, and the
// world itself is left exactly as it was.
func TestMovedQueriesSeeThePast(t *testing.T) {
	w, s := New(Config{}), newStore()
	add(t, w, s, eid(1), def(entity.Static, box(1, 1)), 3, 0)
	add(t, w, s, eid(2), def(entity.Dynamic, box(1, 2)), 6, 0)
	before := w.b2.GetBodyList().GetPosition()
	moved := Moved{eid(2): {X: 6, Y: 10, Angle: math.Pi / 2}} // lying on its side, 10 m up

	if hit, ok := w.RayCastMoved(6, -5, 6, -1, entity.None, moved); ok {
		t.Errorf("a ray where the body is now hit %+v; it stands elsewhere in the past", hit)
	}
	hit, ok := w.RayCastMoved(0, 10, 12, 10, entity.None, moved)
	if !ok || hit.Entity != eid(2) || math.Abs(hit.X-5) > 1e-9 || math.Abs(hit.NX+1) > 1e-9 {
		t.Errorf("ray through the past pose: %+v %v, want eid 2 at x 5 (half its 2 m height, rotated)", hit, ok)
	}
	// The nearer of a moved and an unmoved body wins, either way round.
	hit, ok = w.RayCastMoved(0, 0, 12, 0, entity.None, Moved{eid(2): {X: 1, Y: 0}})
	if !ok || hit.Entity != eid(2) || math.Abs(hit.X-0.5) > 1e-9 {
		t.Errorf("moved body nearer than the static one: %+v", hit)
	}
	hit, ok = w.RayCastMoved(0, 0, 12, 0, entity.None, Moved{eid(2): {X: 9, Y: 0}})
	if !ok || hit.Entity != eid(1) {
		t.Errorf("static body nearer than the moved one: %+v", hit)
	}
	if _, ok := w.RayCastMoved(0, 10, 12, 10, eid(2), moved); ok {
		t.Error("an ignored moved body was hit")
	}
	// With nothing moved it is RayCast.
	if hit, ok := w.RayCastMoved(0, 0, 12, 0, entity.None, nil); !ok || hit.Entity != eid(1) {
		t.Errorf("nothing moved: %+v", hit)
	}

	var found []entity.ID
	w.QueryAABBMoved(5, 9, 7, 11, moved, func(id entity.ID) bool { found = append(found, id); return true })
	if len(found) != 1 || found[0] != eid(2) {
		t.Errorf("box at the past pose found %v", found)
	}
	found = found[:0]
	w.QueryAABBMoved(0, -1, 7, 1, moved, func(id entity.ID) bool { found = append(found, id); return true })
	if len(found) != 1 || found[0] != eid(1) {
		t.Errorf("box over the present found %v, want only the static body", found)
	}
	if after := w.b2.GetBodyList().GetPosition(); after != before {
		t.Errorf("the world moved: %v then %v", before, after)
	}
	if tr, _ := s.Pose(eid(2)); tr.X != 6 || tr.Y != 0 {
		t.Errorf("the body's pose changed: %+v", tr)
	}
}

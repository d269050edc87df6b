package physics

import (
	"math/rand/v2"
	"testing"

	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// TestRayCastAnswersAsBox2dWould casts a thousand random rays through a
// field of boxes, circles and a chain, some asleep, some moving, and
// checks RayCast against box2d's own B2World.RayCast with the same
// callback: the same fixture, point, normal and fraction, bit for bit.
func TestRayCastAnswersAsBox2dWould(t *testing.T) {
	w, s := benchField(t, 60)
	if err := w.Add(entity.ID{Slot: 500, Gen: 1}, def(entity.Static, chain(
		entity.Vec2{X: -20, Y: 3}, entity.Vec2{X: -5, Y: 6}, entity.Vec2{X: 5, Y: 2}, entity.Vec2{X: 20, Y: 7})),
		entity.Identity, entity.Rigidbody{}); err != nil {
		t.Fatal(err)
	}
	steps(w, s, 30)
	rng := rand.New(rand.NewPCG(7, 11))
	hits := 0
	for i := range 1000 {
		x1, y1 := rng.Float64()*60-30, rng.Float64()*30
		x2, y2 := rng.Float64()*60-30, rng.Float64()*30
		ignore := entity.None
		if i%3 == 0 {
			ignore = entity.ID{Slot: uint32(rng.IntN(61)), Gen: 1}
		}
		got, ok := w.RayCast(x1, y1, x2, y2, ignore)
		var want Hit
		wantOK := false
		w.b2.RayCast(func(f *box2d.B2Fixture, p, n box2d.B2Vec2, fraction float64) float64 {
			id := w.entityOf(f.GetBody())
			if f.IsSensor() || (!ignore.IsNone() && id == ignore) {
				return -1
			}
			want = Hit{Entity: id, X: p.X, Y: p.Y, NX: n.X, NY: n.Y, Fraction: fraction}
			wantOK = true
			return fraction
		}, box2d.MakeB2Vec2(x1, y1), box2d.MakeB2Vec2(x2, y2))
		if ok != wantOK || got != want {
			t.Fatalf("ray %d (%v,%v)→(%v,%v): %+v %v, box2d %+v %v", i, x1, y1, x2, y2, got, ok, want, wantOK)
		}
		if ok {
			hits++
		}
	}
	if hits < 300 {
		t.Fatalf("only %d of 1000 rays hit: the test proves little", hits)
	}
}

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

// TestCastAmongCallsAsCastRay casts short rays through a field of boxes,
// circles and a chain, most of them down and up (as the ground probes
// are), each both ways: walking the tree (castRay) and among the leaves
// of a box around the ray (castAmong). The callback, which ignores some
// fixtures, clips at others and stops at a few, must be called with the
// same fixtures, fractions and normals in the same order.
func TestCastAmongCallsAsCastRay(t *testing.T) {
	w, s := benchField(t, 60)
	if err := w.Add(entity.ID{Slot: 500, Gen: 1}, def(entity.Static, chain(
		entity.Vec2{X: -20, Y: 3}, entity.Vec2{X: -5, Y: 6}, entity.Vec2{X: 5, Y: 2}, entity.Vec2{X: 20, Y: 7})),
		entity.Identity, entity.Rigidbody{}); err != nil {
		t.Fatal(err)
	}
	steps(w, s, 30)
	type call struct {
		f        *box2d.B2Fixture
		fraction float64
		normal   box2d.B2Vec2
	}
	rng := rand.New(rand.NewPCG(3, 5))
	calls := 0
	for i := range 4000 {
		x1, y1 := rng.Float64()*56-28, rng.Float64()*8
		dx, dy := 0.0, -rng.Float64()*4
		switch i % 4 {
		case 1:
			dy = -dy
		case 2:
			dx, dy = rng.Float64()*6-3, rng.Float64()*6-3
		}
		p1, p2 := box2d.MakeB2Vec2(x1, y1), box2d.MakeB2Vec2(x1+dx, y1+dy)
		record := func(into *[]call) rayReport {
			return func(f *box2d.B2Fixture, fraction float64, n box2d.B2Vec2) float64 {
				*into = append(*into, call{f, fraction, n})
				switch (len(*into) + i) % 5 {
				case 0:
					return -1
				case 1:
					return 1
				case 2:
					if i%7 == 0 {
						return 0
					}
				}
				return fraction
			}
		}
		var want, got []call
		w.castRay(p1, p2, record(&want))
		area := box2d.B2AABB{
			LowerBound: box2d.MakeB2Vec2(min(p1.X, p2.X)-1e-6-rng.Float64(), min(p1.Y, p2.Y)-1e-6-rng.Float64()),
			UpperBound: box2d.MakeB2Vec2(max(p1.X, p2.X)+1e-6+rng.Float64(), max(p1.Y, p2.Y)+1e-6+rng.Float64()),
		}
		w.castAmong(w.leavesIn(area), p1, p2, record(&got))
		if len(got) != len(want) {
			t.Fatalf("ray %d: %d calls, castRay %d", i, len(got), len(want))
		}
		for j := range got {
			if got[j] != want[j] {
				t.Fatalf("ray %d call %d: %+v, castRay %+v", i, j, got[j], want[j])
			}
		}
		calls += len(got)
	}
	if calls < 1000 {
		t.Fatalf("only %d calls in 4000 rays: the test proves little", calls)
	}
	t.Logf("4000 rays, %d calls alike", calls)
}

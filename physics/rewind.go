package physics

import (
	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// Moved says where some bodies stand for a query instead of where the
// world has them: lag compensation asks its questions of the past by
// naming the players' past poses here, and the world itself is never
// touched. Moving box2d bodies there and back would re-insert their
// broad-phase proxies with new fattened bounds, which changes the order
// contacts are found in and so the bits of every later step: the server
// would stop computing what its clients predict.
type Moved map[entity.ID]entity.Transform

// RayCastMoved is RayCast with the bodies in moved standing at the poses
// it gives (their own fixtures, in the given position and angle) instead
// of where the world has them. With moved empty it is RayCast.
func (w *World) RayCastMoved(x1, y1, x2, y2 float64, ignore entity.ID, moved Moved) (Hit, bool) {
	if len(moved) == 0 {
		return w.RayCast(x1, y1, x2, y2, ignore)
	}
	dx, dy := x2-x1, y2-y1
	if !finite(x1, y1, x2, y2) || !(dx*dx+dy*dy > 0) {
		return Hit{}, false
	}
	var hit Hit
	found := false
	p1, p2 := box2d.MakeB2Vec2(x1, y1), box2d.MakeB2Vec2(x2, y2)
	w.castRay(p1, p2, func(f *box2d.B2Fixture, fraction float64, n box2d.B2Vec2) float64 {
		id := w.entityOf(f.M_body)
		if _, away := moved[id]; away || f.M_isSensor || (!ignore.IsNone() && id == ignore) {
			return -1
		}
		p := hitPoint(p1, p2, fraction)
		hit = Hit{Entity: id, X: p.X, Y: p.Y, NX: n.X, NY: n.Y, Fraction: fraction}
		found = true
		return fraction
	})

	input := box2d.B2RayCastInput{P1: box2d.MakeB2Vec2(x1, y1), P2: box2d.MakeB2Vec2(x2, y2), MaxFraction: 1}
	if found {
		input.MaxFraction = hit.Fraction
	}
	// Slot order, so that of two exactly equal fractions the same body
	// wins on every run.
	for _, r := range w.order {
		t, ok := moved[r.id]
		if !ok || r.id == ignore {
			continue
		}
		xf := poseTransform(t)
		for f := r.b.GetFixtureList(); f != nil; f = f.GetNext() {
			if f.IsSensor() {
				continue
			}
			s := f.GetShape()
			for child := 0; child < s.GetChildCount(); child++ {
				out := &w.rayOut // a local would go to the heap through the shape interface
				*out = box2d.B2RayCastOutput{}
				if !s.RayCast(out, input, xf, child) { // only hits nearer than MaxFraction
					continue
				}
				input.MaxFraction = out.Fraction
				hit = Hit{Entity: r.id, X: x1 + dx*out.Fraction, Y: y1 + dy*out.Fraction,
					NX: out.Normal.X, NY: out.Normal.Y, Fraction: out.Fraction}
				found = true
			}
		}
	}
	return hit, found
}

// QueryAABBMoved is QueryAABB with the bodies in moved standing at the
// poses it gives instead of where the world has them.
func (w *World) QueryAABBMoved(minX, minY, maxX, maxY float64, moved Moved, fn func(entity.ID) bool) {
	if len(moved) == 0 {
		w.QueryAABB(minX, minY, maxX, maxY, fn)
		return
	}
	if !finite(minX, minY, maxX, maxY) || !(minX <= maxX && minY <= maxY) {
		return
	}
	ids := w.takeScratch()
	// Everything not moved, as the world has it.
	w.QueryAABB(minX, minY, maxX, maxY, func(id entity.ID) bool {
		if _, away := moved[id]; !away {
			ids = append(ids, id)
		}
		return true
	})
	box := box2d.MakeB2PolygonShape()
	box.SetAsBox((maxX-minX)/2, (maxY-minY)/2)
	box.M_radius = 0
	boxXf := box2d.MakeB2Transform()
	boxXf.P = box2d.MakeB2Vec2((minX+maxX)/2, (minY+maxY)/2)
	boxXf.Q.SetIdentity()
	for _, r := range w.order {
		t, ok := moved[r.id]
		if !ok {
			continue
		}
		xf := poseTransform(t)
	fixtures:
		for f := r.b.GetFixtureList(); f != nil; f = f.GetNext() {
			s := f.GetShape()
			for child := 0; child < s.GetChildCount(); child++ {
				if overlap(s, child, &box, 0, xf, boxXf) {
					ids = append(ids, r.id)
					break fixtures
				}
			}
		}
	}
	w.visit(ids, fn)
}

func poseTransform(t entity.Transform) box2d.B2Transform {
	xf := box2d.MakeB2Transform()
	xf.Set(box2d.MakeB2Vec2(t.X, t.Y), t.Angle)
	return xf
}

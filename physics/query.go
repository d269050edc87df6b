package physics

import (
	"slices"

	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// Hit is where a ray met a fixture.
type Hit struct {
	Entity   entity.ID // the entity whose fixture was hit
	X, Y     float64   // the point hit, in metres
	NX, NY   float64   // the unit surface normal there, facing the ray
	Fraction float64   // the share of the segment travelled, 0..1
}

// RayCast returns the closest non-sensor fixture hit on the segment from
// (x1, y1) to (x2, y2), skipping every fixture of ignore (pass entity.None to
// skip nothing). A ray starting inside a fixture does not hit that fixture.
// It reports false for no hit and for a zero-length or non-finite segment.
func (w *World) RayCast(x1, y1, x2, y2 float64, ignore entity.ID) (Hit, bool) {
	dx, dy := x2-x1, y2-y1
	if !finite(x1, y1, x2, y2) || !(dx*dx+dy*dy > 0) {
		return Hit{}, false // box2d asserts on a zero-length ray
	}
	var hit Hit
	found := false
	// The walk clips the ray to each returned fraction, so every later
	// report is at least as close: the last one kept is the closest.
	p1, p2 := box2d.MakeB2Vec2(x1, y1), box2d.MakeB2Vec2(x2, y2)
	w.castRay(p1, p2, func(f *box2d.B2Fixture, fraction float64, n box2d.B2Vec2) float64 {
		id := w.entityOf(f.M_body)
		if f.M_isSensor || (!ignore.IsNone() && id == ignore) {
			return -1 // skip this fixture, keep the ray as it is
		}
		p := hitPoint(p1, p2, fraction)
		hit = Hit{Entity: id, X: p.X, Y: p.Y, NX: n.X, NY: n.Y, Fraction: fraction}
		found = true
		return fraction
	})
	return hit, found
}

// hitPoint is the point at fraction along p1→p2, computed as
// B2World.RayCast computes the point it reports.
func hitPoint(p1, p2 box2d.B2Vec2, fraction float64) box2d.B2Vec2 {
	return box2d.B2Vec2Add(box2d.B2Vec2MulScalar(1.0-fraction, p1), box2d.B2Vec2MulScalar(fraction, p2))
}

// QueryAABB calls fn once for each entity with a fixture that overlaps the
// box [minX, maxX]×[minY, maxY], sensors included, in slot order, until fn
// returns false. box2d's broad phase answers with fattened bounds; each
// candidate is confirmed with an exact shape overlap test against the box
// (polygon fixtures count their 1 cm collision skin). fn may call back into
// w, including Add and Remove. An empty or non-finite box finds nothing.
func (w *World) QueryAABB(minX, minY, maxX, maxY float64, fn func(entity.ID) bool) {
	if !finite(minX, minY, maxX, maxY) || !(minX <= maxX && minY <= maxY) {
		return
	}
	box := box2d.MakeB2PolygonShape()
	center := box2d.MakeB2Vec2((minX+maxX)/2, (minY+maxY)/2)
	box.SetAsBox((maxX-minX)/2, (maxY-minY)/2)
	box.M_radius = 0 // the query box has no skin: exactly the box asked for
	boxXf := box2d.MakeB2Transform()
	boxXf.P = center
	boxXf.Q.SetIdentity()

	aabb := box2d.MakeB2AABB()
	aabb.LowerBound = box2d.MakeB2Vec2(minX, minY)
	aabb.UpperBound = box2d.MakeB2Vec2(maxX, maxY)

	ids := w.takeScratch()
	bp := &w.b2.M_contactManager.M_broadPhase
	// The broad phase is queried directly (not World.QueryAABB) to learn
	// which child of a chain fixture the proxy stands for.
	bp.Query(func(proxyID int) bool {
		proxy := bp.GetUserData(proxyID).(*box2d.B2FixtureProxy)
		f := proxy.Fixture
		if overlap(f.GetShape(), proxy.ChildIndex, &box, 0,
			f.GetBody().GetTransform(), boxXf) {
			ids = append(ids, w.entityOf(f.GetBody()))
		}
		return true
	}, aabb)
	w.visit(ids, fn)
}

// Touching calls fn once for each entity with a touching contact with id's
// body, sensors included on either side (that is how a pickup sees a
// player), in slot order, until fn returns false. Contacts are as the last
// Step left them. Like box2d, a static or kinematic body never touches
// another static or kinematic one. fn may call back into w.
func (w *World) Touching(id entity.ID, fn func(entity.ID) bool) {
	r, ok := w.byID[id]
	if !ok {
		return
	}
	ids := w.takeScratch()
	for e := r.b.GetContactList(); e != nil; e = e.Next {
		if e.Contact.IsTouching() {
			ids = append(ids, w.entityOf(e.Other))
		}
	}
	w.visit(ids, fn)
}

// visit sorts ids into slot order, drops duplicates and unknown bodies, and
// calls fn for each until it returns false. It hands ids back to the
// scratch buffer afterwards; the callbacks run after box2d has returned, so
// they may change the world.
func (w *World) visit(ids []entity.ID, fn func(entity.ID) bool) {
	slices.SortFunc(ids, idCmp)
	ids = slices.Compact(ids)
	for _, id := range ids {
		if id.IsNone() {
			continue
		}
		if !fn(id) {
			break
		}
	}
	w.scratch = ids[:0]
}

// takeScratch lends out the query buffer. A query nested in a callback finds
// it taken (nil) and grows its own.
func (w *World) takeScratch() []entity.ID {
	ids := w.scratch[:0]
	w.scratch = nil
	return ids
}

package physics

import (
	"math"

	"github.com/ByteArena/box2d"
)

// castRay walks box2d's broad-phase tree along p1→p2 exactly as
// B2World.RayCast does — the same node order, the same clipping — but
// without allocating: box2d's own walk makes a growable stack of boxed
// ints and two closures per cast, which the character controller's three
// ground probes a tick, and every shot a behavior casts (RayCast,
// RayCastMoved), turned into most of a server tick's garbage.
//
// report is called for each fixture the ray meets, with where; it returns
// as box2d's callbacks do: -1 to ignore the fixture, 0 to stop, a fraction
// to clip the ray there (the closest so far), or 1 to go on unclipped.
func (w *World) castRay(p1, p2 box2d.B2Vec2, report func(f *box2d.B2Fixture, fraction float64, normal box2d.B2Vec2) float64) {
	tree := &w.b2.M_contactManager.M_broadPhase.M_tree
	r := box2d.B2Vec2Sub(p2, p1)
	if r.LengthSquared() <= 0 {
		return
	}
	r.Normalize()
	v := box2d.B2Vec2CrossScalarVector(1.0, r)
	absV := box2d.B2Vec2Abs(v)
	maxFraction := 1.0
	var segment box2d.B2AABB
	clip := func() {
		t := box2d.B2Vec2Add(p1, box2d.B2Vec2MulScalar(maxFraction, box2d.B2Vec2Sub(p2, p1)))
		segment.LowerBound = box2d.B2Vec2Min(p1, t)
		segment.UpperBound = box2d.B2Vec2Max(p1, t)
	}
	clip()
	stack := append(w.rayStack[:0], tree.M_root)
	defer func() { w.rayStack = stack[:0] }()
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if id == box2d.B2_nullNode {
			continue
		}
		node := &tree.M_nodes[id]
		if !box2d.B2TestOverlapBoundingBoxes(node.Aabb, segment) {
			continue
		}
		c, h := node.Aabb.GetCenter(), node.Aabb.GetExtents()
		if math.Abs(box2d.B2Vec2Dot(v, box2d.B2Vec2Sub(p1, c)))-box2d.B2Vec2Dot(absV, h) > 0 {
			continue
		}
		if !node.IsLeaf() {
			stack = append(stack, node.Child1, node.Child2)
			continue
		}
		proxy := node.UserData.(*box2d.B2FixtureProxy)
		input := box2d.B2RayCastInput{P1: p1, P2: p2, MaxFraction: maxFraction}
		// The hit is read before report runs, which may cast again.
		out := &w.rayOut
		*out = box2d.B2RayCastOutput{}
		value := maxFraction
		if proxy.Fixture.RayCast(out, input, proxy.ChildIndex) {
			value = report(proxy.Fixture, out.Fraction, out.Normal)
		}
		if value == 0 {
			return
		}
		if value > 0 {
			maxFraction = value
			clip()
		}
	}
}

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
func (w *World) castRay(p1, p2 box2d.B2Vec2, report rayReport) {
	tree := &w.b2.M_contactManager.M_broadPhase.M_tree
	ray, ok := newRayWalk(p1, p2)
	if !ok {
		return
	}
	stack := append(w.rayStack[:0], tree.M_root)
	defer func() { w.rayStack = stack[:0] }()
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if id == box2d.B2_nullNode {
			continue
		}
		node := &tree.M_nodes[id]
		if !ray.meets(&node.Aabb) {
			continue
		}
		if node.Child1 != box2d.B2_nullNode { // not a leaf (IsLeaf copies the node)
			stack = append(stack, node.Child1, node.Child2)
			continue
		}
		if !w.castAt(&ray, node, report) {
			return
		}
	}
}

// rayReport is castRay's callback (see castRay).
type rayReport = func(f *box2d.B2Fixture, fraction float64, normal box2d.B2Vec2) float64

// rayWalk is a ray on its way through the tree: where it starts and ends,
// the fraction of it still looked at and the box around that part, and
// its normal for box2d's separating-axis test.
type rayWalk struct {
	p1, p2      box2d.B2Vec2
	v, absV     box2d.B2Vec2
	maxFraction float64
	segment     box2d.B2AABB
}

// newRayWalk returns the walk of p1→p2, or false for a ray of no length.
func newRayWalk(p1, p2 box2d.B2Vec2) (rayWalk, bool) {
	r := box2d.B2Vec2Sub(p2, p1)
	if r.LengthSquared() <= 0 {
		return rayWalk{}, false
	}
	r.Normalize()
	v := box2d.B2Vec2CrossScalarVector(1.0, r)
	ray := rayWalk{p1: p1, p2: p2, v: v, absV: box2d.B2Vec2Abs(v), maxFraction: 1}
	ray.clip()
	return ray, true
}

// clip sets the segment's box to the part of the ray up to maxFraction.
func (r *rayWalk) clip() {
	t := box2d.B2Vec2Add(r.p1, box2d.B2Vec2MulScalar(r.maxFraction, box2d.B2Vec2Sub(r.p2, r.p1)))
	// box2d's B2Vec2Min and B2Vec2Max, by flo and fhi.
	r.segment.LowerBound = box2d.B2Vec2{X: flo(r.p1.X, t.X), Y: flo(r.p1.Y, t.Y)}
	r.segment.UpperBound = box2d.B2Vec2{X: fhi(r.p1.X, t.X), Y: fhi(r.p1.Y, t.Y)}
}

// meets is box2d's test of whether the ray's walk enters a tree node with
// box b: b overlaps the segment's box, and the ray's line passes through b.
func (r *rayWalk) meets(b *box2d.B2AABB) bool {
	if !overlaps(b, &r.segment) {
		return false
	}
	c, h := b.GetCenter(), b.GetExtents()
	return math.Abs(box2d.B2Vec2Dot(r.v, box2d.B2Vec2Sub(r.p1, c)))-box2d.B2Vec2Dot(r.absV, h) <= 0
}

// castAt casts the ray at the fixture of leaf, which the walk has entered,
// reports a hit and clips the ray as report says. It returns false when
// report stops the cast.
func (w *World) castAt(r *rayWalk, leaf *box2d.B2TreeNode, report rayReport) bool {
	proxy := leaf.UserData.(*box2d.B2FixtureProxy)
	input := box2d.B2RayCastInput{P1: r.p1, P2: r.p2, MaxFraction: r.maxFraction}
	// The hit is read before report runs, which may cast again.
	out := &w.rayOut
	*out = box2d.B2RayCastOutput{}
	value := r.maxFraction
	if castFixture(out, input, proxy.Fixture, proxy.ChildIndex) {
		value = report(proxy.Fixture, out.Fraction, out.Normal)
	}
	if value == 0 {
		return false
	}
	if value > 0 {
		r.maxFraction = value
		r.clip()
	}
	return true
}

// leavesIn lists, in the order castRay's walk would meet them, the tree's
// leaves whose fat boxes overlap box, into the World's leaf scratch.
func (w *World) leavesIn(box box2d.B2AABB) []*box2d.B2TreeNode {
	tree := &w.b2.M_contactManager.M_broadPhase.M_tree
	leaves := w.rayLeaves[:0]
	stack := append(w.rayStack[:0], tree.M_root)
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if id == box2d.B2_nullNode {
			continue
		}
		node := &tree.M_nodes[id]
		a := &node.Aabb
		if box.LowerBound.X > a.UpperBound.X || box.LowerBound.Y > a.UpperBound.Y ||
			a.LowerBound.X > box.UpperBound.X || a.LowerBound.Y > box.UpperBound.Y {
			continue
		}
		if node.Child1 != box2d.B2_nullNode { // not a leaf (IsLeaf copies the node)
			stack = append(stack, node.Child1, node.Child2)
			continue
		}
		leaves = append(leaves, node)
	}
	w.rayStack = stack[:0]
	w.rayLeaves = leaves
	return leaves
}

// castAmong casts p1→p2 as castRay does, looking only at leaves: every
// leaf castRay's walk would cast at, in its order, among others (leavesIn
// of a box holding the ray). A leaf is cast at only if castRay's walk
// would have entered it, so report is called as castRay calls it: a node
// the walk passes by holds only leaves it would pass by too, since the
// segment's box only shrinks as the ray is clipped.
func (w *World) castAmong(leaves []*box2d.B2TreeNode, p1, p2 box2d.B2Vec2, report rayReport) {
	ray, ok := newRayWalk(p1, p2)
	if !ok {
		return
	}
	for _, leaf := range leaves {
		if ray.meets(&leaf.Aabb) && !w.castAt(&ray, leaf, report) {
			return
		}
	}
}

// castFixture is B2Fixture.RayCast for child of f, placed where its body
// stands. box2d's copies the fixture and the body to reach the body's
// transform, and a polygon's copies the polygon; a polygon is cast here
// (castPolygon), any other shape by box2d.
func castFixture(out *box2d.B2RayCastOutput, in box2d.B2RayCastInput, f *box2d.B2Fixture, child int) bool {
	xf := &f.M_body.M_xf
	if poly, ok := f.M_shape.(*box2d.B2PolygonShape); ok {
		return castPolygon(out, &in, poly, xf)
	}
	return f.M_shape.RayCast(out, in, *xf, child)
}

// castPolygon is B2PolygonShape.RayCast, the same arithmetic in the same
// order: the ray clipped by each edge's half-plane in the polygon's
// frame, and the hit where it enters.
func castPolygon(out *box2d.B2RayCastOutput, in *box2d.B2RayCastInput, poly *box2d.B2PolygonShape, xf *box2d.B2Transform) bool {
	// The ray in the polygon's frame.
	p1 := box2d.B2RotVec2MulT(xf.Q, box2d.B2Vec2Sub(in.P1, xf.P))
	p2 := box2d.B2RotVec2MulT(xf.Q, box2d.B2Vec2Sub(in.P2, xf.P))
	dx, dy := p2.X-p1.X, p2.Y-p1.Y

	lower, upper := 0.0, in.MaxFraction
	index := -1
	for i := range poly.M_count {
		n, v := &poly.M_normals[i], &poly.M_vertices[i]
		numerator := n.X*(v.X-p1.X) + n.Y*(v.Y-p1.Y)
		denominator := n.X*dx + n.Y*dy
		if denominator == 0.0 {
			if numerator < 0.0 {
				return false
			}
		} else if denominator < 0.0 && numerator < lower*denominator {
			// The segment enters this half-plane: lower rises.
			lower = numerator / denominator
			index = i
		} else if denominator > 0.0 && numerator < upper*denominator {
			// The segment leaves it: upper falls.
			upper = numerator / denominator
		}
		if upper < lower {
			return false
		}
	}
	if index >= 0 {
		out.Fraction = lower
		out.Normal = box2d.B2RotVec2Mul(xf.Q, poly.M_normals[index])
		return true
	}
	return false
}

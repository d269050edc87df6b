package physics

import (
	"math"

	"github.com/ByteArena/box2d"
)

// apartMargin is how much further apart than box2d's time-of-impact query
// would call touching two shapes must stay for apart to skip the query, in
// metres. The bound apart works out is exact up to rounding, some 1e-13 m
// in a hall a few hundred metres long; a tenth of a millimetre leaves that
// far behind and still lets a body resting on a floor (its shapes' cores
// 15 mm apart, box2d's target 6.25 mm) through.
const apartMargin = 1e-4

// apart reports whether the two shapes of in stay, over the whole of their
// sweeps, further apart than B2TimeOfImpact's target distance plus its
// tolerance (and apartMargin). Then that query can only answer that they
// do not touch before the step's end: every distance it computes is
// between two points of the shapes, so no less than the true distance.
// m is the pair's contact manifold, whose normal it tries as an axis.
//
// The bound is a separating axis: along a fixed direction n, the gap
// between the shapes' projections is a lower bound on their distance. A
// sweep moves each body's centre in a straight line and turns it at an
// even rate; were it to move every vertex in a straight line, the gap
// along n (the least of linear functions less the greatest) would be
// concave in time, so no smaller than at one of the sweep's two ends. The
// turn takes a vertex off that line by at most the angle swept times the
// vertex's distance from the centre, which is taken off the bound. Axes
// tried: x, y and the manifold's normal, each both ways.
func (w *World) apart(in *box2d.B2TOIInput, m *box2d.B2Manifold) bool {
	pa, pb := &in.ProxyA, &in.ProxyB
	target := math.Max(box2d.B2_linearSlop, pa.M_radius+pb.M_radius-3*box2d.B2_linearSlop)
	need := target + 0.25*box2d.B2_linearSlop + apartMargin + sweepSlack(&in.SweepA, pa) + sweepSlack(&in.SweepB, pb)

	var ends [2][2]box2d.B2Transform // [end][shape]
	ends[0][0], ends[1][0] = sweepEnds(&in.SweepA, &w.turns)
	ends[0][1], ends[1][1] = sweepEnds(&in.SweepB, &w.turns)

	// The manifold's normal first: for a pair in touch, the one axis that
	// shows it apart.
	axes := [3]box2d.B2Vec2{{}, {Y: 1}, {X: 1}}
	first := 1
	if m != nil && m.PointCount > 0 {
		switch m.Type {
		case box2d.B2Manifold_Type.E_faceA:
			axes[0] = box2d.B2RotVec2Mul(ends[1][0].Q, m.LocalNormal)
			first = 0
		case box2d.B2Manifold_Type.E_faceB:
			axes[0] = box2d.B2RotVec2Mul(ends[1][1].Q, m.LocalNormal)
			first = 0
		default: // circles: the line between the centres
			d := box2d.B2Vec2Sub(box2d.B2TransformVec2Mul(ends[1][1], m.Points[0].LocalPoint),
				box2d.B2TransformVec2Mul(ends[1][0], m.LocalPoint))
			if l := d.Length(); l > box2d.B2_epsilon {
				axes[0] = box2d.B2Vec2MulScalar(1/l, d)
				first = 0
			}
		}
	}
	for _, axis := range axes[first:] {
		// The gap along axis (B beyond A) and along -axis (A beyond B),
		// the least of each over the two ends.
		ahead, behind := math.Inf(1), math.Inf(1)
		for _, xf := range ends {
			loA, hiA := project(pa, xf[0], axis)
			loB, hiB := project(pb, xf[1], axis)
			if g := loB - hiA; g < ahead {
				ahead = g
			}
			if g := loA - hiB; g < behind {
				behind = g
			}
		}
		if ahead > need || behind > need {
			return true
		}
	}
	return false
}

// sweepEnds returns the transforms at the two ends of s, as
// B2Sweep.GetTransform gives them at 0 and 1, its rotations from turns.
func sweepEnds(s *box2d.B2Sweep, turns *rotCache) (from, to box2d.B2Transform) {
	to.Q = turns.of(s.A)
	if s.A0 == s.A {
		from.Q = to.Q
	} else {
		from.Q = turns.of(s.A0)
	}
	from.P = box2d.B2Vec2Sub(s.C0, box2d.B2RotVec2Mul(from.Q, s.LocalCenter))
	to.P = box2d.B2Vec2Sub(s.C, box2d.B2RotVec2Mul(to.Q, s.LocalCenter))
	return from, to
}

// sweepSlack bounds how far s's turn takes a vertex of p off the straight
// line between where it stands at the sweep's two ends.
func sweepSlack(s *box2d.B2Sweep, p *box2d.B2DistanceProxy) float64 {
	turn := math.Abs(s.A - s.A0)
	if turn == 0 {
		return 0
	}
	far := 0.0
	for _, v := range p.M_vertices[:p.M_count] {
		if d := box2d.B2Vec2Sub(v, s.LocalCenter).LengthSquared(); d > far {
			far = d
		}
	}
	return turn * math.Sqrt(far)
}

// project returns the least and greatest of p's vertices, placed by xf,
// along axis.
func project(p *box2d.B2DistanceProxy, xf box2d.B2Transform, axis box2d.B2Vec2) (lo, hi float64) {
	local := box2d.B2RotVec2MulT(xf.Q, axis)
	base := box2d.B2Vec2Dot(xf.P, axis)
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range p.M_vertices[:p.M_count] {
		// Compared by hand: math.Min and math.Max are calls, costlier
		// than the products, and a NaN here only makes apart say no.
		d := v.X*local.X + v.Y*local.Y
		if d < lo {
			lo = d
		}
		if d > hi {
			hi = d
		}
	}
	return base + lo, base + hi
}

// rot is B2Rot.Set(angle), the same bits, without the sine and cosine of
// an angle of zero (a body that never turns: static, fixed rotation), and
// with both from math.Sincos: it reduces the angle once for the two, by
// math.Sin's and math.Cos's own steps and polynomials, so to their bits
// (they differ only in which NaN a NaN angle gives).
func rot(angle float64) box2d.B2Rot {
	if angle == 0 && !math.Signbit(angle) {
		return box2d.B2Rot{S: 0, C: 1}
	}
	s, c := math.Sincos(angle)
	return box2d.B2Rot{S: s, C: c}
}

// rotCache remembers the rotations of the angles rot turned last, 1024 of
// them by a hash of the angle's bits: a body at rest, or one the position
// iterations do not turn, is turned at the same angle again and again in
// a step (its contacts' set-up and iterations, its transform and its
// fixtures' boxes, its time-of-impact sweeps) and from one step to the
// next. rot is a function of the angle's bits alone, so what the cache
// gives is rot's answer, to the bit. The zero value is empty and ready.
type rotCache [1 << rotCacheBits]struct {
	angle uint64 // its bits
	q     box2d.B2Rot
	ok    bool
}

const rotCacheBits = 10

// of returns rot(angle).
func (c *rotCache) of(angle float64) box2d.B2Rot {
	bits := math.Float64bits(angle)
	e := &c[(bits*0x9E3779B97F4A7C15)>>(64-rotCacheBits)]
	if !e.ok || e.angle != bits {
		e.q, e.angle, e.ok = rot(angle), bits, true
	}
	return e.q
}

package physics

import (
	"fmt"
	"math"

	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// The geometry rules. box2d asserts (panics) on geometry it cannot handle,
// so CheckShape refuses such shapes first, with a margin: whatever it
// accepts, box2d takes without asserting and keeps as given. They are the
// one set of rules for shapes: Add applies them, and the host applies them
// to scene and prefab files, adding only rules about the file format.
const (
	// minSize is the smallest box side, circle radius, chain edge and
	// distance between two polygon points: box2d's linear slop (5 mm), its
	// contact tolerance. box2d welds polygon points closer than half of it
	// and asserts that chain edges are longer than it; a smaller box or
	// circle is meaningless under the slop, and its mass vanishes in
	// rounding next to the body's.
	minSize = box2d.B2_linearSlop

	// minEdge2 is the smallest squared chain edge, checked on the points
	// box2d is given (offset added) by box2d's own formula. It is minSize²
	// and a hair (a relative 1e-9): box2d asserts on edges not longer than
	// the slop, and the hair keeps a differently rounded (fused) evaluation
	// of the same formula from landing on the other side of the line.
	minEdge2 = box2d.B2_linearSlop * box2d.B2_linearSlop * (1 + 1e-9)

	// minHeight is how far each polygon point must lie inside the line of
	// every edge it is not on: with it the polygon is strictly convex (no
	// reflex or straight corners, no self-crossing) and has area, so
	// box2d's convex hull keeps every point.
	minHeight = 0.5 * box2d.B2_linearSlop

	// maxPolygonPoints is box2d's b2_maxPolygonVertices.
	maxPolygonPoints = box2d.B2_maxPolygonVertices

	// maxShapeExtent bounds a shape's offset, a box side, a circle radius
	// and a polygon point's coordinates. box2d is tuned for moving parts
	// of 0.1 to 10 m, and body inertia is found by subtracting two numbers
	// that grow with the square of the distance from the body's origin:
	// within this bound the difference left for a 5 mm shape is still far
	// above the rounding, so box2d's inertia assertion holds.
	maxShapeExtent = 1000.0

	// maxChainExtent bounds a chain point's coordinates. Chains are level
	// geometry and carry no mass, so they may reach further than other
	// shapes; a million metres is far past any level box2d handles well,
	// and small enough that products of two coordinates stay finite.
	maxChainExtent = 1e6

	// maxMaterial bounds density (kg/m²), friction and restitution: with
	// it the mass and inertia of the largest shape stay finite.
	maxMaterial = 1e6

	// minDensity is the smallest density other than 0. box2d's inertia of
	// a lighter shape sinks into subnormal numbers, whose rounding trips
	// its inertia assertion.
	minDensity = 1e-6
)

// ShapeError says what is wrong with a shape, in words for a person writing
// it in a scene or prefab file. CheckShape returns it, and Add wraps it.
type ShapeError struct {
	// Key is the shape's key at fault, as a scene file spells it: "box",
	// "circle", "polygon" or "chain" for the geometry, or "offset",
	// "angle", "density", "friction" or "restitution"; "" for the shape as
	// a whole (an unknown kind).
	Key string
	// Point is the index in Shape.Points of the point at fault, from 0, or
	// -1 when the fault is not one point's.
	Point int
	// Reason says what is wrong and, where it helps, how to put it right.
	// It counts points from 1, as a person does ("point 3").
	Reason string
}

// Error formats e as "key: reason", or the reason alone for the shape as a
// whole.
func (e *ShapeError) Error() string {
	if e.Key == "" {
		return e.Reason
	}
	return e.Key + ": " + e.Reason
}

func shapeErr(key string, point int, format string, args ...any) *ShapeError {
	return &ShapeError{Key: key, Point: point, Reason: fmt.Sprintf(format, args...)}
}

// CheckShape reports what is wrong with s, or nil when box2d takes it as
// given. The rules:
//
//   - Kind is Box, Circle, Polygon or Chain.
//   - Offset is finite and within 1000 m of the body's origin on each axis.
//   - Density, Friction and Restitution are 0..1e6; a density other than 0
//     is at least 1e-6 kg/m².
//   - Angle is finite (it turns a box; other kinds ignore it).
//   - A box's sides and a circle's radius are 5 mm..1000 m (5 mm is box2d's
//     linear slop, the smallest length it resolves).
//   - A polygon has 3 to 8 points, each coordinate within 1000 m, no two
//     within 5 mm of each other, forming a convex outline listed once
//     round, in either winding (box2d orders the points itself), with every
//     point at least 2.5 mm inside the line of every edge it is not on (no
//     straight or nearly straight corners, no slivers, no self-crossing).
//   - A chain has at least 2 points (3 for a loop), each coordinate within
//     1e6 m, with every edge longer than 5 mm, including a loop's closing
//     edge.
//   - A sensor is not one-way.
//
// Loop, Category, Mask and Group are not checked (Loop matters to chains
// only; every filter is valid).
func CheckShape(s *entity.Shape) *ShapeError {
	if s.Kind > entity.Chain {
		return shapeErr("", -1, "%v is not a shape: box, circle, polygon or chain", s.Kind)
	}
	if !within(s.Offset.X, maxShapeExtent) || !within(s.Offset.Y, maxShapeExtent) {
		return shapeErr("offset", -1, "[%v, %v] is out of range: a shape is at most %g m from its body's origin on each axis", s.Offset.X, s.Offset.Y, maxShapeExtent)
	}
	for _, f := range []struct {
		key string
		v   float64
	}{{"density", s.Density}, {"friction", s.Friction}, {"restitution", s.Restitution}} {
		if !(f.v >= 0 && f.v <= maxMaterial) {
			return shapeErr(f.key, -1, "%v is out of range (0..%g)", f.v, maxMaterial)
		}
	}
	if s.Density != 0 && s.Density < minDensity {
		return shapeErr("density", -1, "%v is too small for box2d, which loses the mass of so light a shape in rounding; use at least %g kg/m², or 0 for a shape that adds no mass", s.Density, minDensity)
	}
	if !finite(s.Angle) {
		return shapeErr("angle", -1, "must be a finite number, not %v", s.Angle)
	}
	if s.OneWay && s.Sensor {
		return shapeErr("oneWay", -1, "a sensor stops nothing, so it cannot stop things from one side only: leave out oneWay or sensor")
	}
	switch s.Kind {
	case entity.Box:
		if !(s.W >= minSize && s.W <= maxShapeExtent && s.H >= minSize && s.H <= maxShapeExtent) {
			return shapeErr("box", -1, "[%v, %v]: both sides must be %g..%g m (box2d cannot resolve anything smaller than %s)", s.W, s.H, minSize, maxShapeExtent, mm(minSize))
		}
	case entity.Circle:
		if !(s.Radius >= minSize && s.Radius <= maxShapeExtent) {
			return shapeErr("circle", -1, "radius %v must be %g..%g m (box2d cannot resolve anything smaller than %s)", s.Radius, minSize, maxShapeExtent, mm(minSize))
		}
	case entity.Polygon:
		return checkPolygon(s.Points)
	case entity.Chain:
		return checkChain(s.Points, s.Offset, s.Loop)
	}
	return nil
}

// checkPolygon checks that pts is a convex polygon box2d keeps as given, up
// to winding.
func checkPolygon(pts []entity.Vec2) *ShapeError {
	n := len(pts)
	if n < 3 || n > maxPolygonPoints {
		return shapeErr("polygon", -1, "has %s; a polygon has 3 to %d (use several shapes for more)", pointCount(n), maxPolygonPoints)
	}
	for i, p := range pts {
		if !within(p.X, maxShapeExtent) || !within(p.Y, maxShapeExtent) {
			return shapeErr("polygon", i, "point %d [%v, %v] is out of range: a polygon's points are at most %g m from its offset on each axis", i+1, p.X, p.Y, maxShapeExtent)
		}
		for j := range i {
			if dist2(p, pts[j]) <= minSize*minSize {
				return shapeErr("polygon", i, "points %d and %d are closer than %s; box2d would weld them into one", j+1, i+1, mm(minSize))
			}
		}
	}
	// Either winding will do: box2d builds its own counter-clockwise hull.
	// The sign of the area says which way the outline is meant to go round;
	// each corner must then turn that way, clearly: each neighbour of a
	// point at least minHeight inside the line through the point and its
	// other neighbour.
	turn := math.Copysign(1, signedArea(pts))
	for i := range n {
		prev, p, next := pts[(i+n-1)%n], pts[i], pts[(i+1)%n]
		c := turn * cross(prev, p, next)
		if c <= 0 {
			return shapeErr("polygon", i, "is not convex at point %d (the outline turns the other way there, or goes straight on); list a convex outline in order round it, and split a concave one into several shapes", i+1)
		}
		// c is twice the area of the corner's triangle: its height over
		// the longer of the corner's edges is the smaller of the two.
		off, a, b := (i+1)%n, (i+n-1)%n, i
		if dist(p, next) > dist(prev, p) {
			off, a, b = (i+n-1)%n, i, (i+1)%n
		}
		if c <= minHeight*dist(pts[a], pts[b]) {
			return shapeErr("polygon", i, "is almost straight at point %d: point %d is less than %s off the line through points %d and %d; box2d needs a clearly convex outline, so leave point %d out or move it outwards", i+1, off+1, mm(minHeight), a+1, b+1, i+1)
		}
	}
	// With every corner convex, a point inside the line of its own
	// neighbours' edges is inside every edge's, unless the outline goes
	// round more than once, as a star does.
	for i := range n {
		a, b := pts[i], pts[(i+1)%n]
		l := dist(a, b)
		for j := range n {
			if j != i && j != (i+1)%n && turn*cross(a, b, pts[j]) <= minHeight*l {
				return shapeErr("polygon", j, "crosses itself: point %d is not inside the edge from point %d to point %d; list a convex outline once round", j+1, i+1, (i+1)%n+1)
			}
		}
	}
	return nil
}

// checkChain checks that box2d accepts pts, moved by off, as an edge chain.
func checkChain(pts []entity.Vec2, off entity.Vec2, loop bool) *ShapeError {
	n := len(pts)
	switch {
	case loop && n < 3:
		return shapeErr("chain", -1, "has %s; a loop needs at least 3", pointCount(n))
	case n < 2:
		return shapeErr("chain", -1, "has %s; a chain needs at least 2", pointCount(n))
	}
	// Edges are measured as box2d will measure them: between the points
	// it is given, offset added.
	vs := make([]box2d.B2Vec2, n)
	for i, p := range pts {
		if !within(p.X, maxChainExtent) || !within(p.Y, maxChainExtent) {
			return shapeErr("chain", i, "point %d [%v, %v] is out of range (finite, at most %g m on each axis)", i+1, p.X, p.Y, maxChainExtent)
		}
		vs[i] = box2d.MakeB2Vec2(p.X+off.X, p.Y+off.Y)
		if i > 0 && !(box2d.B2Vec2DistanceSquared(vs[i-1], vs[i]) > minEdge2) {
			return shapeErr("chain", i, "points %d and %d are closer than %s; box2d refuses such short edges", i, i+1, mm(minSize))
		}
	}
	if loop && !(box2d.B2Vec2DistanceSquared(vs[n-1], vs[0]) > minEdge2) {
		return shapeErr("chain", n-1, "the last point is closer than %s to the first; loop = true joins them already, so leave the last one out", mm(minSize))
	}
	return nil
}

// within reports whether v is finite and at most limit in size.
func within(v, limit float64) bool { return v >= -limit && v <= limit }

// mm writes a length in metres as millimetres: "5 mm".
func mm(m float64) string { return fmt.Sprintf("%g mm", m*1000) }

// pointCount says "1 point" or "n points".
func pointCount(n int) string {
	if n == 1 {
		return "1 point"
	}
	return fmt.Sprintf("%d points", n)
}

// cross returns the z of (b-a)×(p-a): positive when p is left of a→b.
func cross(a, b, p entity.Vec2) float64 {
	return (b.X-a.X)*(p.Y-a.Y) - (b.Y-a.Y)*(p.X-a.X)
}

// dist returns the distance between a and b.
func dist(a, b entity.Vec2) float64 { return math.Hypot(b.X-a.X, b.Y-a.Y) }

// dist2 returns the squared distance between a and b.
func dist2(a, b entity.Vec2) float64 {
	dx, dy := b.X-a.X, b.Y-a.Y
	return dx*dx + dy*dy
}

// signedArea returns the polygon's area, positive when counter-clockwise,
// summed around its first point to keep the rounding small.
func signedArea(pts []entity.Vec2) float64 {
	var s float64
	for i := 1; i+1 < len(pts); i++ {
		s += cross(pts[0], pts[i], pts[i+1])
	}
	return s / 2
}

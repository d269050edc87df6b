package physics

import (
	"errors"
	"fmt"
	"math"

	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// Geometry limits. box2d asserts (panics) on geometry it cannot handle, so
// Add refuses such shapes first.
const (
	// minBoxSide is the smallest box side: box2d's linear slop, its contact
	// tolerance. Thinner boxes are meaningless under a 1 cm skin, and a
	// vanishing area trips box2d's mass assertion.
	minBoxSide = box2d.B2_linearSlop
	// minEdge is the shortest polygon or chain edge. box2d welds polygon
	// points closer than half the slop and asserts on chain edges not longer
	// than the slop.
	minEdge = box2d.B2_linearSlop
	// minHeight is how far each polygon point must lie inside the line of
	// every edge it is not on: with it the polygon is strictly convex (no
	// reflex or straight corners, no self-crossing) and has area, so box2d's
	// convex hull keeps every point.
	minHeight = 0.5 * box2d.B2_linearSlop
)

// validateShape reports what is wrong with s, or nil. Every shape needs
// finite numbers and non-negative density, friction and restitution; a box
// needs sides of at least minBoxSide; a circle a positive radius; a polygon
// 3 to 8 points, in either winding, forming a strictly convex polygon with
// edges longer than minEdge; a chain at least 2 points (3 for a loop) with
// edges longer than minEdge, including the closing edge of a loop.
func validateShape(s *entity.Shape) error {
	if !finite(s.W, s.H, s.Radius, s.Offset.X, s.Offset.Y, s.Angle,
		s.Density, s.Friction, s.Restitution) {
		return errors.New("non-finite size, offset, angle, density, friction or restitution")
	}
	if s.Density < 0 || s.Friction < 0 || s.Restitution < 0 {
		return errors.New("negative density, friction or restitution")
	}
	for i, p := range s.Points {
		if !finite(p.X, p.Y) {
			return fmt.Errorf("point %d is not finite", i)
		}
	}
	switch s.Kind {
	case entity.Box:
		if !(s.W >= minBoxSide && s.H >= minBoxSide) {
			return fmt.Errorf("box %g×%g: sides must be at least %g m", s.W, s.H, minBoxSide)
		}
	case entity.Circle:
		if !(s.Radius > 0) {
			return fmt.Errorf("circle radius %g must be positive", s.Radius)
		}
	case entity.Polygon:
		return validatePolygon(s.Points)
	case entity.Chain:
		return validateChain(s.Points, s.Loop)
	default:
		return fmt.Errorf("unknown shape kind %v", s.Kind)
	}
	return nil
}

// validatePolygon checks that pts is a strictly convex polygon box2d keeps
// as given (up to winding).
func validatePolygon(pts []entity.Vec2) error {
	n := len(pts)
	if n < 3 || n > box2d.B2_maxPolygonVertices {
		return fmt.Errorf("polygon has %d points, needs 3 to %d", n, box2d.B2_maxPolygonVertices)
	}
	for i := range n {
		if dist(pts[i], pts[(i+1)%n]) <= minEdge {
			return fmt.Errorf("polygon edge %d is not longer than %g m", i, minEdge)
		}
	}
	winding := math.Copysign(1, signedArea(pts))
	for i := range n {
		a, b := pts[i], pts[(i+1)%n]
		l := dist(a, b)
		for j := range n {
			if j == i || j == (i+1)%n {
				continue
			}
			// Signed distance of point j from the line a→b, positive on
			// the inner side for the polygon's winding.
			h := winding * cross(a, b, pts[j]) / l
			if h <= minHeight {
				return fmt.Errorf("polygon is not strictly convex or is degenerate (point %d against edge %d)", j, i)
			}
		}
	}
	return nil
}

// validateChain checks that box2d accepts pts as an edge chain.
func validateChain(pts []entity.Vec2, loop bool) error {
	n := len(pts)
	switch {
	case n < 2:
		return fmt.Errorf("chain has %d points, needs at least 2", n)
	case loop && n < 3:
		return fmt.Errorf("loop chain has %d points, needs at least 3", n)
	}
	edges := n - 1
	if loop {
		edges = n
	}
	for i := range edges {
		if dist(pts[i], pts[(i+1)%n]) <= minEdge {
			return fmt.Errorf("chain edge %d is not longer than %g m", i, minEdge)
		}
	}
	return nil
}

// cross returns the z of (b-a)×(p-a): positive when p is left of a→b.
func cross(a, b, p entity.Vec2) float64 {
	return (b.X-a.X)*(p.Y-a.Y) - (b.Y-a.Y)*(p.X-a.X)
}

// dist returns the distance between a and b.
func dist(a, b entity.Vec2) float64 { return math.Hypot(b.X-a.X, b.Y-a.Y) }

// signedArea returns the polygon's area, positive when counter-clockwise.
func signedArea(pts []entity.Vec2) float64 {
	var s float64
	for i, a := range pts {
		b := pts[(i+1)%len(pts)]
		s += a.X*b.Y - b.X*a.Y
	}
	return s / 2
}

package physics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ByteArena/box2d"
)

// TestRotMatchesSetAngle compares rot with B2Rot.Set bit for bit over
// angles a world meets (small turns, whole turns, negative, near the
// octants' edges) and a few far ones.
func TestRotMatchesSetAngle(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	angles := []float64{0, math.Copysign(0, -1), math.Pi / 4, -math.Pi / 2, 3 * math.Pi, 1e-300, -1e-9, 1e6, -3.5e8}
	for range 200000 {
		angles = append(angles, (rng.Float64()*2-1)*[]float64{0.01, 1, 10, 1000}[rng.IntN(4)])
	}
	for k := range 64 {
		angles = append(angles, math.Nextafter(float64(k)*math.Pi/4, 0), math.Nextafter(float64(k)*math.Pi/4, 100))
	}
	for _, a := range angles {
		var want box2d.B2Rot
		want.Set(a)
		got := rot(a)
		if math.Float64bits(got.S) != math.Float64bits(want.S) || math.Float64bits(got.C) != math.Float64bits(want.C) {
			t.Fatalf("angle %v (%#x): rot %v, B2Rot.Set %v", a, math.Float64bits(a), got, want)
		}
	}
}

// TestCollidePolygonsMatchesBox2d compares collidePolygons's manifold with
// B2CollidePolygons's, every field bit for bit, for random pairs of
// polygons (boxes and hulls of three to eight vertices, with and without
// a skin) placed apart, touching and overlapping at random angles; and
// requires both outcomes (no points, one point, two points) to be met.
func TestCollidePolygonsMatchesBox2d(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 3))
	shape := func() *box2d.B2PolygonShape {
		s := box2d.MakeB2PolygonShape()
		if rng.IntN(2) == 0 {
			s.SetAsBox(0.1+rng.Float64(), 0.1+rng.Float64())
		} else {
			n := 3 + rng.IntN(6)
			pts := make([]box2d.B2Vec2, n)
			for i := range pts {
				a := 2 * math.Pi * (float64(i) + 0.8*rng.Float64()) / float64(n)
				r := 0.3 + rng.Float64()
				pts[i] = box2d.MakeB2Vec2(r*math.Cos(a), r*math.Sin(a))
			}
			s.Set(pts, n)
		}
		if rng.IntN(3) == 0 {
			s.M_radius = 0.05 * rng.Float64()
		}
		return &s
	}
	place := func(spread float64) box2d.B2Transform {
		var xf box2d.B2Transform
		xf.P = box2d.MakeB2Vec2((rng.Float64()*2-1)*spread, (rng.Float64()*2-1)*spread)
		xf.Q.Set((rng.Float64()*2 - 1) * 4)
		return xf
	}
	var counts [3]int
	for range 100000 {
		a, b := shape(), shape()
		xfA, xfB := place(0.5), place(2)
		var want, got box2d.B2Manifold
		want.PointCount, got.PointCount = 7, 7 // both must write it
		box2d.B2CollidePolygons(&want, a, xfA, b, xfB)
		collidePolygons(&got, a, xfA, b, xfB)
		if d := manifoldDiff(&got, &want); d != "" {
			t.Fatalf("%s", d)
		}
		counts[want.PointCount]++
	}
	t.Logf("manifolds with 0, 1, 2 points: %v", counts)
	if counts[0] == 0 || counts[1] == 0 || counts[2] == 0 {
		t.Fatalf("every outcome should be met: %v", counts)
	}
}

// manifoldDiff describes how got differs from want, or returns "".
func manifoldDiff(got, want *box2d.B2Manifold) string {
	bits := func(v box2d.B2Vec2) [2]uint64 { return [2]uint64{math.Float64bits(v.X), math.Float64bits(v.Y)} }
	if got.PointCount != want.PointCount || got.Type != want.Type {
		return "point count or type differ"
	}
	if want.PointCount == 0 {
		return ""
	}
	if bits(got.LocalNormal) != bits(want.LocalNormal) || bits(got.LocalPoint) != bits(want.LocalPoint) {
		return "normal or point differ"
	}
	for i := range want.PointCount {
		g, w := got.Points[i], want.Points[i]
		if bits(g.LocalPoint) != bits(w.LocalPoint) || g.Id != w.Id {
			return "a point differs"
		}
	}
	return ""
}

// TestMoveProxyMatchesBox2d moves the proxies of two broad phases, one by
// box2d's MoveProxy and one by moveProxy, through the same random walk
// (small steps that stay in the fat box, larger ones and jumps that
// leave it), and requires the two trees to stay alike node for node (box,
// links, height), with the same root, free list and buffered moves.
func TestMoveProxyMatchesBox2d(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 4))
	ref, own := box2d.MakeB2BroadPhase(), box2d.MakeB2BroadPhase()
	const n = 300
	boxes := make([]box2d.B2AABB, n)
	ids := make([]int, n)
	for i := range boxes {
		x, y := rng.Float64()*100, rng.Float64()*100
		w, h := 0.2+rng.Float64(), 0.2+rng.Float64()
		boxes[i] = box2d.B2AABB{LowerBound: box2d.MakeB2Vec2(x, y), UpperBound: box2d.MakeB2Vec2(x+w, y+h)}
		a, b := ref.CreateProxy(boxes[i], i), own.CreateProxy(boxes[i], i)
		if a != b {
			t.Fatalf("proxy ids %d and %d", a, b)
		}
		ids[i] = a
	}
	moved := 0
	for step := range 400 {
		for range 60 {
			i := rng.IntN(n)
			d := box2d.MakeB2Vec2((rng.Float64()*2-1)*[]float64{0.01, 0.3, 5}[rng.IntN(3)], (rng.Float64()*2-1)*0.3)
			boxes[i].LowerBound = box2d.B2Vec2Add(boxes[i].LowerBound, d)
			boxes[i].UpperBound = box2d.B2Vec2Add(boxes[i].UpperBound, d)
			before := own.M_moveCount
			ref.MoveProxy(ids[i], boxes[i], d)
			moveProxy(&own, ids[i], boxes[i], d)
			if own.M_moveCount != before {
				moved++
			}
		}
		if d := treeDiff(&ref.M_tree, &own.M_tree); d != "" {
			t.Fatalf("step %d: %s", step, d)
		}
		if ref.M_moveCount != own.M_moveCount || !slices.Equal(ref.M_moveBuffer[:ref.M_moveCount], own.M_moveBuffer[:own.M_moveCount]) {
			t.Fatalf("step %d: buffered moves differ", step)
		}
		ref.M_moveCount, own.M_moveCount = 0, 0
	}
	t.Logf("%d moves left their fat box and were put back in the tree", moved)
	if moved < 1000 {
		t.Fatalf("too few proxies left their fat box (%d) for the test to mean much", moved)
	}
}

// treeDiff describes how two dynamic trees differ, or returns "".
func treeDiff(a, b *box2d.B2DynamicTree) string {
	if a.M_root != b.M_root || a.M_freeList != b.M_freeList || a.M_nodeCount != b.M_nodeCount || a.M_insertionCount != b.M_insertionCount {
		return "roots, free lists or counts differ"
	}
	for i := range a.M_nodes {
		x, y := &a.M_nodes[i], &b.M_nodes[i]
		if x.Parent != y.Parent || x.Next != y.Next || x.Child1 != y.Child1 || x.Child2 != y.Child2 || x.Height != y.Height ||
			math.Float64bits(x.Aabb.LowerBound.X) != math.Float64bits(y.Aabb.LowerBound.X) ||
			math.Float64bits(x.Aabb.LowerBound.Y) != math.Float64bits(y.Aabb.LowerBound.Y) ||
			math.Float64bits(x.Aabb.UpperBound.X) != math.Float64bits(y.Aabb.UpperBound.X) ||
			math.Float64bits(x.Aabb.UpperBound.Y) != math.Float64bits(y.Aabb.UpperBound.Y) {
			return "a node differs"
		}
	}
	return ""
}

// TestCastPolygonMatchesBox2d casts random rays at random polygons placed
// at random and requires castPolygon to answer as B2PolygonShape.RayCast
// does, hit or miss, fraction and normal bit for bit, with hits and misses
// both met.
func TestCastPolygonMatchesBox2d(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 8))
	hits, misses := 0, 0
	for range 100000 {
		s := box2d.MakeB2PolygonShape()
		if rng.IntN(2) == 0 {
			s.SetAsBox(0.1+rng.Float64(), 0.1+rng.Float64())
		} else {
			n := 3 + rng.IntN(6)
			pts := make([]box2d.B2Vec2, n)
			for i := range pts {
				a := 2 * math.Pi * (float64(i) + 0.8*rng.Float64()) / float64(n)
				pts[i] = box2d.MakeB2Vec2((0.3+rng.Float64())*math.Cos(a), (0.3+rng.Float64())*math.Sin(a))
			}
			s.Set(pts, n)
		}
		var xf box2d.B2Transform
		xf.P = box2d.MakeB2Vec2(rng.Float64()*4-2, rng.Float64()*4-2)
		xf.Q.Set(rng.Float64()*8 - 4)
		in := box2d.B2RayCastInput{
			P1:          box2d.MakeB2Vec2(rng.Float64()*8-4, rng.Float64()*8-4),
			P2:          box2d.MakeB2Vec2(rng.Float64()*8-4, rng.Float64()*8-4),
			MaxFraction: []float64{1, rng.Float64()}[rng.IntN(2)],
		}
		if rng.IntN(8) == 0 { // straight down, as the ground probes cast
			in.P2.X = in.P1.X
		}
		var want, got box2d.B2RayCastOutput
		wantHit := s.RayCast(&want, in, xf, 0)
		gotHit := castPolygon(&got, &in, &s, &xf)
		if wantHit != gotHit || math.Float64bits(want.Fraction) != math.Float64bits(got.Fraction) ||
			math.Float64bits(want.Normal.X) != math.Float64bits(got.Normal.X) || math.Float64bits(want.Normal.Y) != math.Float64bits(got.Normal.Y) {
			t.Fatalf("ray %+v at %+v: cast %v %+v, box2d %v %+v", in, xf, gotHit, got, wantHit, want)
		}
		if wantHit {
			hits++
		} else {
			misses++
		}
	}
	t.Logf("%d hits, %d misses", hits, misses)
	if hits == 0 || misses == 0 {
		t.Fatalf("both hits and misses should be met (%d, %d)", hits, misses)
	}
}

// TestLoneIslandMatchesBox2d runs solveIsland, solveLone and box2d's
// B2Island.Solve on islands of one body with no contact and no joint (the
// island of a kinematic body on its path, or of a body alone in the air,
// which solveIsland solves without the contact solver and solve hands to
// solveLone without building it) and compares the bodies bit for bit: kinematic and dynamic, moving and nearly still, damped,
// awake or let sleep, with and without position iterations, sleeping or
// not. Both sleep outcomes must be met.
func TestLoneIslandMatchesBox2d(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 4))
	num := func(scale float64) float64 {
		switch rng.IntN(6) {
		case 0:
			return 0
		case 1:
			return (rng.Float64()*2 - 1) * 1e-3 // under the sleep tolerances
		}
		return (rng.Float64()*2 - 1) * scale
	}
	var slept, stayed int
	for n := range 20000 {
		bd := box2d.MakeB2BodyDef()
		bd.Type = []uint8{box2d.B2BodyType.B2_kinematicBody, box2d.B2BodyType.B2_dynamicBody}[n%2]
		bd.Position = box2d.MakeB2Vec2(num(50), num(50))
		bd.Angle = num(10)
		bd.LinearVelocity = box2d.MakeB2Vec2(num(200), num(200)) // some past box2d's largest translation
		bd.AngularVelocity = num(300)
		bd.LinearDamping = max(0, num(2))
		bd.AngularDamping = max(0, num(2))
		bd.GravityScale = num(2)
		bd.AllowSleep = n%5 != 0
		force, torque := box2d.MakeB2Vec2(num(100), num(100)), num(100)
		var bodies [3]*box2d.B2Body
		for k := range bodies {
			world := newB2World(0, -10, new(countingFilter))
			bodies[k] = world.CreateBody(&bd)
			s := box2d.MakeB2CircleShape()
			s.M_radius = 0.5
			fd := box2d.MakeB2FixtureDef()
			fd.Filter = box2d.MakeB2Filter()
			fd.Shape = &s
			fd.Density = 1
			bodies[k].CreateFixtureFromDef(&fd)
			bodies[k].M_sleepTime = []float64{0, 0.49, 0.6}[n%3]
			if n%2 == 1 {
				bodies[k].ApplyForceToCenter(force, true)
				bodies[k].ApplyTorque(torque, true)
			}
		}
		step := box2d.MakeB2TimeStep()
		step.Dt = 1.0 / 64
		step.Inv_dt = 64
		step.DtRatio = 1
		step.VelocityIterations = DefaultVelocityIterations
		step.PositionIterations = []int{DefaultPositionIterations, 0}[min(n%7, 1)]
		step.WarmStarting = true
		gravity := box2d.MakeB2Vec2(0, -10)
		allowSleep := n%11 != 0

		ref := box2d.MakeB2Island(1, 0, 0, nil)
		ref.AddBody(bodies[0])
		var profile box2d.B2Profile
		ref.Solve(&profile, step, gravity, allowSleep)

		w := &World{b2: bodies[1].M_world}
		own := w.islandFor(1, 0, 0)
		own.AddBody(bodies[1])
		w.solveIsland(own, step, gravity, allowSleep)
		w.releaseIsland()
		(&World{b2: bodies[2].M_world}).solveLone(bodies[2], step, gravity, allowSleep)

		for k, how := range []string{"solveIsland", "solveLone"} {
			if d := bodyDiff(bodies[0], bodies[k+1]); d != "" {
				t.Fatalf("case %d, %s: %s: box2d %+v %+v, here %+v %+v", n, how, d, bodies[0].M_xf, bodies[0].M_sweep, bodies[k+1].M_xf, bodies[k+1].M_sweep)
			}
		}
		if isAwake(bodies[0]) {
			stayed++
		} else {
			slept++
		}
	}
	t.Logf("bodies put to sleep %d, kept awake %d", slept, stayed)
	if slept == 0 || stayed == 0 {
		t.Fatal("both sleep outcomes should be met")
	}
}

// TestOverlapsMatchesBox2d compares overlaps with
// B2TestOverlapBoundingBoxes on random boxes that overlap, touch, sit
// apart, or hold signed zeros, infinities or NaNs; both answers must be
// met.
func TestOverlapsMatchesBox2d(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), 1e308, -1e308, 5e-324}
	coord := func() float64 {
		if rng.IntN(8) == 0 {
			return special[rng.IntN(len(special))]
		}
		return float64(rng.IntN(9)-4) * []float64{1, 0.5, 0.1}[rng.IntN(3)] // coinciding edges often
	}
	var yes, no int
	for range 500000 {
		var a, b box2d.B2AABB
		for _, v := range []*float64{&a.LowerBound.X, &a.LowerBound.Y, &b.LowerBound.X, &b.LowerBound.Y} {
			*v = coord()
		}
		a.UpperBound = box2d.B2Vec2{X: a.LowerBound.X + math.Abs(coord()), Y: a.LowerBound.Y + math.Abs(coord())}
		b.UpperBound = box2d.B2Vec2{X: b.LowerBound.X + math.Abs(coord()), Y: b.LowerBound.Y + math.Abs(coord())}
		want := box2d.B2TestOverlapBoundingBoxes(a, b)
		if got := overlaps(&a, &b); got != want {
			t.Fatalf("boxes %+v and %+v: overlaps %v, box2d %v", a, b, got, want)
		}
		if want {
			yes++
		} else {
			no++
		}
	}
	t.Logf("overlapping %d, apart %d", yes, no)
	if yes == 0 || no == 0 {
		t.Fatal("both answers should be met")
	}
}

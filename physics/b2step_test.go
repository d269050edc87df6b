package physics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ByteArena/box2d"
)

// b2Scene builds, in a fresh box2d world, a hall with a chain floor, a
// box ledge and walls, and n bodies (boxes, circles, a slab; a few bullets,
// sensors and kinematic bodies) dropped, thrown and spun into it from seed: piles,
// bounces, fast bodies that need the time-of-impact pass, and bodies that
// fall asleep. relaunch throws its bullets again.
func b2Scene(seed uint64, n int) *box2d.B2World {
	world := newB2World(0, -20, new(countingFilter))
	rng := rand.New(rand.NewPCG(seed, 1))
	ground := b2Hall(world)
	ledge := box2d.MakeB2PolygonShape()
	ledge.SetAsBoxFromCenterAndAngle(6, 0.25, box2d.MakeB2Vec2(-8, 8), 0.1)
	fd := box2d.MakeB2FixtureDef()
	fd.Filter = box2d.MakeB2Filter()
	fd.Shape = &ledge
	fd.Friction = 0.6
	ground.CreateFixtureFromDef(&fd)
	for i := range n {
		bd := box2d.MakeB2BodyDef()
		bd.Type = box2d.B2BodyType.B2_dynamicBody
		bd.Position = box2d.MakeB2Vec2(rng.Float64()*36-18, 2+rng.Float64()*25)
		bd.Angle = rng.Float64() * math.Pi
		bd.LinearVelocity = box2d.MakeB2Vec2(rng.Float64()*10-5, rng.Float64()*10-5)
		bd.AngularVelocity = rng.Float64()*4 - 2
		if i%9 == 0 {
			bd.LinearVelocity = box2d.MakeB2Vec2(rng.Float64()*120-60, -rng.Float64()*80) // fast
		}
		bd.FixedRotation = i%11 == 0
		bd.Bullet = i%25 == 7
		if i%40 == 13 {
			bd.Type = box2d.B2BodyType.B2_kinematicBody
			bd.Position = box2d.MakeB2Vec2(bd.Position.X, 29.5)
			bd.LinearVelocity = box2d.MakeB2Vec2(0.5, 0) // along under the roof
		}
		b := world.CreateBody(&bd)
		fd := box2d.MakeB2FixtureDef()
		fd.Filter = box2d.MakeB2Filter()
		fd.Density = 1
		fd.Friction = 0.4
		fd.Restitution = []float64{0, 0, 0.3, 0.8}[i%4]
		fd.IsSensor = i%17 == 3
		switch i % 3 {
		case 0:
			s := box2d.MakeB2PolygonShape()
			s.SetAsBox(0.2+rng.Float64()*0.6, 0.2+rng.Float64()*0.6)
			fd.Shape = &s
		case 1:
			s := box2d.MakeB2CircleShape()
			s.M_radius = 0.2 + rng.Float64()*0.5
			fd.Shape = &s
		default:
			s := box2d.MakeB2PolygonShape()
			s.SetAsBox(1.5, 0.15)
			fd.Shape = &s
		}
		b.CreateFixtureFromDef(&fd)
	}
	return world
}

// b2Hall adds to world a static body holding a 40 m × 30 m loop of wall,
// floor and roof, and returns it.
func b2Hall(world *box2d.B2World) *box2d.B2Body {
	ground := world.CreateBody(&box2d.B2BodyDef{Type: box2d.B2BodyType.B2_staticBody, Active: true, Awake: true, GravityScale: 1})
	chain := box2d.MakeB2ChainShape()
	chain.CreateLoop([]box2d.B2Vec2{{X: -20, Y: 0}, {X: 20, Y: 0}, {X: 20, Y: 30}, {X: -20, Y: 30}}, 4)
	fd := box2d.MakeB2FixtureDef()
	fd.Filter = box2d.MakeB2Filter()
	fd.Shape = &chain
	fd.Friction = 0.6
	ground.CreateFixtureFromDef(&fd)
	return ground
}

// relaunch throws every bullet of world down at the floor from where it
// is, waking it: into whatever has come to rest there.
func relaunch(world *box2d.B2World, step int) {
	for b := world.M_bodyList; b != nil; b = b.M_next {
		if b.IsBullet() {
			b.SetLinearVelocity(box2d.MakeB2Vec2(float64(step%7)-3, -90))
		}
	}
}

// TestStepB2MatchesBox2d steps the same scene with box2d's B2World.Step
// and with stepB2 and requires every body to agree bit for bit after every
// step (pose, sweep, velocities, sleep time and flags), and the two
// worlds to hold as many contacts; and stepB2's steps, once its scratch
// has grown, to allocate far less than box2d's.
func TestStepB2MatchesBox2d(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		ref := b2Scene(seed, 150)
		own := &World{b2: b2Scene(seed, 150)}
		asleep, events := 0, 0
		for step := range 600 {
			if step%150 == 149 {
				relaunch(ref, step)
				relaunch(own.b2, step)
			}
			box2dGlobals.Lock()
			ref.Step(1.0/64, DefaultVelocityIterations, DefaultPositionIterations)
			own.stepB2(1.0/64, DefaultVelocityIterations, DefaultPositionIterations)
			box2dGlobals.Unlock()
			if a, b := ref.M_contactManager.M_contactCount, own.b2.M_contactManager.M_contactCount; a != b {
				t.Fatalf("seed %d step %d: %d contacts, box2d %d", seed, step, b, a)
			}
			sleeping := 0
			for a, b := ref.M_bodyList, own.b2.M_bodyList; a != nil || b != nil; a, b = a.M_next, b.M_next {
				if a == nil || b == nil {
					t.Fatalf("seed %d step %d: body lists differ in length", seed, step)
				}
				if d := bodyDiff(a, b); d != "" {
					t.Fatalf("seed %d step %d: %s", seed, step, d)
				}
				if !isAwake(a) && a.M_type == box2d.B2BodyType.B2_dynamicBody {
					sleeping++
				}
			}
			asleep = max(asleep, sleeping)
			for b := ref.M_bodyList; b != nil; b = b.M_next {
				if b.M_sweep.Alpha0 > 0 { // advanced to a time of impact this step
					events++
				}
			}
		}
		if asleep == 0 || events == 0 || own.apartPairs == 0 {
			t.Fatalf("seed %d: the scene should have bodies asleep, time-of-impact events and pairs apart (at most %d asleep, %d events, %d pairs apart)", seed, asleep, events, own.apartPairs)
		}
		t.Logf("seed %d: 600 steps alike; up to %d bodies asleep; bodies moved to a time of impact %d times; %d times of impact not computed, the pair apart", seed, asleep, events, own.apartPairs)
	}
}

// restingRow builds a floor with ten crates standing on it apart, which
// fall asleep within two seconds.
func restingRow() *box2d.B2World {
	world := newB2World(0, -20, new(countingFilter))
	b2Hall(world)
	for i := range 10 {
		bd := box2d.MakeB2BodyDef()
		bd.Type = box2d.B2BodyType.B2_dynamicBody
		bd.Position = box2d.MakeB2Vec2(float64(3*i-15), 0.5)
		b := world.CreateBody(&bd)
		s := box2d.MakeB2PolygonShape()
		s.SetAsBox(0.5, 0.5)
		fd := box2d.MakeB2FixtureDef()
		fd.Filter = box2d.MakeB2Filter()
		fd.Shape = &s
		fd.Density = 1
		fd.Friction = 0.6
		b.CreateFixtureFromDef(&fd)
	}
	return world
}

// fireBullet adds a small bullet just above the crate at x, falling at
// 150 m/s: it reaches the crate within a step, so only its time of impact
// stops it there, and that impact wakes the sleeping crate.
func fireBullet(world *box2d.B2World, x float64) {
	bd := box2d.MakeB2BodyDef()
	bd.Type = box2d.B2BodyType.B2_dynamicBody
	bd.Bullet = true
	bd.Position = box2d.MakeB2Vec2(x, 3)
	bd.LinearVelocity = box2d.MakeB2Vec2(0, -150)
	b := world.CreateBody(&bd)
	s := box2d.MakeB2CircleShape()
	s.M_radius = 0.05
	fd := box2d.MakeB2FixtureDef()
	fd.Filter = box2d.MakeB2Filter()
	fd.Shape = &s
	fd.Density = 5
	b.CreateFixtureFromDef(&fd)
}

// TestStepB2BulletsIntoSleepers: bullets fired into a row of crates asleep
// on the floor, each stopped by its time of impact, wake them: both ways
// of stepping agree bit for bit throughout.
func TestStepB2BulletsIntoSleepers(t *testing.T) {
	ref := restingRow()
	own := &World{b2: restingRow()}
	woke := 0
	for step := range 400 {
		if step >= 200 && step%20 == 0 {
			x := float64(3*(step/20%10) - 15)
			fireBullet(ref, x)
			fireBullet(own.b2, x)
		}
		if step == 199 {
			for b := ref.M_bodyList; b != nil; b = b.M_next {
				if b.M_type == box2d.B2BodyType.B2_dynamicBody && isAwake(b) {
					t.Fatal("the crates are not asleep before the first shot")
				}
			}
		}
		box2dGlobals.Lock()
		ref.Step(1.0/64, DefaultVelocityIterations, DefaultPositionIterations)
		own.stepB2(1.0/64, DefaultVelocityIterations, DefaultPositionIterations)
		box2dGlobals.Unlock()
		awake := false
		for a, b := ref.M_bodyList, own.b2.M_bodyList; a != nil || b != nil; a, b = a.M_next, b.M_next {
			if a == nil || b == nil {
				t.Fatalf("step %d: body lists differ in length", step)
			}
			if d := bodyDiff(a, b); d != "" {
				t.Fatalf("step %d: %s", step, d)
			}
			awake = awake || a.M_type == box2d.B2BodyType.B2_dynamicBody && !a.IsBullet() && isAwake(a)
		}
		if step >= 200 && awake {
			woke++
		}
	}
	if woke == 0 {
		t.Fatal("no crate was woken by the bullets")
	}
	t.Logf("400 steps alike; crates awake after the first shot in %d steps", woke)
}

// bodyDiff describes how a and b differ, or returns "".
func bodyDiff(a, b *box2d.B2Body) string {
	type field struct {
		name string
		x, y float64
	}
	for _, f := range []field{
		{"x", a.M_xf.P.X, b.M_xf.P.X}, {"y", a.M_xf.P.Y, b.M_xf.P.Y},
		{"cos", a.M_xf.Q.C, b.M_xf.Q.C}, {"sin", a.M_xf.Q.S, b.M_xf.Q.S},
		{"angle", a.M_sweep.A, b.M_sweep.A}, {"angle0", a.M_sweep.A0, b.M_sweep.A0},
		{"cx", a.M_sweep.C.X, b.M_sweep.C.X}, {"cy", a.M_sweep.C.Y, b.M_sweep.C.Y},
		{"c0x", a.M_sweep.C0.X, b.M_sweep.C0.X}, {"c0y", a.M_sweep.C0.Y, b.M_sweep.C0.Y},
		{"alpha0", a.M_sweep.Alpha0, b.M_sweep.Alpha0},
		{"vx", a.M_linearVelocity.X, b.M_linearVelocity.X}, {"vy", a.M_linearVelocity.Y, b.M_linearVelocity.Y},
		{"w", a.M_angularVelocity, b.M_angularVelocity}, {"sleep", a.M_sleepTime, b.M_sleepTime},
	} {
		if math.Float64bits(f.x) != math.Float64bits(f.y) {
			return "body " + f.name + " differs"
		}
	}
	if a.M_flags != b.M_flags {
		return "body flags differ"
	}
	return ""
}

// BenchmarkStepB2 measures one step of the 150-body scene both ways, from
// the same state, for the time and the allocations each takes.
func BenchmarkStepB2(b *testing.B) {
	for _, own := range []bool{false, true} {
		name := "box2d"
		if own {
			name = "stepB2"
		}
		b.Run(name, func(b *testing.B) {
			w := &World{b2: b2Scene(1, 150)}
			for range 120 {
				w.stepB2(1.0/64, DefaultVelocityIterations, DefaultPositionIterations)
			}
			b.ReportAllocs()
			for b.Loop() {
				if own {
					w.stepB2(1.0/64, DefaultVelocityIterations, DefaultPositionIterations)
				} else {
					w.b2.Step(1.0/64, DefaultVelocityIterations, DefaultPositionIterations)
				}
			}
		})
	}
}

// LastStep counts what a step did: a row of sleeping crates keeps its
// contacts but solves no island, and a bullet fired into it computes times
// of impact and solves at them.
func TestLastStepCounts(t *testing.T) {
	w := &World{b2: restingRow()}
	var asleep StepCounts
	var most StepCounts
	for step := range 300 {
		if step == 200 {
			fireBullet(w.b2, 0)
		}
		box2dGlobals.Lock()
		w.stepB2(1.0/64, DefaultVelocityIterations, DefaultPositionIterations)
		box2dGlobals.Unlock()
		c := w.LastStep()
		if step == 199 {
			asleep = c
		}
		if step >= 200 {
			most.Islands = max(most.Islands, c.Islands)
			most.IslandBodies = max(most.IslandBodies, c.IslandBodies)
			most.TOIQueries = max(most.TOIQueries, c.TOIQueries)
			most.TOIEvents = max(most.TOIEvents, c.TOIEvents)
		}
	}
	t.Logf("asleep %+v; most after the shot %+v", asleep, most)
	if asleep.Contacts == 0 || asleep.Islands != 0 || asleep.TOIQueries != 0 {
		t.Fatalf("a sleeping row: %+v, want contacts and no island or time of impact", asleep)
	}
	if most.Islands == 0 || most.IslandBodies < 2 || most.TOIQueries == 0 || most.TOIEvents == 0 {
		t.Fatalf("after a bullet: %+v, want islands solved and times of impact", most)
	}
}

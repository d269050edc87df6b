package physics

import (
	"math"
	"math/rand/v2"
	"testing"

	"vkm/internal/entity"
)

// skin is box2d's polygon radius: polygon and edge fixtures collide at this
// distance from their outline, and resting contacts settle linear slop
// (5 mm) deeper than the sum of the two skins.
const (
	skin = 0.01
	slop = 0.005
)

func TestRestsOnFloor(t *testing.T) {
	boxFloor := def(entity.Static, box(40, 1)) // top at y = 0 when placed at y = -0.5
	chainFloor := def(entity.Static, chain(entity.Vec2{X: -20, Y: 0.5}, entity.Vec2{X: 20, Y: 0.5}))
	tests := []struct {
		name   string
		floor  *entity.BodyDef
		body   entity.Shape
		half   float64 // half height of the body
		skins  float64 // sum of the two skins at the contact
		floorY float64
	}{
		{"box on box", boxFloor, box(1, 1), 0.5, 2 * skin, -0.5},
		{"circle on box", boxFloor, circle(0.5), 0.5, skin, -0.5},
		{"box on chain", chainFloor, box(1, 1), 0.5, 2 * skin, -0.5},
		{"circle on chain", chainFloor, circle(0.5), 0.5, skin, -0.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, s := gravityWorld(), newStore()
			floor := add(t, w, s, eid(1), tc.floor, 0, tc.floorY)
			floorBefore := *floor
			p := add(t, w, s, eid(2), def(entity.Dynamic, tc.body), 0.3, 3)
			steps(w, s, 4*64)

			want := tc.half + tc.skins - slop
			if math.Abs(p.t.Y-want) > 0.002 {
				t.Errorf("rests at y = %.5f, want %.5f ± 2 mm", p.t.Y, want)
			}
			if math.Abs(p.t.X-0.3) > 0.001 || math.Abs(p.t.Angle) > 1e-3 {
				t.Errorf("drifted to x = %g, angle = %g", p.t.X, p.t.Angle)
			}
			if p.rb.Awake || p.rb.VX != 0 || p.rb.VY != 0 {
				t.Errorf("not at rest: %+v", p.rb)
			}
			if *floor != floorBefore {
				t.Errorf("static floor components changed: %+v", *floor)
			}
			fb := w.byID[eid(1)].b
			if pos := fb.GetPosition(); pos.X != 0 || pos.Y != tc.floorY || fb.GetAngle() != 0 {
				t.Errorf("static floor body moved to %+v", pos)
			}
		})
	}
}

func TestGating(t *testing.T) {
	w, s := gravityWorld(), newStore()
	addFloor(t, w, s, eid(1))
	sim := add(t, w, s, eid(2), def(entity.Dynamic, box(1, 1)), 0, 5)
	other := add(t, w, s, eid(3), def(entity.Dynamic, box(1, 1)), 5, 5)
	s.off[eid(3)] = true
	otherBefore := *other

	steps(w, s, 10)
	if sim.t.Y >= 5 || sim.rb.VY >= 0 {
		t.Errorf("simulated body not written back: %+v", *sim)
	}
	if *other != otherBefore {
		t.Errorf("non-simulated body written back: %+v, want %+v", *other, otherBefore)
	}

	// A non-simulated body's changed component is not gathered.
	other.t.X, other.rb.VX = -7, 3
	steps(w, s, 1)
	ob := w.byID[eid(3)].b
	if x, vx := ob.GetPosition().X, ob.GetLinearVelocity().X; x != 5 || vx != 0 {
		t.Errorf("non-simulated component gathered: body x = %g, vx = %g", x, vx)
	}
	if other.t.X != -7 || other.rb.VX != 3 {
		t.Errorf("non-simulated components overwritten: %+v", *other)
	}

	// A simulated body whose component a caller changed is moved.
	sim.t.X, sim.t.Y, sim.rb.VX, sim.rb.VY = 10, 8, 0, 0
	steps(w, s, 1)
	if math.Abs(sim.t.X-10) > 1e-9 || math.Abs(sim.t.Y-8) > 0.01 {
		t.Errorf("teleport not gathered: %+v", sim.t)
	}
	if b := w.byID[eid(2)].b; b.GetPosition().X != sim.t.X {
		t.Errorf("body at %g, component at %g", b.GetPosition().X, sim.t.X)
	}

	// Simulated again, the body takes the components as they are now (the
	// authority's latest word), though box2d kept moving it meanwhile.
	s.off[eid(3)] = false
	other.t, other.rb = otherBefore.t, otherBefore.rb
	steps(w, s, 1)
	if other.t.X != 5 || other.t.Y >= 5 || other.t.Y < 4.99 {
		t.Errorf("re-simulated body not gathered from its components: %+v", other.t)
	}
}

func TestGatherOnlyDifferences(t *testing.T) {
	w, s := gravityWorld(), newStore()
	addFloor(t, w, s, eid(1))
	p := add(t, w, s, eid(2), def(entity.Dynamic, box(1, 1)), 0, 0.6)
	steps(w, s, 2*64)
	if p.rb.Awake {
		t.Fatalf("box did not fall asleep: %+v", p.rb)
	}
	b := w.byID[eid(2)].b
	// Stepping with untouched components must not wake or move it.
	before := b.GetPosition()
	steps(w, s, 64)
	if p.rb.Awake || b.GetPosition() != before || b.M_sleepTime != 0 {
		t.Errorf("untouched sleeping body disturbed: awake %v, at %+v (was %+v)", p.rb.Awake, b.GetPosition(), before)
	}
	// A velocity written by a behavior wakes it.
	p.rb.VY = 5
	steps(w, s, 1)
	if !p.rb.Awake || p.t.Y <= before.Y {
		t.Errorf("gathered velocity did not wake and lift the body: %+v", *p)
	}

	// Awake is gathered literally: put to sleep in mid-air, it stays there;
	// woken, it falls.
	p.t.X, p.t.Y, p.rb = 3, 4, entity.Rigidbody{}
	steps(w, s, 10)
	if p.t.X != 3 || p.t.Y != 4 || p.rb.Awake {
		t.Errorf("sleeping body moved into the air did not stay asleep there: %+v", *p)
	}
	p.rb.Awake = true
	steps(w, s, 10)
	if p.t.Y >= 4 {
		t.Errorf("woken body did not fall: %+v", *p)
	}
}

func TestStepWithoutPose(t *testing.T) {
	w := gravityWorld()
	s := newStore()
	if err := w.Add(eid(1), def(entity.Dynamic, box(1, 1)), entity.Transform{Y: 5}, entity.Rigidbody{Awake: true}); err != nil {
		t.Fatal(err)
	}
	steps(w, s, 10) // no components in the store: nothing to gather or write
	steps(w, nil, 10)
	if y := w.byID[eid(1)].b.GetPosition().Y; y >= 5 {
		t.Errorf("body without components did not fall: y = %g", y)
	}
}

func TestAddRemove(t *testing.T) {
	w, s := gravityWorld(), newStore()
	for _, n := range []uint32{5, 1, 3} {
		add(t, w, s, eid(n), def(entity.Dynamic, box(1, 1)), float64(n)*2, 1)
	}
	if w.Len() != 3 || !w.Has(eid(3)) || w.Has(eid(4)) {
		t.Fatalf("Len = %d, Has(3) = %v, Has(4) = %v", w.Len(), w.Has(eid(3)), w.Has(eid(4)))
	}
	for i, want := range []uint32{1, 3, 5} {
		if got := w.order[i].id.Slot; got != want {
			t.Errorf("order[%d] = slot %d, want %d", i, got, want)
		}
	}
	w.Remove(eid(3))
	w.Remove(eid(3))
	w.Remove(eid(9))
	if w.Len() != 2 || w.Has(eid(3)) || w.b2.GetBodyCount() != 2 {
		t.Errorf("after Remove: Len = %d, Has(3) = %v, box2d bodies = %d", w.Len(), w.Has(eid(3)), w.b2.GetBodyCount())
	}
	if err := w.Add(eid(3), def(entity.Dynamic, box(1, 1)), entity.Identity, entity.Rigidbody{}); err != nil {
		t.Errorf("re-Add after Remove: %v", err)
	}
}

func TestMass(t *testing.T) {
	w, s := gravityWorld(), newStore()
	heavy := box(2, 1)
	heavy.Density = 3
	add(t, w, s, eid(1), def(entity.Dynamic, heavy), 0, 0)
	add(t, w, s, eid(2), def(entity.Static, box(1, 1)), 5, 0)
	add(t, w, s, eid(3), def(entity.Kinematic, box(1, 1)), 10, 0)
	light := box(1, 1)
	light.Density = 0
	add(t, w, s, eid(4), def(entity.Dynamic, light), 15, 0)
	tests := []struct {
		id   entity.ID
		want float64
	}{{eid(1), 6}, {eid(2), 0}, {eid(3), 0}, {eid(4), 1}, {eid(99), 0}}
	for _, tc := range tests {
		if got := w.Mass(tc.id); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Mass(%v) = %g, want %g", tc.id, got, tc.want)
		}
	}
}

func TestBodyOptions(t *testing.T) {
	w, s := New(Config{GravityY: -10}), newStore()
	d := def(entity.Dynamic, box(1, 1))
	d.FixedRotation = true
	fixed := &pose{t: entity.Transform{X: 0, Y: 5}, rb: entity.Rigidbody{Awake: true, AngularVelocity: 5}}
	if err := w.Add(eid(1), d, fixed.t, fixed.rb); err != nil {
		t.Fatal(err)
	}
	s.poses[eid(1)] = fixed
	floating := def(entity.Dynamic, box(1, 1))
	floating.GravityScale = 0 // taken literally
	fl := add(t, w, s, eid(2), floating, 5, 5)
	kin := add(t, w, s, eid(3), def(entity.Kinematic, box(1, 1)), 10, 5)
	kin.rb.VX = 2
	steps(w, s, 64)
	if fixed.t.Angle != 0 || fixed.rb.AngularVelocity != 0 {
		t.Errorf("fixed-rotation body turned: %+v", *fixed)
	}
	if fl.t.Y != 5 {
		t.Errorf("gravity scale 0 body moved to y = %g", fl.t.Y)
	}
	if math.Abs(kin.t.X-12) > 1e-9 || kin.t.Y != 5 {
		t.Errorf("kinematic body at %+v, want x = 12, y = 5", kin.t)
	}
}

// pile builds a walled pile of boxes and circles from seed; every world
// built from the same seed is built the same way.
func pile(tb testing.TB, seed uint64, n int) (*World, *store) {
	tb.Helper()
	w, s := New(Config{GravityY: -10, Step: 1.0 / 64}), newStore()
	add(tb, w, s, eid(1), def(entity.Static, box(20, 1), wall(-10), wall(10)), 0, -0.5)
	rng := rand.New(rand.NewPCG(seed, 0))
	for i := range n {
		var sh entity.Shape
		if i%4 == 3 {
			sh = circle(0.2 + 0.3*rng.Float64())
		} else {
			sh = box(0.4+0.6*rng.Float64(), 0.4+0.6*rng.Float64())
		}
		p := add(tb, w, s, eid(uint32(i+2)), def(entity.Dynamic, sh), -8+16*rng.Float64(), 1+float64(i)*0.6)
		p.rb.VX, p.rb.VY = 4*rng.Float64()-2, -2*rng.Float64()
	}
	return w, s
}

// wall is a 1×20 m box fixture centred at x, standing on the floor.
func wall(x float64) entity.Shape {
	sh := box(1, 20)
	sh.Offset = entity.Vec2{X: x, Y: 10}
	return sh
}

func TestDeterminism(t *testing.T) {
	const bodies, ticks = 60, 300
	w1, s1 := pile(t, 7, bodies)
	w2, s2 := pile(t, 7, bodies)
	for tick := range ticks {
		w1.Step(s1)
		w2.Step(s2)
		for id, p1 := range s1.poses {
			p2 := s2.poses[id]
			if !sameBits(p1, p2) {
				t.Fatalf("tick %d: %v differs: %+v vs %+v", tick, id, *p1, *p2)
			}
		}
	}
	moving, asleep := 0, 0
	for id, p := range s1.poses {
		if id == eid(1) {
			continue // the static arena
		}
		if p.rb.Awake {
			moving++
		} else {
			asleep++
		}
	}
	t.Logf("%d bodies bit-identical after %d ticks (%d awake, %d asleep)", bodies, ticks, moving, asleep)
	// The scene must have done something for the comparison to mean much.
	if s1.poses[eid(2)].t.Y == 1 {
		t.Error("pile did not move")
	}
}

func sameBits(a, b *pose) bool {
	fa := []float64{a.t.X, a.t.Y, a.t.Angle, a.rb.VX, a.rb.VY, a.rb.AngularVelocity}
	fb := []float64{b.t.X, b.t.Y, b.t.Angle, b.rb.VX, b.rb.VY, b.rb.AngularVelocity}
	for i := range fa {
		if math.Float64bits(fa[i]) != math.Float64bits(fb[i]) {
			return false
		}
	}
	return a.rb.Awake == b.rb.Awake
}

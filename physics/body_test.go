package physics

import (
	"math"
	"strings"
	"testing"

	"vkm/internal/entity"
)

// TestForcesAndTorques pushes a body in free space: a force through its
// centre moves it by F/m per second of speed, a torque turns it by T/I,
// a force off its centre does both, and each lasts one step; a static body
// takes none.
func TestForcesAndTorques(t *testing.T) {
	w, s := New(Config{}), newStore()
	p := add(t, w, s, eid(1), def(entity.Dynamic, box(2, 1)), 0, 0)
	add(t, w, s, eid(2), def(entity.Static, box(1, 1)), 10, 0)
	m, _ := w.MassData(eid(1))
	if m.Mass != 2 || math.Abs(m.Inertia-2*(4+1)/12.0) > 1e-12 || m.CenterX != 0 || m.CenterY != 0 {
		t.Fatalf("mass data %+v, want 2 kg, 5/6 kg·m² about the origin", m)
	}
	dt := w.Config().Step
	w.ApplyForce(eid(1), 4, 0)
	w.Step(s)
	if math.Abs(p.rb.VX-4/m.Mass*dt) > 1e-12 || p.rb.AngularVelocity != 0 {
		t.Errorf("after a 4 N force for one step: %+v, want vx %g and no spin", p.rb, 4/m.Mass*dt)
	}
	w.Step(s)
	if math.Abs(p.rb.VX-4/m.Mass*dt) > 1e-12 {
		t.Errorf("the force lasted more than one step: vx %g", p.rb.VX)
	}
	w.ApplyTorque(eid(1), 3)
	w.Step(s)
	if math.Abs(p.rb.AngularVelocity-3/m.Inertia*dt) > 1e-12 {
		t.Errorf("after a 3 N·m torque: w %g, want %g", p.rb.AngularVelocity, 3/m.Inertia*dt)
	}
	spin := p.rb.AngularVelocity
	w.ApplyForceAt(eid(1), 0, 6, p.t.X+1, p.t.Y) // up at the right end: turns counter-clockwise
	w.Step(s)
	if p.rb.AngularVelocity <= spin || p.rb.VY <= 0 {
		t.Errorf("a force at the end did not both lift and turn: %+v", p.rb)
	}
	w.ApplyForce(eid(2), 100, 0)
	w.ApplyForce(eid(1), math.NaN(), 0)
	w.Step(s)
	if x := w.byID[eid(2)].b.M_xf.P.X; x != 10 {
		t.Errorf("a force moved a static body to x = %g", x)
	}
	if math.IsNaN(p.rb.VX) {
		t.Error("a NaN force reached the body")
	}
}

// TestForceWakesASleeper: a force on a body asleep on the floor wakes it
// through the step's gather and moves it.
func TestForceWakesASleeper(t *testing.T) {
	w, s := gravityWorld(), newStore()
	addFloor(t, w, s, eid(1))
	p := add(t, w, s, eid(2), def(entity.Dynamic, box(1, 1)), 0, 0.5)
	steps(w, s, 200)
	if p.rb.Awake {
		t.Fatal("never fell asleep")
	}
	w.ApplyForce(eid(2), 500, 0)
	w.Step(s)
	if !p.rb.Awake || p.rb.VX <= 0 {
		t.Errorf("a force on a sleeper left it %+v", p.rb)
	}
}

// TestImpulseFromComponents checks MassData.Impulse against the change of
// velocity box2d's own ApplyLinearImpulse makes, off centre and on a body
// whose centre of mass is not its origin.
func TestImpulseFromComponents(t *testing.T) {
	w, s := New(Config{}), newStore()
	off := box(1, 1)
	off.Offset = entity.Vec2{X: 1, Y: 0.5}
	p := add(t, w, s, eid(1), def(entity.Dynamic, off, box(0.5, 0.5)), 2, 1)
	p.t.Angle = 0.7
	w.Gather(s)
	m, _ := w.MassData(eid(1))
	dvx, dvy, dw := m.Impulse(p.t, 1, -2, 3, 2, 0.5)
	b := w.byID[eid(1)].b
	b.ApplyLinearImpulse(vec(entity.Vec2{X: 1, Y: -2}), vec(entity.Vec2{X: 3, Y: 2}), true)
	b.ApplyAngularImpulse(0.5, true)
	v, av := b.GetLinearVelocity(), b.GetAngularVelocity()
	if math.Abs(v.X-dvx) > 1e-12 || math.Abs(v.Y-dvy) > 1e-12 || math.Abs(av-dw) > 1e-12 {
		t.Errorf("Impulse gives (%g, %g, %g), box2d (%g, %g, %g)", dvx, dvy, dw, v.X, v.Y, av)
	}
	if m.CenterX <= 0 || m.CenterY <= 0 {
		t.Errorf("centre of mass %g, %g: want toward the offset box", m.CenterX, m.CenterY)
	}
	if a, b, c := (MassData{}).Impulse(p.t, 1, 1, 0, 0, 1); a != 0 || b != 0 || c != 0 {
		t.Error("a massless body changed")
	}
}

// TestSetTypeAtRunTime makes a static box dynamic where it stands on the
// floor (it must not sink: the port's own SetType lost the pair), then
// kinematic, then static again.
func TestSetTypeAtRunTime(t *testing.T) {
	w, s := gravityWorld(), newStore()
	addFloor(t, w, s, eid(1))
	p := add(t, w, s, eid(2), def(entity.Static, box(1, 1)), 0, 0.5+2*skin-slop)
	steps(w, s, 10)
	if err := w.SetType(eid(2), entity.Dynamic); err != nil {
		t.Fatal(err)
	}
	if m, _ := w.MassData(eid(2)); m.Mass != 1 {
		t.Errorf("made dynamic, it weighs %g kg", m.Mass)
	}
	steps(w, s, 64)
	if got, want := p.t.Y, 0.5+2*skin-slop; math.Abs(got-want) > 0.002 {
		t.Errorf("the box made dynamic on the floor sank to y = %.4f, want %.4f", got, want)
	}
	if typ, _ := w.Type(eid(2)); typ != entity.Dynamic {
		t.Errorf("Type = %v", typ)
	}
	if err := w.SetType(eid(2), entity.Kinematic); err != nil {
		t.Fatal(err)
	}
	p.rb.VX = 1
	steps(w, s, 64)
	if math.Abs(p.t.X-1) > 0.02 || math.Abs(p.t.Y-(0.5+2*skin-slop)) > 0.002 {
		t.Errorf("the kinematic box is at (%g, %g), want moved 1 m along, not fallen", p.t.X, p.t.Y)
	}
	if err := w.SetType(eid(2), entity.Static); err != nil {
		t.Fatal(err)
	}
	if err := w.SetType(eid(2), entity.Decoration); err == nil || !strings.Contains(err.Error(), "static, dynamic or kinematic") {
		t.Errorf("SetType(decoration) = %v", err)
	}
	if err := w.SetType(eid(9), entity.Static); err == nil {
		t.Error("SetType of no body succeeded")
	}
}

// TestDisableAndEnable takes a crate out of a pile: the one above falls
// through where it stood, queries and rays no longer find it, and enabled
// again it pushes out what now overlaps it.
func TestDisableAndEnable(t *testing.T) {
	w, s := gravityWorld(), newStore()
	addFloor(t, w, s, eid(1))
	low := add(t, w, s, eid(2), def(entity.Dynamic, box(1, 1)), 0, 0.5)
	high := add(t, w, s, eid(3), def(entity.Dynamic, box(1, 1)), 0, 1.5)
	steps(w, s, 64)
	if !w.SetEnabled(eid(2), false) || w.Enabled(eid(2)) {
		t.Fatal("SetEnabled(false) did not disable")
	}
	var found []entity.ID
	w.QueryAABB(-0.1, 0.2, 0.1, 0.3, collect(&found))
	if len(found) != 0 {
		t.Errorf("a query found %v where only the disabled crate is", found)
	}
	if hit, ok := w.RayCast(-3, 0.3, 3, 0.3, entity.None); ok {
		t.Errorf("a ray hit %v through the disabled crate", hit.Entity)
	}
	before := low.t
	steps(w, s, 64)
	if high.t.Y > 0.6 || low.t != before {
		t.Errorf("the crate above is at y %g, the disabled one moved from %+v to %+v", high.t.Y, before, low.t)
	}
	w.SetEnabled(eid(2), true)
	steps(w, s, 128)
	if math.Abs(low.t.X-high.t.X) < 0.9 && math.Abs(low.t.Y-high.t.Y) < 0.9 {
		t.Errorf("enabled again, the crates still overlap: %+v and %+v", low.t, high.t)
	}
	if w.SetEnabled(eid(9), true) {
		t.Error("SetEnabled of no body reported a body")
	}
}

// TestGravityAndDampingAtRunTime floats a box by its gravity scale, drops
// it again, and slows it with damping.
func TestGravityAndDampingAtRunTime(t *testing.T) {
	w, s := gravityWorld(), newStore()
	p := add(t, w, s, eid(1), def(entity.Dynamic, box(1, 1)), 0, 10)
	if err := w.SetDamping(eid(1), 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	steps(w, s, 64)
	if p.t.Y != 10 {
		t.Errorf("with gravity scale 0 the box fell to %g", p.t.Y)
	}
	if err := w.SetDamping(eid(1), 2, 1, -1); err != nil {
		t.Fatal(err)
	}
	steps(w, s, 64)
	if p.t.Y <= 10 || p.rb.VY > 10*0.5 {
		t.Errorf("with gravity scale -1 and damping 2 the box is at %g rising at %g, want up and slower than undamped", p.t.Y, p.rb.VY)
	}
	if l, a, g, ok := w.Damping(eid(1)); !ok || l != 2 || a != 1 || g != -1 {
		t.Errorf("Damping = %g %g %g %v", l, a, g, ok)
	}
	for _, bad := range [][3]float64{{-1, 0, 1}, {0, math.Inf(1), 1}, {0, 0, math.NaN()}} {
		if err := w.SetDamping(eid(1), bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("SetDamping(%v) succeeded", bad)
		}
	}
}

// TestShapesAtRunTime adds a heavy shape to a body and removes its first:
// the mass follows, later shapes move down a place, contacts of a removed
// shape end, and the last shape cannot go.
func TestShapesAtRunTime(t *testing.T) {
	w, s := gravityWorld(), newStore()
	addFloor(t, w, s, eid(1))
	p := add(t, w, s, eid(2), def(entity.Dynamic, box(1, 1)), 0, 0.5)
	steps(w, s, 32)
	heavy := box(0.5, 0.5)
	heavy.Density, heavy.Offset = 8, entity.Vec2{X: 1}
	i, err := w.AddShape(eid(2), &heavy)
	if err != nil || i != 1 || w.ShapeCount(eid(2)) != 2 {
		t.Fatalf("AddShape = %d, %v; %d shapes", i, err, w.ShapeCount(eid(2)))
	}
	if m, _ := w.MassData(eid(2)); math.Abs(m.Mass-3) > 1e-9 || m.CenterX <= 0.5 {
		t.Errorf("with the heavy shape: %+v, want 3 kg centred toward it", m)
	}
	bad := box(0, 1)
	if _, err := w.AddShape(eid(2), &bad); err == nil {
		t.Error("a zero-width shape was added")
	}
	steps(w, s, 64)
	drain(w)
	if err := w.RemoveShape(eid(2), 0); err != nil {
		t.Fatal(err)
	}
	ended := drain(w)
	if len(ended) != 1 || ended[0].Begin {
		t.Errorf("removing the resting shape reported %+v, want its touch with the floor ended", ended)
	}
	if m, _ := w.MassData(eid(2)); m.Mass != 2 {
		t.Errorf("after removing the first shape the body weighs %g, want the heavy one's 2", m.Mass)
	}
	if f, ok := w.ShapeFilter(eid(2), 0); !ok || w.ShapeCount(eid(2)) != 1 || f.Category != 1 {
		t.Errorf("the heavy shape did not become shape 0")
	}
	if err := w.RemoveShape(eid(2), 0); err == nil || !strings.Contains(err.Error(), "at least one shape") {
		t.Errorf("removing the last shape: %v", err)
	}
	if err := w.RemoveShape(eid(2), 3); err == nil {
		t.Error("removing a shape the body lacks succeeded")
	}
	steps(w, s, 64)
	if p.t.Y > 0.3 {
		t.Errorf("the body left with a 0.5 m shape 1 m off its origin stands at y %g", p.t.Y)
	}
}

// TestADecorationHasNoBody: Add refuses a decoration, naming it.
func TestADecorationHasNoBody(t *testing.T) {
	w := New(Config{})
	err := w.Add(eid(1), def(entity.Decoration, box(1, 1)), entity.Identity, entity.Rigidbody{})
	if err == nil || !strings.Contains(err.Error(), "decoration") || w.Has(eid(1)) {
		t.Errorf("Add(decoration) = %v", err)
	}
}

// TestRemovingAPropLetsWhatItHeldFall: a crate asleep on another falls
// when the one below is removed. box2d wakes it as it destroys their
// contact, and the next step's gather must not put it back to sleep from
// its components, which still say it sleeps.
func TestRemovingAPropLetsWhatItHeldFall(t *testing.T) {
	w, s := gravityWorld(), newStore()
	addFloor(t, w, s, eid(1))
	add(t, w, s, eid(2), def(entity.Dynamic, box(1, 1)), 0, 0.5)
	high := add(t, w, s, eid(3), def(entity.Dynamic, box(1, 1)), 0, 1.5)
	steps(w, s, 100)
	if high.rb.Awake {
		t.Fatal("the pile never slept")
	}
	w.Remove(eid(2))
	delete(s.poses, eid(2))
	steps(w, s, 64)
	if high.t.Y > 0.6 {
		t.Errorf("the crate above a removed one hangs at y = %g", high.t.Y)
	}
}

package physics

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// What a body is while the game runs, beside its pose and motion (which
// are its components'): forces and torques for the coming step, its mass,
// its type, whether it takes part at all, its gravity and damping, and its
// shapes. Each change below is box2d's own, made outside a step, with the
// port's defects worked around; each wakes the body where box2d would, and
// the next step's gather then sets its Rigidbody.Awake (World.wake).

// errNoBody is the refusal of a change to a body that does not exist.
func errNoBody(id entity.ID) error { return fmt.Errorf("physics: %v has no body", id) }

// dynamic returns id's body when it is dynamic, which is what forces move.
func (w *World) dynamic(id entity.ID) (*body, bool) {
	r, ok := w.byID[id]
	return r, ok && r.kind == entity.Dynamic
}

// ApplyForce adds a force (N) through the centre of mass of id's body for
// the coming step, and wakes it. A force lasts one step: apply it every
// tick it should push. It does nothing to a body that is not dynamic, or
// for a non-finite force.
func (w *World) ApplyForce(id entity.ID, fx, fy float64) {
	if r, ok := w.dynamic(id); ok && finite(fx, fy) {
		r.b.ApplyForceToCenter(box2d.MakeB2Vec2(fx, fy), true)
		w.wake(r.b)
	}
}

// ApplyForceAt adds a force (N) at the world point (px, py) of id's body
// for the coming step, which turns it too unless the force's line runs
// through the centre of mass, and wakes it. It does nothing to a body that
// is not dynamic, or for non-finite values.
func (w *World) ApplyForceAt(id entity.ID, fx, fy, px, py float64) {
	if r, ok := w.dynamic(id); ok && finite(fx, fy, px, py) {
		r.b.ApplyForce(box2d.MakeB2Vec2(fx, fy), box2d.MakeB2Vec2(px, py), true)
		w.wake(r.b)
	}
}

// ApplyTorque adds a torque (N·m, counter-clockwise) to id's body for the
// coming step, and wakes it. It does nothing to a body that is not
// dynamic, or for a non-finite torque.
func (w *World) ApplyTorque(id entity.ID, torque float64) {
	if r, ok := w.dynamic(id); ok && finite(torque) {
		r.b.ApplyTorque(torque, true)
		w.wake(r.b)
	}
}

// MassData is a body's mass and how it is spread.
type MassData struct {
	// Mass is in kg; 0 for a static or kinematic body.
	Mass float64
	// Inertia is the rotational inertia about the centre of mass (kg·m²);
	// 0 for a body that cannot turn (static, kinematic, fixed rotation).
	Inertia float64
	// CenterX, CenterY is the centre of mass in the body's own frame.
	CenterX, CenterY float64
}

// MassData returns the mass, inertia and centre of mass of id's body, and
// false when it has none.
func (w *World) MassData(id entity.ID) (MassData, bool) {
	r, ok := w.byID[id]
	if !ok {
		return MassData{}, false
	}
	b := r.b
	m := MassData{CenterX: b.M_sweep.LocalCenter.X, CenterY: b.M_sweep.LocalCenter.Y}
	if r.kind == entity.Dynamic {
		m.Mass = b.M_mass
		if b.M_invI > 0 {
			m.Inertia = 1 / b.M_invI
		}
	}
	return m, true
}

// Impulse returns the change of velocity (m/s) and angular velocity
// (rad/s) an impulse (ix, iy) (N·s) at the world point (px, py), with an
// angular impulse (N·m·s), makes to a body of this mass standing at t. A
// behavior's impulse is a change to its entity's Rigidbody, which the next
// step gathers like any other write; so it is worked out here from the
// components, where box2d's ApplyLinearImpulse would work it out from
// where the body stood at the last step. A massless body changes by
// nothing.
func (m MassData) Impulse(t entity.Transform, ix, iy, px, py, angular float64) (dvx, dvy, dw float64) {
	if m.Mass <= 0 {
		return 0, 0, 0
	}
	xf := box2d.MakeB2Transform()
	xf.Set(box2d.MakeB2Vec2(t.X, t.Y), t.Angle)
	c := box2d.B2TransformVec2Mul(xf, box2d.MakeB2Vec2(m.CenterX, m.CenterY))
	dvx, dvy = ix/m.Mass, iy/m.Mass
	if m.Inertia > 0 {
		rx, ry := px-c.X, py-c.Y
		dw = (float64(rx*iy) - float64(ry*ix) + angular) / m.Inertia
	}
	return dvx, dvy, dw
}

// Type returns the type of id's body, and false when it has none.
func (w *World) Type(id entity.ID) (entity.BodyType, bool) {
	r, ok := w.byID[id]
	if !ok {
		return 0, false
	}
	return r.kind, true
}

// SetType makes id's body static, dynamic or kinematic. Its contacts end
// (and are found again at the next step: the port's SetType looks for new
// pairs in a copy of the broad phase, so a box made dynamic where it
// rested sank into what it rested on, and every fixture is refiltered
// here instead), its mass is worked out again, a body made static stops,
// and it is woken. A body that leaves static needs a Rigidbody in the
// store for the steps to move it. It returns an error starting "physics:
// " for an unknown body or type.
func (w *World) SetType(id entity.ID, typ entity.BodyType) error {
	r, ok := w.byID[id]
	switch {
	case !ok:
		return errNoBody(id)
	case typ > entity.Kinematic:
		return fmt.Errorf("physics: %v cannot become %v: a body is static, dynamic or kinematic", id, typ)
	case typ == r.kind:
		return nil
	}
	r.b.SetType(b2Type(typ))
	for f := r.b.M_fixtureList; f != nil; f = f.M_next {
		f.Refilter()
	}
	r.kind = typ
	r.fixed, r.rest = false, restPose{}
	w.reordered = true
	if typ != entity.Static {
		w.wake(r.b)
	}
	return nil
}

// Enabled reports whether id's body takes part in the world, and false
// when it has none.
func (w *World) Enabled(id entity.ID) bool {
	r, ok := w.byID[id]
	return ok && r.b.M_flags&box2d.B2Body_Flags.E_activeFlag != 0
}

// SetEnabled takes id's body out of the world (false) or puts it back:
// a disabled body collides with nothing, is in no query, ray cast or
// island, and does not move, though it keeps its shapes, joints and pose;
// its contacts end. Enabled again, it meets what it overlaps at the next
// step. It reports whether id has a body.
func (w *World) SetEnabled(id entity.ID, on bool) bool {
	r, ok := w.byID[id]
	if !ok {
		return false
	}
	if on == w.Enabled(id) {
		return true
	}
	r.b.SetActive(on)
	r.fixed, r.rest = false, restPose{}
	w.reordered = true
	if on && r.kind != entity.Static {
		w.wake(r.b)
	}
	return true
}

// Damping returns the linear and angular damping of id's body and its
// gravity scale, as they are now, and false when it has none.
func (w *World) Damping(id entity.ID) (linear, angular, gravityScale float64, ok bool) {
	r, ok := w.byID[id]
	if !ok {
		return 0, 0, 0, false
	}
	return r.b.M_linearDamping, r.b.M_angularDamping, r.b.M_gravityScale, true
}

// SetDamping sets the linear and angular damping (1/s) and the gravity
// scale of id's body, which the next step uses, and wakes it when any
// changes. It returns an error starting "physics: " for an unknown body,
// negative or non-finite damping or a non-finite gravity scale, and
// changes nothing then.
func (w *World) SetDamping(id entity.ID, linear, angular, gravityScale float64) error {
	r, ok := w.byID[id]
	switch {
	case !ok:
		return errNoBody(id)
	case !finite(linear, angular, gravityScale) || linear < 0 || angular < 0:
		return fmt.Errorf("physics: %v: damping %v, %v must be finite and at least 0, and gravity scale %v finite", id, linear, angular, gravityScale)
	}
	b := r.b
	if b.M_linearDamping == linear && b.M_angularDamping == angular && b.M_gravityScale == gravityScale {
		return nil
	}
	b.M_linearDamping, b.M_angularDamping, b.M_gravityScale = linear, angular, gravityScale
	if r.kind != entity.Static {
		w.wake(b)
	}
	return nil
}

// ShapeCount is the number of shapes of id's body (0 when it has none).
func (w *World) ShapeCount(id entity.ID) int {
	if r, ok := w.byID[id]; ok {
		return r.b.M_fixtureCount
	}
	return 0
}

// AddShape adds a shape to id's body, after its others, and returns its
// place among them (from 0). A shape with density changes the body's mass;
// what it overlaps is met at the next step. It returns an error starting
// "physics: " for an unknown body or a shape CheckShape refuses (wrapping
// its *ShapeError), and changes nothing then.
func (w *World) AddShape(id entity.ID, s *entity.Shape) (int, error) {
	r, ok := w.byID[id]
	if !ok {
		return 0, errNoBody(id)
	}
	if e := CheckShape(s); e != nil {
		return 0, fmt.Errorf("physics: %v new shape: %w", id, e)
	}
	shape, err := makeShape(s)
	if err != nil {
		return 0, fmt.Errorf("physics: %v new shape: %w", id, err)
	}
	i := r.b.M_fixtureCount
	f := r.b.CreateFixtureFromDef(fixtureDef(s, shape))
	f.M_userData = i
	if s.OneWay || r.oneWay != nil {
		r.oneWay = append(r.oneWay, make([]bool, i+1-len(r.oneWay))...)
		r.oneWay[i] = s.OneWay
	}
	r.fixed = false
	w.reordered = true
	if r.kind != entity.Static {
		w.wake(r.b)
	}
	return i, nil
}

// errLastShape refuses removing a body's only shape.
var errLastShape = errors.New("a body keeps at least one shape: disable it (SetEnabled) or remove the body instead")

// RemoveShape removes shape i of id's body; the shapes after it move down
// one place. Its contacts end, and the body's mass is worked out again. It
// returns an error starting "physics: " for an unknown body or shape, or
// for the body's last shape, and changes nothing then.
func (w *World) RemoveShape(id entity.ID, i int) error {
	r, ok := w.byID[id]
	if !ok {
		return errNoBody(id)
	}
	f := fixtureAt(r.b, int32(i))
	switch {
	case f == nil:
		return fmt.Errorf("physics: %v has no shape %d", id, i)
	case r.b.M_fixtureCount == 1:
		return fmt.Errorf("physics: %v: %w", id, errLastShape)
	}
	r.b.DestroyFixture(f)
	for g := r.b.M_fixtureList; g != nil; g = g.M_next {
		if j, _ := g.M_userData.(int); j > i {
			g.M_userData = j - 1 // a shape's index is its place in the list
		}
	}
	if r.oneWay != nil {
		if i < len(r.oneWay) {
			r.oneWay = slices.Delete(r.oneWay, i, i+1)
		}
		if !slices.Contains(r.oneWay, true) {
			r.oneWay = nil
		}
	}
	r.fixed = false
	w.reordered = true
	if r.kind != entity.Static {
		w.wake(r.b)
	}
	return nil
}

package game

import (
	"errors"
	"fmt"
	"slices"

	"vkm/host/project"
	"vkm/host/store"
	"vkm/internal/entity"
	"vkm/physics"
	"vkm/scripting"
)

// What a behavior does to bodies and joints beyond their components, as
// scripting.World asks it. The store's BodyDef of an entity is kept as the
// body now is (its type, shapes, filters, damping), so that what is drawn,
// and what a spawn record's reader sees, is the body and not the file it
// came from. None of it is sent: a client makes the same change where it
// runs the same behavior, as with every write a behavior makes.

// BodyEdits counts the changes made to bodies' shapes and types since the
// game began: a view redraws the scene's shapes when it changes.
func (g *Game) BodyEdits() uint64 { return g.bodyEdits }

// edited returns id's BodyDef for a change, counting the change.
func (g *world) edited(id entity.ID) *entity.BodyDef {
	g.bodyEdits++
	return g.store.Body(id)
}

func (g *world) Body(id entity.ID) (scripting.BodyInfo, bool) {
	def := g.store.Body(id)
	if def == nil {
		return scripting.BodyInfo{}, false
	}
	if def.Type == entity.Decoration || !g.phys.Has(id) {
		return scripting.BodyInfo{Type: def.Type, Shapes: len(def.Shapes)}, true
	}
	m, _ := g.phys.MassData(id)
	lin, ang, grav, _ := g.phys.Damping(id)
	typ, _ := g.phys.Type(id)
	c := store.Compose(*g.store.Transform(id), entity.Transform{X: m.CenterX, Y: m.CenterY, Scale: 1})
	return scripting.BodyInfo{
		Type: typ, Enabled: g.phys.Enabled(id),
		Mass: m.Mass, Inertia: m.Inertia, CenterX: c.X, CenterY: c.Y,
		LinearDamping: lin, AngularDamping: ang, GravityScale: grav,
		Shapes: g.phys.ShapeCount(id),
	}, true
}

// mayPush reports whether a behavior of by may push id on this end: id is
// simulated here, or by is and leases id for the push (a client's shot
// knocking a crate), as ApplyImpulse decides.
func (g *world) mayPush(by, id entity.ID) bool {
	if g.Simulates(id) {
		return true
	}
	return !by.IsNone() && g.Simulates(by) && g.phys.Mass(id) > 0 && g.auth.Lease(by, id)
}

func (g *world) Push(by, id entity.ID, p scripting.Push) {
	if !finite(p.X) || !finite(p.Y) || !finite(p.PX) || !finite(p.PY) || !finite(p.Turn) || !g.mayPush(by, id) {
		return
	}
	if !p.Impulse {
		switch {
		case p.At:
			g.phys.ApplyForceAt(id, p.X, p.Y, p.PX, p.PY)
		case p.X != 0 || p.Y != 0:
			g.phys.ApplyForce(id, p.X, p.Y)
		}
		if p.Turn != 0 {
			g.phys.ApplyTorque(id, p.Turn)
		}
		return
	}
	rb, t := g.store.Rigidbody(id), g.store.Transform(id)
	m, ok := g.phys.MassData(id)
	if rb == nil || !ok || m.Mass <= 0 {
		return
	}
	px, py := p.PX, p.PY
	if !p.At {
		c := store.Compose(*t, entity.Transform{X: m.CenterX, Y: m.CenterY, Scale: 1})
		px, py = c.X, c.Y
	}
	dvx, dvy, dw := m.Impulse(*t, p.X, p.Y, px, py, p.Turn)
	rb.VX += dvx
	rb.VY += dvy
	rb.AngularVelocity += dw
	rb.Awake = true
}

func (g *world) SetBodyType(id entity.ID, t entity.BodyType) error {
	if err := g.phys.SetType(id, t); err != nil {
		return err
	}
	g.edited(id).Type = t
	switch rb := g.store.Rigidbody(id); {
	case t == entity.Static && rb != nil:
		*rb = entity.Rigidbody{}
	case t != entity.Static && rb == nil:
		g.store.SetRigidbody(id, &entity.Rigidbody{Awake: true})
	case t != entity.Static:
		rb.Awake = true
	}
	return nil
}

func (g *world) SetEnabled(id entity.ID, on bool) { g.phys.SetEnabled(id, on) }

func (g *world) SetDamping(id entity.ID, linear, angular, gravityScale float64) error {
	if err := g.phys.SetDamping(id, linear, angular, gravityScale); err != nil {
		return err
	}
	d := g.store.Body(id)
	d.LinearDamping, d.AngularDamping, d.GravityScale = linear, angular, gravityScale
	return nil
}

func (g *world) Shape(id entity.ID, i int) (entity.Shape, bool) {
	d := g.store.Body(id)
	if d == nil || i < 0 || i >= len(d.Shapes) {
		return entity.Shape{}, false
	}
	return d.Shapes[i], true
}

// errNoBody refuses a shape change of an entity that is not alive.
var errNoBody = errors.New("the entity is gone")

func (g *world) AddShape(id entity.ID, s entity.Shape) (int, error) {
	if !g.store.Alive(id) {
		return 0, errNoBody
	}
	if e := physics.CheckShape(&s); e != nil {
		return 0, e
	}
	d := g.store.Body(id)
	if d == nil {
		// Shapes with no body are a decoration: drawn, never simulated.
		d = &entity.BodyDef{Type: entity.Decoration}
		g.store.SetBody(id, d)
	}
	if g.phys.Has(id) {
		if _, err := g.phys.AddShape(id, &s); err != nil {
			return 0, err
		}
	}
	d = g.edited(id)
	d.Shapes = append(d.Shapes, s)
	return len(d.Shapes) - 1, nil
}

func (g *world) RemoveShape(id entity.ID, i int) error {
	d := g.store.Body(id)
	switch {
	case d == nil || i < 0 || i >= len(d.Shapes):
		return fmt.Errorf("the entity has no shape %d", i+1)
	case g.phys.Has(id):
		if err := g.phys.RemoveShape(id, i); err != nil {
			return err
		}
	case len(d.Shapes) == 1:
		return errors.New("a decoration keeps at least one shape: destroy the entity instead")
	}
	d = g.edited(id)
	d.Shapes = slices.Delete(d.Shapes, i, i+1)
	return nil
}

func (g *world) SetShapeFilter(id entity.ID, i int, category, mask uint16, group int16) error {
	d := g.store.Body(id)
	if d == nil || i < 0 || i >= len(d.Shapes) {
		return fmt.Errorf("the entity has no shape %d", i+1)
	}
	if g.phys.Has(id) {
		if err := g.phys.SetFilter(id, i, physics.Filter{Category: category, Mask: mask, Group: group}); err != nil {
			return err
		}
	}
	s := &d.Shapes[i]
	s.Category, s.Mask, s.Group = category, mask, group
	return nil
}

// --- joints ---

func (g *world) MakeJoint(a, b entity.ID, spec *entity.JointSpec, name string) (uint32, error) {
	body := func(id entity.ID, which string) (entity.Transform, bool, error) {
		typ, ok := g.phys.Type(id)
		if !ok || !g.store.Alive(id) {
			return entity.Transform{}, false, fmt.Errorf("%s (%v) has no physics body to join", which, id)
		}
		return *g.store.Transform(id), typ == entity.Dynamic, nil
	}
	ta, dynA, err := body(a, "a")
	if err != nil {
		return 0, err
	}
	tb, dynB := entity.Identity, false
	if !b.IsNone() {
		if tb, dynB, err = body(b, "b"); err != nil {
			return 0, err
		}
		if a == b {
			return 0, errors.New("a joint joins two different entities (nil for b joins a to the world)")
		}
	}
	if key, reason := project.CheckJointBodies(spec.Kind, dynA, dynB, b.IsNone()); reason != "" {
		return 0, fmt.Errorf("%s: %s", key, reason)
	}
	d, e := project.ResolveJoint(spec, ta, tb, b.IsNone())
	if e != nil {
		return 0, fmt.Errorf("%s: %s", scripting.JointOptionKey(e.Key), e.Reason)
	}
	j, err := g.phys.AddJoint(a, b, &d)
	if err != nil {
		return 0, err
	}
	if name != "" {
		g.jointNames[j] = name
	}
	return uint32(j), nil
}

func (g *world) RemoveJoint(j uint32) {
	if g.phys.RemoveJoint(physics.JointID(j)) {
		delete(g.jointNames, physics.JointID(j))
	}
}

func (g *world) Joint(j uint32) (scripting.JointInfo, bool) {
	id := physics.JointID(j)
	a, b, ok := g.phys.JointBodies(id)
	if !ok {
		return scripting.JointInfo{}, false
	}
	d, _ := g.phys.Joint(id)
	r, _ := g.phys.JointReading(id)
	return scripting.JointInfo{
		Kind: d.Kind, A: a, B: b, Name: g.jointNames[id], Def: d,
		ForceX: r.ForceX, ForceY: r.ForceY, Torque: r.Torque, Motor: r.Motor,
		Angle: r.Angle, Translation: r.Translation, Speed: r.Speed, Length: r.Length,
		AX: r.AX, AY: r.AY, BX: r.BX, BY: r.BY,
	}, true
}

func (g *world) SetJoint(j uint32, d entity.JointDef) error {
	err := g.phys.SetJoint(physics.JointID(j), &d)
	var je *physics.JointError
	if errors.As(err, &je) {
		return fmt.Errorf("%s: %s", scripting.JointOptionKey(je.Key), je.Reason)
	}
	return err
}

func (g *world) JointsOf(id entity.ID, fn func(uint32) bool) {
	g.phys.JointsOf(id, func(j physics.JointID) bool { return fn(uint32(j)) })
}

package physics

import (
	"errors"
	"fmt"

	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// Add creates id's body from def, placed at pose t with motion rb.
//
// The body starts exactly as a later Step's gather would leave it: pose from
// t, then awake from rb.Awake, then velocities from rb (a non-zero velocity
// wakes the body). So rb.Awake false with zero velocity creates the body
// asleep, as a restored snapshot would; box2d still wakes it when its first
// contact appears. Transform.Scale is ignored. def.GravityScale is taken
// literally, so a def with GravityScale 0 floats.
//
// Shapes are in the body frame: a Box is W×H centred on Offset and turned by
// Angle, a Circle has Radius around Offset, and Polygon and Chain points are
// shifted by Offset. Polygon points may go round either way: box2d orders
// them counter-clockwise itself. Each fixture collides as its Category,
// Mask and Group say (box2d's filter; 0 category and mask are box2d's
// defaults, so a shape that says nothing collides with everything), and a
// OneWay shape only with what meets it from its body's up side (see
// World.SetFilter and contact.go).
//
// Add returns an error starting "physics: ", and leaves w unchanged, for a
// nil def, the zero ID, an id that already has a body, an unknown body type,
// a non-finite transform or velocity, negative or non-finite damping, a
// non-finite gravity scale, and a shape CheckShape refuses (the error then
// wraps its *ShapeError). It checks before calling box2d, which panics on
// bad geometry, and turns any box2d assertion it still meets into an error.
func (w *World) Add(id entity.ID, def *entity.BodyDef, t entity.Transform, rb entity.Rigidbody) error {
	if err := w.validateAdd(id, def, t, rb); err != nil {
		return err
	}
	return w.create(id, def, t, rb)
}

// create builds and inserts the body of a validated Add.
func (w *World) create(id entity.ID, def *entity.BodyDef, t entity.Transform, rb entity.Rigidbody) (err error) {
	// Validation should make box2d's asserts unreachable; this is the last
	// line of defence, so a missed case is an error and not a crashed server.
	var b *box2d.B2Body
	w.reordered = true // box2d puts a new body first in its list
	defer func() {
		if p := recover(); p != nil {
			if b != nil {
				w.b2.DestroyBody(b)
			}
			err = fmt.Errorf("physics: box2d rejected %v's body: %v", id, p)
		}
	}()
	shapes, err := makeShapes(id, def.Shapes)
	if err != nil {
		return err
	}
	b = w.b2.CreateBody(bodyDef(def, t))
	for i := range def.Shapes {
		f := b.CreateFixtureFromDef(fixtureDef(&def.Shapes[i], shapes[i]))
		f.M_userData = i // its place in a contact's canonical key
	}
	// FixedRotation is set after the fixtures, by SetFixedRotation: only it
	// zeroes the angular velocity (the feasibility note's gotcha).
	b.SetFixedRotation(def.FixedRotation)

	r := &body{id: id, kind: def.Type, b: b}
	for i := range def.Shapes {
		if def.Shapes[i].OneWay {
			if r.oneWay == nil {
				r.oneWay = make([]bool, len(def.Shapes))
			}
			r.oneWay[i] = true
		}
	}
	b.M_userData = r
	if r.kind != entity.Static {
		w.gather(b, &t, &rb)
	}
	r.left = isAwake(b)
	w.insert(r)
	return nil
}

// bodyDef returns the box2d body definition for def at pose t. Velocities
// and sleep come later, from the same gather Step uses.
func bodyDef(def *entity.BodyDef, t entity.Transform) *box2d.B2BodyDef {
	bd := box2d.MakeB2BodyDef()
	bd.Type = b2Type(def.Type)
	bd.Position = box2d.MakeB2Vec2(t.X, t.Y)
	bd.Angle = t.Angle
	bd.Bullet = def.Bullet
	bd.LinearDamping = def.LinearDamping
	bd.AngularDamping = def.AngularDamping
	bd.GravityScale = def.GravityScale
	return &bd
}

// fixtureDef returns the box2d fixture definition for s with its built
// shape.
func fixtureDef(s *entity.Shape, shape box2d.B2ShapeInterface) *box2d.B2FixtureDef {
	fd := box2d.MakeB2FixtureDef()
	// MakeB2FixtureDef leaves Filter zero, which collides with nothing once
	// the contact filter is installed.
	fd.Filter = b2Filter(s.Category, s.Mask, s.Group)
	fd.Shape = shape
	fd.Density = s.Density
	fd.Friction = s.Friction
	fd.Restitution = s.Restitution
	fd.IsSensor = s.Sensor
	return &fd
}

// b2Filter is box2d's filter for a shape's category, mask and group, 0
// category and mask meaning box2d's defaults: category 1, and colliding
// with every category.
func b2Filter(category, mask uint16, group int16) box2d.B2Filter {
	f := box2d.MakeB2Filter()
	if category != 0 {
		f.CategoryBits = category
	}
	if mask != 0 {
		f.MaskBits = mask
	}
	f.GroupIndex = group
	return f
}

// makeShapes builds the box2d shapes of validated shapes.
func makeShapes(id entity.ID, shapes []entity.Shape) ([]box2d.B2ShapeInterface, error) {
	out := make([]box2d.B2ShapeInterface, len(shapes))
	for i := range shapes {
		s, err := makeShape(&shapes[i])
		if err != nil {
			return nil, fmt.Errorf("physics: %v shape %d: %w", id, i, err)
		}
		out[i] = s
	}
	return out, nil
}

// validateAdd checks an Add's arguments, shapes included, before anything
// reaches box2d.
func (w *World) validateAdd(id entity.ID, def *entity.BodyDef, t entity.Transform, rb entity.Rigidbody) error {
	switch {
	case def == nil:
		return fmt.Errorf("physics: %v has a nil body def", id)
	case id.IsNone():
		return errors.New("physics: cannot add a body for the zero ID")
	case w.Has(id):
		return fmt.Errorf("physics: %v already has a body", id)
	case def.Type == entity.Decoration:
		return fmt.Errorf("physics: %v is a decoration: its shapes are drawn, and it has no physics body", id)
	case def.Type > entity.Kinematic:
		return fmt.Errorf("physics: %v has unknown body type %v", id, def.Type)
	case !finite(t.X, t.Y, t.Angle):
		return fmt.Errorf("physics: %v has a non-finite transform %+v", id, t)
	case !finite(rb.VX, rb.VY, rb.AngularVelocity):
		return fmt.Errorf("physics: %v has a non-finite velocity %+v", id, rb)
	case !finite(def.LinearDamping, def.AngularDamping, def.GravityScale):
		return fmt.Errorf("physics: %v has a non-finite damping or gravity scale", id)
	case def.LinearDamping < 0 || def.AngularDamping < 0:
		return fmt.Errorf("physics: %v has negative damping", id)
	}
	for i := range def.Shapes {
		if err := CheckShape(&def.Shapes[i]); err != nil {
			return fmt.Errorf("physics: %v shape %d: %w", id, i, err)
		}
	}
	return nil
}

// b2Type maps a validated entity.BodyType to box2d's.
func b2Type(t entity.BodyType) uint8 {
	switch t {
	case entity.Dynamic:
		return box2d.B2BodyType.B2_dynamicBody
	case entity.Kinematic:
		return box2d.B2BodyType.B2_kinematicBody
	}
	return box2d.B2BodyType.B2_staticBody
}

// makeShape builds the box2d shape for a validated s, in the body frame.
func makeShape(s *entity.Shape) (box2d.B2ShapeInterface, error) {
	off := box2d.MakeB2Vec2(s.Offset.X, s.Offset.Y)
	switch s.Kind {
	case entity.Box:
		p := box2d.MakeB2PolygonShape()
		p.SetAsBoxFromCenterAndAngle(s.W/2, s.H/2, off, s.Angle)
		return &p, nil
	case entity.Circle:
		c := box2d.MakeB2CircleShape()
		c.M_radius = s.Radius
		c.M_p = off
		return &c, nil
	case entity.Polygon:
		p := box2d.MakeB2PolygonShape()
		vs := shiftedPoints(s)
		p.Set(vs, len(vs))
		if p.M_count != len(vs) {
			// CheckShape guarantees a strictly convex polygon, whose hull
			// keeps every point (in either winding); anything else is a
			// gap in its rules.
			return nil, fmt.Errorf("box2d kept %d of %d polygon points", p.M_count, len(vs))
		}
		return &p, nil
	case entity.Chain:
		c := box2d.MakeB2ChainShape()
		vs := shiftedPoints(s)
		if s.Loop {
			c.CreateLoop(vs, len(vs))
		} else {
			c.CreateChain(vs, len(vs))
		}
		return &c, nil
	}
	return nil, fmt.Errorf("unknown shape kind %v", s.Kind)
}

// shiftedPoints returns s.Points moved by s.Offset, as box2d vectors.
func shiftedPoints(s *entity.Shape) []box2d.B2Vec2 {
	vs := make([]box2d.B2Vec2, len(s.Points))
	for i, p := range s.Points {
		vs[i] = box2d.MakeB2Vec2(p.X+s.Offset.X, p.Y+s.Offset.Y)
	}
	return vs
}

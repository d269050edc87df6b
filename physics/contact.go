package physics

import (
	"math"

	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// Contact is a change in what touches: two shapes began or ended
// touching, sensors included. A World records them as box2d finds them
// (Contacts), in the order of its contact list, which is the same on
// every end that steps the same world.
type Contact struct {
	// A and B are the entities whose shapes touch, ShapeA and ShapeB the
	// shapes' places in their bodies' lists of shapes.
	A, B           entity.ID
	ShapeA, ShapeB int
	// Begin is true when the shapes began to touch, false when they
	// stopped.
	Begin bool
	// Sensor is true when either shape is a sensor.
	Sensor bool
	// At a begin: X, Y is where they touch, NX, NY the unit normal from A
	// toward B, and Speed how fast they were closing along it (m/s, 0 or
	// more). A sensor has no contact point: X, Y is the middle of where
	// the two shapes' boxes overlap and the normal runs from A's centre
	// toward B's. Zero at an end.
	X, Y, NX, NY, Speed float64
}

// Contacts calls fn with every contact begun or ended since the last call,
// in the order they happened, and forgets them. Steps record them; so do
// Remove, which ends a removed body's touching contacts, and the other
// calls that destroy contacts. Restore records none. A World that is never
// asked keeps at most maxContactEvents of them.
func (w *World) Contacts(fn func(Contact)) {
	evs := w.events
	w.events = nil // fn may step or change the world, which records anew
	for _, e := range evs {
		fn(e)
	}
	if w.events == nil {
		w.events = evs[:0]
	}
}

// DropContacts forgets every contact recorded since the last call to
// Contacts: a replayed tick's, which were presented when the tick first
// ran.
func (w *World) DropContacts() { w.events = w.events[:0] }

// maxContactEvents bounds what a World keeps of contacts nobody asks for:
// a world the host never drains (a tool's, a test's) does not grow
// without end.
const maxContactEvents = 4096

// listener is the World's box2d contact listener: it records contacts
// beginning and ending, and makes one-way shapes let through what comes
// at them from their underside.
type listener struct{ w *World }

var _ box2d.B2ContactListenerInterface = (*listener)(nil)

// One-way contacts keep their decision in box2d's contact flags, above
// the bits box2d uses, so that it is saved and restored with the contact
// (State) and lasts from the step the shapes first touch until they part.
const (
	oneWayDecided = 1 << 16 // the decision below was made for this touch
	oneWayPassing = 1 << 17 // the other shape is let through
)

func (l *listener) BeginContact(c box2d.B2ContactInterface) {
	d := contactData(c)
	d.M_flags &^= oneWayDecided | oneWayPassing // a new touch decides anew
	l.w.record(d, true)
}

func (l *listener) EndContact(c box2d.B2ContactInterface) {
	d := contactData(c)
	d.M_flags &^= oneWayDecided | oneWayPassing
	l.w.record(d, false)
}

// PreSolve disables, for this step, a contact a one-way shape lets
// through. It runs for every touching solid contact of an awake body,
// before the solver.
func (l *listener) PreSolve(c box2d.B2ContactInterface, _ box2d.B2Manifold) {
	d := contactData(c)
	fa, fb := d.M_fixtureA, d.M_fixtureB
	wayA, wayB := oneWay(fa), oneWay(fb)
	if !wayA && !wayB {
		return
	}
	if d.M_flags&oneWayDecided == 0 {
		d.M_flags |= oneWayDecided
		if wayA && l.w.passes(d, fa, fb, 1) || wayB && l.w.passes(d, fb, fa, -1) {
			d.M_flags |= oneWayPassing
		}
	}
	if d.M_flags&oneWayPassing != 0 {
		c.SetEnabled(false)
	}
}

func (l *listener) PostSolve(box2d.B2ContactInterface, *box2d.B2ContactImpulse) {}

// One-way tolerances: what meets a one-way shape is stopped only when the
// contact's normal points within 60° of the shape's up and it is not
// moving up through it faster than a resting body jitters.
const (
	oneWayNormal = 0.5
	oneWaySpeed  = 0.25 // m/s
)

// passes reports whether the one-way fixture way lets other through, at
// the first step they touch: unless other lies on its up side (the
// contact's normal from way to other within 60° of way's body's +y) and is
// not moving up through it. sign is 1 when way is the contact's A (the
// normal box2d gives runs from A to B), -1 when it is B.
func (w *World) passes(d *box2d.B2Contact, way, other *box2d.B2Fixture, sign float64) bool {
	var m box2d.B2WorldManifold
	d.GetWorldManifold(&m)
	q := way.M_body.M_xf.Q
	up := box2d.MakeB2Vec2(-q.S, q.C)
	n := box2d.B2Vec2MulScalar(sign, m.Normal)
	if box2d.B2Vec2Dot(n, up) < oneWayNormal {
		return true
	}
	rel := box2d.B2Vec2Sub(other.M_body.M_linearVelocity, way.M_body.M_linearVelocity)
	return box2d.B2Vec2Dot(rel, up) > oneWaySpeed
}

// oneWay reports whether f is a one-way shape.
func oneWay(f *box2d.B2Fixture) bool {
	r, ok := f.M_body.M_userData.(*body)
	if !ok || r.oneWay == nil {
		return false
	}
	i, _ := f.M_userData.(int)
	return i >= 0 && i < len(r.oneWay) && r.oneWay[i]
}

// letThrough reports whether c is a contact a one-way shape is letting
// through: no push, no island.
func letThrough(c *box2d.B2Contact) bool { return c.M_flags&oneWayPassing != 0 }

// record notes that c began (or ended) touching.
func (w *World) record(c *box2d.B2Contact, begin bool) {
	if len(w.events) >= maxContactEvents {
		return
	}
	fa, fb := c.M_fixtureA, c.M_fixtureB
	ia, _ := fa.M_userData.(int)
	ib, _ := fb.M_userData.(int)
	e := Contact{
		A: w.entityOf(fa.M_body), B: w.entityOf(fb.M_body), ShapeA: ia, ShapeB: ib,
		Begin: begin, Sensor: fa.M_isSensor || fb.M_isSensor,
	}
	if begin {
		contactPoint(c, &e)
	}
	w.events = append(w.events, e)
}

// contactPoint fills e's point, normal and closing speed from c, as it
// touches at the start of the step.
func contactPoint(c *box2d.B2Contact, e *Contact) {
	fa, fb := c.M_fixtureA, c.M_fixtureB
	ba, bb := fa.M_body, fb.M_body
	var p, n box2d.B2Vec2
	if e.Sensor || c.M_manifold.PointCount == 0 {
		boxA, boxB := fa.M_proxies[c.M_indexA].Aabb, fb.M_proxies[c.M_indexB].Aabb
		lo := box2d.B2Vec2Max(boxA.LowerBound, boxB.LowerBound)
		hi := box2d.B2Vec2Min(boxA.UpperBound, boxB.UpperBound)
		p = box2d.B2Vec2MulScalar(0.5, box2d.B2Vec2Add(lo, hi))
		n = box2d.B2Vec2Sub(bb.M_sweep.C, ba.M_sweep.C)
		if l := n.Length(); l > 0 {
			n = box2d.B2Vec2MulScalar(1/l, n)
		}
	} else {
		var m box2d.B2WorldManifold
		c.GetWorldManifold(&m)
		n = m.Normal
		p = m.Points[0]
		if c.M_manifold.PointCount > 1 {
			p = box2d.B2Vec2MulScalar(0.5, box2d.B2Vec2Add(m.Points[0], m.Points[1]))
		}
	}
	va := box2d.B2Vec2Add(ba.M_linearVelocity, box2d.B2Vec2CrossScalarVector(ba.M_angularVelocity, box2d.B2Vec2Sub(p, ba.M_sweep.C)))
	vb := box2d.B2Vec2Add(bb.M_linearVelocity, box2d.B2Vec2CrossScalarVector(bb.M_angularVelocity, box2d.B2Vec2Sub(p, bb.M_sweep.C)))
	e.X, e.Y, e.NX, e.NY = p.X, p.Y, n.X, n.Y
	e.Speed = math.Max(0, -box2d.B2Vec2Dot(box2d.B2Vec2Sub(vb, va), n))
}

package physics

import (
	"math"

	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// Bodies is how Step reads and writes the entity store. The host implements
// it; tests use a map.
type Bodies interface {
	// Simulates is the one predicate (DESIGN.md): whether this peer
	// simulates id this tick.
	Simulates(id entity.ID) bool
	// Pose returns pointers to id's Transform and Rigidbody in the store,
	// or nil, nil if the entity has none. Step writes through them.
	Pose(id entity.ID) (*entity.Transform, *entity.Rigidbody)
}

// Step advances the world by one fixed step (Config.Step).
//
// Gather: for each non-static body whose entity b simulates, in slot order,
// the store's Transform and Rigidbody are copied into the box2d body, each
// field only where it differs bit for bit from what the body holds, so an
// untouched component leaves sleep timers and contacts alone while a
// component a caller changed (a teleport, a jump) takes effect. Non-finite
// component values are not gathered (writeback then repairs them). Awake is
// gathered literally: a sleeping body given a new Transform but not Awake
// stays asleep where it was put unless it lands in contact with something.
//
// Solve: the broad phase finds the pairs of every body moved since the
// last step, box2d's lists are put in an order that depends on the world's
// state and not on its history (canonicalize), and box2d steps once. A
// body that only a new pair woke is put back to sleep (keepAsleep).
//
// Writeback: for the same bodies, position, angle, velocity, angular
// velocity and awake are copied back into the components, rounded by
// Config.Quantize when it is set, and the body takes the rounded values.
// Then the contacts of bodies that have just fallen asleep are cleared of
// their history (restSleepers).
//
// So two Worlds that hold the same bodies at the same poses and velocities
// step to the same bits whatever order they made them in and whatever
// moved them there, as long as both round by the same Quantize and their
// awake bodies' contacts carry the same warm-starting impulses: those are
// the history box2d keeps, and a sleeping body carries none.
//
// A body whose entity is not simulated is neither gathered nor written back:
// its components and its body drift apart until it is simulated again. A nil
// b gathers and writes back nothing.
func (w *World) Step(b Bodies) {
	for _, r := range w.order {
		if t, rb := w.simulated(b, r); t != nil {
			gather(r.b, t, rb)
		}
	}
	w.noteSleepers()
	// Pairs of a body moved since the last step (a teleport, a body placed
	// from a snapshot, the rounding of the last writeback) are otherwise
	// found only at the end of the solve, so the moved body would pass
	// through what it landed in for a step; and when box2d finds them
	// would depend on what moved, which is not the same on every end.
	w.b2.M_contactManager.FindNewContacts()
	w.b2.M_flags &^= box2d.B2World_Flags.E_newFixture
	w.keepAsleep()
	w.canonicalize()
	w.b2.Step(w.cfg.Step, w.cfg.VelocityIterations, w.cfg.PositionIterations)
	w.keepAsleep()
	for _, r := range w.order {
		if t, rb := w.simulated(b, r); t != nil {
			w.settle(r.b, t, rb)
		}
	}
	w.restSleepers()
}

// settle writes b's pose and motion into t and rb, rounded by
// Config.Quantize when there is one, and sets the body to the rounded
// values, so that the body and its components agree until the next Step.
func (w *World) settle(b *box2d.B2Body, t *entity.Transform, rb *entity.Rigidbody) {
	writeback(b, t, rb)
	if w.cfg.Quantize == nil {
		return
	}
	w.cfg.Quantize(t, rb)
	// gather sets only what differs. A body this step put to sleep stays
	// asleep: its velocities are zero, which a quantiser keeps exact.
	gather(b, t, rb)
	writeback(b, t, rb)
}

// Adopt writes id's body into t and rb as a Step that simulated it would
// have. A client calls it for a body it starts to lease: a body it does not
// simulate is still a dynamic box2d body, so the step that first touched it
// solved the contact with the body's real mass, as the server did, and
// only the writeback was skipped. It reports false, and writes nothing, for
// a static or unknown body or nil components.
func (w *World) Adopt(id entity.ID, t *entity.Transform, rb *entity.Rigidbody) bool {
	r, ok := w.byID[id]
	if !ok || r.kind == entity.Static || t == nil || rb == nil {
		return false
	}
	w.settle(r.b, t, rb)
	return true
}

// simulated is the one place Step decides whether a body takes part in
// gather and writeback. It returns the entity's components when it does,
// or nil, nil: for static bodies (nothing to carry), entities b does not
// simulate, and entities without a Transform or a Rigidbody.
func (w *World) simulated(b Bodies, r *body) (*entity.Transform, *entity.Rigidbody) {
	if b == nil || r.kind == entity.Static || !b.Simulates(r.id) {
		return nil, nil
	}
	t, rb := b.Pose(r.id)
	if t == nil || rb == nil {
		return nil, nil
	}
	return t, rb
}

// gather copies t and rb into b where they differ bit for bit, and reports
// whether the body was moved. The order matters: awake before velocity, so a
// velocity a behavior gave a sleeping body wakes it instead of being zeroed
// by SetAwake(false). A fixed-rotation body's angular velocity is not
// gathered.
func gather(b *box2d.B2Body, t *entity.Transform, rb *entity.Rigidbody) (moved bool) {
	p := b.GetPosition()
	if (differ(t.X, p.X) || differ(t.Y, p.Y) || differ(t.Angle, b.GetAngle())) &&
		finite(t.X, t.Y, t.Angle) {
		b.SetTransform(box2d.MakeB2Vec2(t.X, t.Y), t.Angle)
		moved = true
	}
	if rb.Awake != b.IsAwake() {
		b.SetAwake(rb.Awake)
	}
	v := b.GetLinearVelocity()
	if (differ(rb.VX, v.X) || differ(rb.VY, v.Y)) && finite(rb.VX, rb.VY) {
		b.SetLinearVelocity(box2d.MakeB2Vec2(rb.VX, rb.VY))
	}
	// A fixed-rotation body given an angular velocity would spin forever
	// (box2d integrates it with zero inverse inertia), so it gets none.
	if differ(rb.AngularVelocity, b.GetAngularVelocity()) && finite(rb.AngularVelocity) &&
		!b.IsFixedRotation() {
		b.SetAngularVelocity(rb.AngularVelocity)
	}
	return moved
}

// writeback copies b's pose and motion into t and rb. Scale is untouched.
func writeback(b *box2d.B2Body, t *entity.Transform, rb *entity.Rigidbody) {
	p := b.GetPosition()
	t.X, t.Y, t.Angle = p.X, p.Y, b.GetAngle()
	v := b.GetLinearVelocity()
	rb.VX, rb.VY = v.X, v.Y
	rb.AngularVelocity = b.GetAngularVelocity()
	rb.Awake = b.IsAwake()
}

// differ reports whether a and b differ bit for bit (so 0 and -0 differ,
// and a NaN equals the same NaN).
func differ(a, b float64) bool { return math.Float64bits(a) != math.Float64bits(b) }

// Place puts id's body where t and rb say without making it simulated: a
// client moves each body it does not decide to where the server last said
// it is before every step, so what it predicts collides with the world the
// server has rather than with where its own copy drifted. Only what differs
// is set; a static or unknown body is left alone. It reports whether the
// body was moved.
func (w *World) Place(id entity.ID, t *entity.Transform, rb *entity.Rigidbody) bool {
	r, ok := w.byID[id]
	if !ok || r.kind == entity.Static || t == nil || rb == nil {
		return false
	}
	// Step finds the pairs of whatever moved before it solves.
	return gather(r.b, t, rb)
}

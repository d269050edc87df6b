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
// A body woken since the last step by what moves it from outside its
// components (a joint changed by SetJoint, a force), or by box2d itself (a
// body it rested on removed), has its Rigidbody.Awake set before it is
// gathered.
//
// A body whose entity is not simulated is neither gathered nor written back:
// its components and its body drift apart until it is simulated again. A nil
// b gathers and writes back nothing.
func (w *World) Step(b Bodies) { w.step(b, false) }

// PlaceAndStep places every body b does not simulate (Place), in slot
// order, then steps (Step): the tick of a client, which puts what the
// server decides where the server last said it is before it predicts the
// rest. It asks b about each body once.
func (w *World) PlaceAndStep(b Bodies) { w.step(b, true) }

func (w *World) step(b Bodies, place bool) {
	// Whether a body is simulated, and where its components are, cannot
	// change during the step: gather and writeback ask b once.
	poses := w.poses[:0]
	for _, r := range w.order {
		wake := r.wake
		r.wake = false
		if b == nil || r.kind == entity.Static {
			continue
		}
		sim := b.Simulates(r.id)
		if !sim && !place {
			continue
		}
		t, rb := b.Pose(r.id)
		switch {
		case t == nil || rb == nil:
		case sim:
			if wake || !r.left && isAwake(r.b) {
				rb.Awake = true // woken since the last step (World.wake, box2d)
			}
			poses = append(poses, simPose{r: r, t: t, rb: rb})
		default:
			w.gather(r.b, t, rb)
		}
	}
	for _, p := range poses {
		w.gather(p.r.b, p.t, p.rb)
	}
	w.noteSleepers()
	// Pairs of a body moved since the last step (a teleport, a body placed
	// from a snapshot, the rounding of the last writeback) are otherwise
	// found only at the end of the solve, so the moved body would pass
	// through what it landed in for a step; and when box2d finds them
	// would depend on what moved, which is not the same on every end.
	// With no proxy moved there is nothing to find.
	if w.b2.M_contactManager.M_broadPhase.M_moveCount > 0 {
		w.findNewContacts()
	}
	w.b2.M_flags &^= box2d.B2World_Flags.E_newFixture
	w.keepAsleep()
	w.canonicalize()
	box2dGlobals.Lock()
	w.stepB2(w.cfg.Step, w.cfg.VelocityIterations, w.cfg.PositionIterations)
	box2dGlobals.Unlock()
	w.keepAsleep()
	for i := range poses {
		w.settle(poses[i].r, poses[i].t, poses[i].rb)
		poses[i] = simPose{} // the scratch keeps no component alive
	}
	w.poses = poses[:0]
	w.restSleepers()
	for _, r := range w.order {
		r.left = isAwake(r.b)
	}
}

// Gather copies the components of every body b simulates into the body,
// as a Step's gather does, without stepping. A client that restored a
// State (Restore) to replay from calls it to put the server's answer,
// which its components now hold, into the bodies it decides, before the
// replayed tick's behaviors and controllers ask the world where they are.
func (w *World) Gather(b Bodies) {
	for _, r := range w.order {
		if r.kind == entity.Static || !b.Simulates(r.id) {
			continue
		}
		if t, rb := b.Pose(r.id); t != nil && rb != nil {
			w.gather(r.b, t, rb)
		}
	}
}

// simPose is a body Step gathers and writes back, with its components.
type simPose struct {
	r  *body
	t  *entity.Transform
	rb *entity.Rigidbody
}

// settle writes r's pose and motion into t and rb, rounded by
// Config.Quantize when there is one, and sets the body to the rounded
// values, so that the body and its components agree until the next Step.
//
// A body the last settle left as it found it (a pile at rest, asleep) is a
// fixed point: while neither it nor its components have changed by a bit,
// settling it again would change nothing either, and it is skipped.
func (w *World) settle(r *body, t *entity.Transform, rb *entity.Rigidbody) {
	b := r.b
	if r.fixed && bodyBits(b, t.Scale) == r.settled && poseBits(t, rb) == r.settled {
		return
	}
	writeback(b, t, rb)
	if w.cfg.Quantize == nil {
		r.fixed = false
		return
	}
	found := poseBits(t, rb)
	w.cfg.Quantize(t, rb)
	// gather sets only what differs. A body this step put to sleep stays
	// asleep: its velocities are zero, which a quantiser keeps exact.
	w.gather(b, t, rb)
	writeback(b, t, rb)
	// Equal to what writeback found, so gather set nothing: the same
	// body and components would settle to the same again.
	r.settled = poseBits(t, rb)
	r.fixed = r.settled == found
}

// settledPose is a body's pose and motion bit for bit, with the scale of
// its Transform, which a Quantize may read.
type settledPose struct {
	x, y, angle, scale, vx, vy, av uint64
	awake                          bool
}

// poseBits returns t and rb as a settledPose.
func poseBits(t *entity.Transform, rb *entity.Rigidbody) settledPose {
	return settledPose{
		x: math.Float64bits(t.X), y: math.Float64bits(t.Y), angle: math.Float64bits(t.Angle),
		scale: math.Float64bits(t.Scale),
		vx:    math.Float64bits(rb.VX), vy: math.Float64bits(rb.VY),
		av: math.Float64bits(rb.AngularVelocity), awake: rb.Awake,
	}
}

// bodyBits returns what writeback would copy out of b as a settledPose,
// with scale as given.
func bodyBits(b *box2d.B2Body, scale float64) settledPose {
	return settledPose{
		x: math.Float64bits(b.M_xf.P.X), y: math.Float64bits(b.M_xf.P.Y),
		angle: math.Float64bits(b.M_sweep.A), scale: math.Float64bits(scale),
		vx: math.Float64bits(b.M_linearVelocity.X), vy: math.Float64bits(b.M_linearVelocity.Y),
		av: math.Float64bits(b.M_angularVelocity), awake: isAwake(b),
	}
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
	w.settle(r, t, rb)
	return true
}

// gather copies t and rb into b where they differ bit for bit, and reports
// whether the body was moved. The order matters: awake before velocity, so a
// velocity a behavior gave a sleeping body wakes it instead of being zeroed
// by SetAwake(false). A fixed-rotation body's angular velocity is not
// gathered.
//
// It reads box2d's fields rather than its getters, which take the whole
// body by value.
func (w *World) gather(b *box2d.B2Body, t *entity.Transform, rb *entity.Rigidbody) (moved bool) {
	p := b.M_xf.P
	if (differ(t.X, p.X) || differ(t.Y, p.Y) || differ(t.Angle, b.M_sweep.A)) &&
		finite(t.X, t.Y, t.Angle) {
		w.setTransform(b, t.X, t.Y, t.Angle)
		moved = true
	}
	if rb.Awake != isAwake(b) {
		b.SetAwake(rb.Awake)
	}
	v := b.M_linearVelocity
	if (differ(rb.VX, v.X) || differ(rb.VY, v.Y)) && finite(rb.VX, rb.VY) {
		if keepSleepTime(b) {
			b.M_linearVelocity = box2d.MakeB2Vec2(rb.VX, rb.VY)
		} else {
			b.SetLinearVelocity(box2d.MakeB2Vec2(rb.VX, rb.VY))
		}
	}
	// A fixed-rotation body given an angular velocity would spin forever
	// (box2d integrates it with zero inverse inertia), so it gets none.
	if differ(rb.AngularVelocity, b.M_angularVelocity) && finite(rb.AngularVelocity) &&
		b.M_flags&box2d.B2Body_Flags.E_fixedRotationFlag == 0 {
		if keepSleepTime(b) {
			b.M_angularVelocity = rb.AngularVelocity
		} else {
			b.SetAngularVelocity(rb.AngularVelocity)
		}
	}
	return moved
}

// keepSleepTime reports whether gather sets b's velocity directly rather
// than through box2d's setters: b is an awake jointed body. Those setters
// wake the body, and this port's SetAwake(true) restarts its sleep timer
// even when the body is awake already (box2d's own restarts it only on
// waking). A gather sets the velocity of every awake body the wire's
// rounding moved, after every step, so through them a jointed structure
// that the rounding keeps stirring (see stoodStill) would never gather the
// half second of rest box2d asks before it sleeps. Loose bodies keep the
// setters' way, which their prediction was tuned on.
func keepSleepTime(b *box2d.B2Body) bool {
	return isAwake(b) && b.M_type == box2d.B2BodyType.B2_dynamicBody && b.M_jointList != nil
}

// setTransform does what box2d's B2Body.SetTransform does, to the same
// bits, without its allocations: box2d's fixture synchronisation passes the
// address of two local bounding boxes through the shape interface, so each
// fixture of a moved body cost two heap objects, and the writeback of every
// moving body moves it. The box here is the World's.
func (w *World) setTransform(b *box2d.B2Body, x, y, angle float64) {
	if b.M_world.M_flags&box2d.B2World_Flags.E_locked != 0 {
		return
	}
	b.M_xf.Q = w.turns.of(angle)
	b.M_xf.P = box2d.MakeB2Vec2(x, y)
	b.M_sweep.C = box2d.B2TransformVec2Mul(b.M_xf, b.M_sweep.LocalCenter)
	b.M_sweep.A = angle
	b.M_sweep.C0 = b.M_sweep.C
	b.M_sweep.A0 = angle
	bp := &b.M_world.M_contactManager.M_broadPhase
	xf := b.M_xf
	for f := b.M_fixtureList; f != nil; f = f.M_next {
		for i := 0; i < f.M_proxyCount; i++ {
			proxy := &f.M_proxies[i]
			// box2d bounds the sweep from xf to xf: two boxes computed
			// alike, whose union is either of them.
			shapeAABB(&w.aabb, f.M_shape, xf, proxy.ChildIndex)
			combineAABB(&proxy.Aabb, w.aabb, w.aabb)
			moveProxy(bp, proxy.ProxyId, proxy.Aabb, box2d.B2Vec2Sub(xf.P, xf.P))
		}
	}
}

// isAwake is b.IsAwake() without copying the body.
func isAwake(b *box2d.B2Body) bool {
	return b.M_flags&box2d.B2Body_Flags.E_awakeFlag != 0
}

// writeback copies b's pose and motion into t and rb. Scale is untouched.
func writeback(b *box2d.B2Body, t *entity.Transform, rb *entity.Rigidbody) {
	p := b.M_xf.P
	t.X, t.Y, t.Angle = p.X, p.Y, b.M_sweep.A
	v := b.M_linearVelocity
	rb.VX, rb.VY = v.X, v.Y
	rb.AngularVelocity = b.M_angularVelocity
	rb.Awake = isAwake(b)
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
	return w.gather(r.b, t, rb)
}

package physics

import (
	"math"
	"slices"

	"github.com/ByteArena/box2d"
)

// Hash returns a 64-bit FNV-1a hash of what a step reads that sets where
// things go next: every body's pose, motion and sleep in slot order, every
// joint's settings and carried impulses in the order joints are solved,
// and every contact's touching and impulses in fixture order. Two worlds
// with the same hash go on stepping to the same bits, as far as a hash can
// tell; a replay that repeats a run hashes the same after each tick. It
// names entities and not JointIDs, so two ends that made the same joints
// in another order still compare.
//
// It is a check, not a hot path: it sorts the contacts each call.
func (w *World) Hash() uint64 {
	h := fnv{sum: 14695981039346656037}
	for _, r := range w.order {
		b := r.b
		h.u64(uint64(r.id.Slot)<<32 | uint64(r.id.Gen))
		h.u64(uint64(b.M_type)<<32 | uint64(b.M_flags&box2d.B2Body_Flags.E_awakeFlag))
		h.f64(b.M_xf.P.X, b.M_xf.P.Y, b.M_sweep.A, b.M_linearVelocity.X, b.M_linearVelocity.Y, b.M_angularVelocity, b.M_sleepTime)
	}
	for _, jt := range w.jointList {
		h.u64(uint64(jt.a.Slot)<<32 | uint64(jt.a.Gen))
		h.u64(uint64(jt.b.Slot)<<32 | uint64(jt.b.Gen))
		h.u64(uint64(jt.kind))
		jointBits(jt.j, &h)
	}
	type ranked struct {
		k pairKey
		d *box2d.B2Contact
	}
	var cs []ranked
	for c := w.b2.M_contactManager.M_contactList; c != nil; {
		d := contactData(c)
		cs = append(cs, ranked{keyOf(refOf(d.M_fixtureA, d.M_indexA), refOf(d.M_fixtureB, d.M_indexB)), d})
		c = d.M_next
	}
	slices.SortFunc(cs, func(x, y ranked) int {
		if c := refCmp(x.k.lo, y.k.lo); c != 0 {
			return c
		}
		return refCmp(x.k.hi, y.k.hi)
	})
	for _, c := range cs {
		h.ref(c.k.lo)
		h.ref(c.k.hi)
		m := c.d.M_manifold
		h.u64(uint64(c.d.M_flags&(box2d.B2Contact_Flag.E_touchingFlag|oneWayDecided|oneWayPassing)) | uint64(m.PointCount)<<32)
		for i := range m.PointCount {
			h.f64(m.Points[i].NormalImpulse, m.Points[i].TangentImpulse)
		}
	}
	return h.sum
}

// jointBits feeds h the settings and carried state of j.
func jointBits(j box2d.B2JointInterface, h *fnv) {
	switch j := j.(type) {
	case *box2d.B2RevoluteJoint:
		h.f64(j.M_impulse.X, j.M_impulse.Y, j.M_impulse.Z, j.M_motorImpulse, j.M_motorSpeed, j.M_maxMotorTorque, j.M_lowerAngle, j.M_upperAngle)
		h.u64(uint64(j.M_limitState))
	case *box2d.B2PrismaticJoint:
		h.f64(j.M_impulse.X, j.M_impulse.Y, j.M_impulse.Z, j.M_motorImpulse, j.M_motorSpeed, j.M_maxMotorForce, j.M_lowerTranslation, j.M_upperTranslation)
		h.u64(uint64(j.M_limitState))
	case *box2d.B2DistanceJoint:
		h.f64(j.M_impulse, j.M_length, j.M_frequencyHz, j.M_dampingRatio)
	case *box2d.B2WeldJoint:
		h.f64(j.M_impulse.X, j.M_impulse.Y, j.M_impulse.Z, j.M_frequencyHz, j.M_dampingRatio)
	case *box2d.B2WheelJoint:
		h.f64(j.M_impulse, j.M_springImpulse, j.M_motorImpulse, j.M_motorSpeed, j.M_maxMotorTorque, j.M_frequencyHz, j.M_dampingRatio)
	case *box2d.B2MotorJoint:
		h.f64(j.M_linearImpulse.X, j.M_linearImpulse.Y, j.M_angularImpulse, j.M_linearOffset.X, j.M_linearOffset.Y, j.M_angularOffset, j.M_maxForce, j.M_maxTorque)
	case *box2d.B2RopeJoint:
		h.f64(j.M_impulse, j.M_maxLength, j.M_length)
		h.u64(uint64(j.M_state))
	case *box2d.B2MouseJoint:
		h.f64(j.M_impulse.X, j.M_impulse.Y, j.M_targetA.X, j.M_targetA.Y, j.M_maxForce)
	case *box2d.B2FrictionJoint:
		h.f64(j.M_linearImpulse.X, j.M_linearImpulse.Y, j.M_angularImpulse, j.M_maxForce, j.M_maxTorque)
	}
}

// fnv is a 64-bit FNV-1a hash fed whole words.
type fnv struct{ sum uint64 }

func (h *fnv) u64(v uint64) {
	for range 8 {
		h.sum ^= v & 0xff
		h.sum *= 1099511628211
		v >>= 8
	}
}

func (h *fnv) f64(vs ...float64) {
	for _, v := range vs {
		h.u64(math.Float64bits(v))
	}
}

func (h *fnv) ref(r fixtureRef) {
	h.u64(uint64(r.id.Slot)<<32 | uint64(r.id.Gen))
	h.u64(uint64(uint32(r.fixture))<<32 | uint64(uint32(r.child)))
}

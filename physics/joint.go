package physics

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// JointID names one joint of a World. IDs are never reused within a
// World, so an ID kept after its joint was removed names nothing. The zero
// JointID names no joint.
type JointID uint32

// joint is one box2d joint with the entities it joins.
type joint struct {
	id JointID
	// a and b are the joined entities; b is None for a joint to the world
	// (w.ground), which a mouse joint always is.
	a, b entity.ID
	kind entity.JointKind
	j    box2d.B2JointInterface
}

// jointCmp orders joints by the entities they join, then by ID. It is the
// order a body's joint list is kept in, so that box2d's solver meets a
// body's joints in an order that does not depend on when each was made:
// only joints between the same two bodies fall back on the ID, which two
// ends that make the same joints in the same order agree on.
func jointCmp(x, y *joint) int {
	if c := idCmp(x.a, y.a); c != 0 {
		return c
	}
	if c := idCmp(x.b, y.b); c != 0 {
		return c
	}
	return cmp.Compare(x.id, y.id)
}

// JointReading is what a joint did in the last step and where it stands.
type JointReading struct {
	// AX, AY and BX, BY are the anchors in the world, where each body's
	// anchor is now; a mouse joint's B is its target.
	AX, AY, BX, BY float64
	// ForceX, ForceY and Torque are what the joint applied to B in the
	// last step (A took the opposite), in N and N·m: the reaction a game
	// reads to break a joint pulled too hard. A mouse joint's are what it
	// applied to A.
	ForceX, ForceY, Torque float64
	// Motor is what the motor applied in the last step: N·m for a revolute
	// or wheel joint, N for a prismatic one, 0 for other kinds.
	Motor float64
	// Angle is B's angle less A's less the reference angle (revolute,
	// prismatic, weld; a wheel's has no reference), in radians.
	Angle float64
	// Translation is how far B's anchor stands from A's along the axis
	// (prismatic, wheel), in metres.
	Translation float64
	// Speed is how fast the joint moves: B's spin less A's for a revolute
	// or wheel joint (rad/s), the rate of Translation for a prismatic one
	// (m/s), 0 for other kinds.
	Speed float64
	// Length is the distance between the two anchors now, in metres.
	Length float64
}

// JointError says what is wrong with a joint, in words for a person
// writing it in a scene or prefab file. CheckJoint returns it, and
// AddJoint and SetJoint wrap it.
type JointError struct {
	// Key is the joint's key at fault, as a scene file spells it ("kind",
	// "anchorA", "limits", ...; see CheckJoint), or "" for the joint as a
	// whole.
	Key string
	// Reason says what is wrong and, where it helps, how to put it right.
	Reason string
}

// Error formats e as "key: reason", or the reason alone.
func (e *JointError) Error() string {
	if e.Key == "" {
		return e.Reason
	}
	return e.Key + ": " + e.Reason
}

func jointErr(key, format string, args ...any) *JointError {
	return &JointError{Key: key, Reason: fmt.Sprintf(format, args...)}
}

// Bounds of a joint's numbers, beside the shapes' (validate.go).
const (
	// maxJointExtent bounds an anchor, a target and an offset on each
	// axis, as maxChainExtent bounds level geometry: a joint to the world
	// has its anchor in world coordinates.
	maxJointExtent = maxChainExtent
	// maxJointForce bounds a motor's or a mouse joint's force and torque:
	// a crane lifting a thousand tonnes under twice Earth's gravity needs
	// 2e7 N, and within 1e9 an impulse times a step stays far from
	// overflowing.
	maxJointForce = 1e9
	// maxJointRate bounds a speed, a frequency, a damping ratio and an
	// angle, each far past anything a step can follow.
	maxJointRate = 1e6
	// minAxis is the shortest axis that still has a direction box2d can
	// take: it divides by the axis's length.
	minAxis = 1e-6
)

// MinJointLength is the shortest a distance joint or a rope may be, in
// metres: box2d's linear slop, the smallest length it resolves.
const MinJointLength = minSize

// CheckJoint reports what is wrong with def, or nil when AddJoint takes
// it. The rules, by the key a file spells:
//
//   - kind is one of entity.JointKind's.
//   - anchorA, anchorB, target, offset: finite, within 1e6 m on each axis.
//   - axis (prismatic, wheel): finite, at least 1e-6 long.
//   - referenceAngle, angularOffset, motorSpeed: finite, within 1e6.
//   - limits (revolute, prismatic): finite, and lower no greater than
//     upper, whether or not the limit is enabled.
//   - maxForce, maxTorque: 0..1e9.
//   - length (distance, rope): 0..1e6 m; 0 is the distance between the
//     anchors where the bodies stand when the joint is made.
//   - frequency, damping: 0..1e6.
//   - correction (motor): 0..1.
func CheckJoint(def *entity.JointDef) *JointError {
	if def.Kind > entity.Friction {
		return jointErr("kind", "%v is not a joint kind: revolute, prismatic, distance, weld, wheel, motor, rope, mouse or friction", def.Kind)
	}
	points := []struct {
		key string
		v   entity.Vec2
	}{{"anchorA", def.AnchorA}, {"anchorB", def.AnchorB}, {"target", def.Target}, {"offset", def.LinearOffset}}
	for _, p := range points {
		if !within(p.v.X, maxJointExtent) || !within(p.v.Y, maxJointExtent) {
			return jointErr(p.key, "[%v, %v] is out of range (finite, at most %g m on each axis)", p.v.X, p.v.Y, maxJointExtent)
		}
	}
	if def.Kind == entity.Prismatic || def.Kind == entity.Wheel {
		if !within(def.Axis.X, maxJointExtent) || !within(def.Axis.Y, maxJointExtent) ||
			!(math.Hypot(def.Axis.X, def.Axis.Y) >= minAxis) {
			return jointErr("axis", "[%v, %v] has no direction: give the direction the joint moves along, such as [1, 0]", def.Axis.X, def.Axis.Y)
		}
	}
	rates := []struct {
		key string
		v   float64
	}{{"referenceAngle", def.ReferenceAngle}, {"angularOffset", def.AngularOffset}, {"motorSpeed", def.MotorSpeed}}
	for _, r := range rates {
		if !within(r.v, maxJointRate) {
			return jointErr(r.key, "%v is out of range (finite, at most %g in size)", r.v, maxJointRate)
		}
	}
	if def.Kind == entity.Revolute || def.Kind == entity.Prismatic {
		switch {
		case !within(def.Lower, maxJointExtent) || !within(def.Upper, maxJointExtent):
			return jointErr("limits", "[%v, %v] is out of range (finite, at most %g in size)", def.Lower, def.Upper, maxJointExtent)
		case def.Lower > def.Upper:
			return jointErr("limits", "[%v, %v] is the wrong way round: the lower limit comes first", def.Lower, def.Upper)
		}
	}
	ranges := []struct {
		key      string
		v, upper float64
	}{
		{"maxForce", def.MaxForce, maxJointForce}, {"maxTorque", def.MaxTorque, maxJointForce},
		{"length", def.Length, maxJointExtent},
		{"frequency", def.Frequency, maxJointRate}, {"damping", def.DampingRatio, maxJointRate},
		{"correction", def.CorrectionFactor, 1},
	}
	for _, r := range ranges {
		if !(r.v >= 0 && r.v <= r.upper) {
			return jointErr(r.key, "%v is out of range (0..%g)", r.v, r.upper)
		}
	}
	return nil
}

// AddJoint joins a's body to b's with a joint as def describes, and
// returns its ID. b None joins a to the world, which does not move; a
// mouse joint always does (it pulls a toward def.Target). A Length of 0
// (distance, rope) is the distance between the anchors where the bodies
// stand now.
//
// Making a joint wakes neither body, as in box2d. Joined bodies do not
// collide with each other unless def.CollideConnected; a contact between
// them already touching ends at the next step.
//
// AddJoint returns an error starting "physics: ", and leaves w unchanged,
// for a def CheckJoint refuses (the error then wraps its *JointError), a
// body of a or b that does not exist, a and b the same, a joint of which
// neither body is dynamic (it would hold nothing), a mouse joint given a
// b, and a distance or rope joint whose length comes to less than 5 mm.
func (w *World) AddJoint(a, b entity.ID, def *entity.JointDef) (JointID, error) {
	ra, rb, err := w.jointBodies(a, b, def)
	if err != nil {
		return 0, err
	}
	d := *def
	if d.Kind == entity.Distance || d.Kind == entity.Rope {
		if d.Length == 0 {
			d.Length = anchorDistance(ra.b, w.bodyOrGround(rb), d.AnchorA, d.AnchorB)
		}
		if !(d.Length >= minSize) {
			return 0, fmt.Errorf("physics: joint %v–%v: %w", a, b, jointErr("length", "%v m is shorter than %s, which box2d cannot hold; pin the bodies together with a revolute joint instead", d.Length, mm(minSize)))
		}
	}
	w.nextJoint++
	jt := &joint{id: w.nextJoint, a: a, b: b, kind: d.Kind}
	jt.j = w.b2.CreateJoint(w.b2JointDef(ra.b, w.bodyOrGround(rb), &d, jt))
	if d.Kind == entity.Mouse {
		// box2d takes the pulled point to be the target; the def names it.
		jt.j.(*box2d.B2MouseJoint).M_localAnchorB = vec(d.AnchorA)
	}
	if w.joints == nil {
		w.joints = make(map[JointID]*joint)
	}
	w.joints[jt.id] = jt
	i, _ := slices.BinarySearchFunc(w.jointList, jt, jointCmp)
	w.jointList = slices.Insert(w.jointList, i, jt)
	sortJointEdges(jt.j.GetBodyA())
	sortJointEdges(jt.j.GetBodyB())
	return jt.id, nil
}

// jointBodies checks an AddJoint's arguments and returns the bodies (rb
// nil for the world).
func (w *World) jointBodies(a, b entity.ID, def *entity.JointDef) (ra, rb *body, err error) {
	if def == nil {
		return nil, nil, fmt.Errorf("physics: joint %v–%v has a nil def", a, b)
	}
	if e := CheckJoint(def); e != nil {
		return nil, nil, fmt.Errorf("physics: joint %v–%v: %w", a, b, e)
	}
	ra, ok := w.byID[a]
	if !ok {
		return nil, nil, fmt.Errorf("physics: joint %v–%v: %v has no body", a, b, a)
	}
	if !b.IsNone() {
		if rb, ok = w.byID[b]; !ok {
			return nil, nil, fmt.Errorf("physics: joint %v–%v: %v has no body", a, b, b)
		}
	}
	switch {
	case a == b:
		return nil, nil, fmt.Errorf("physics: joint %v–%v: a joint joins two different bodies", a, b)
	case def.Kind == entity.Mouse && rb != nil:
		return nil, nil, fmt.Errorf("physics: joint %v–%v: a mouse joint pulls one body toward a point in the world: give it no second body", a, b)
	case ra.kind != entity.Dynamic && (rb == nil || rb.kind != entity.Dynamic):
		return nil, nil, fmt.Errorf("physics: joint %v–%v: neither body is dynamic, so the joint would hold nothing", a, b)
	}
	return ra, rb, nil
}

// bodyOrGround returns r's box2d body, or the world's ground for nil.
func (w *World) bodyOrGround(r *body) *box2d.B2Body {
	if r != nil {
		return r.b
	}
	if w.ground == nil {
		bd := box2d.MakeB2BodyDef()
		bd.Type = box2d.B2BodyType.B2_staticBody
		w.ground = w.b2.CreateBody(&bd)
		w.reordered = true // box2d put it first in its list
	}
	return w.ground
}

// anchorDistance is how far apart the anchors pa of ba and pb of bb stand.
func anchorDistance(ba, bb *box2d.B2Body, pa, pb entity.Vec2) float64 {
	d := box2d.B2Vec2Sub(box2d.B2TransformVec2Mul(bb.M_xf, vec(pb)), box2d.B2TransformVec2Mul(ba.M_xf, vec(pa)))
	return d.Length()
}

// vec is v as a box2d vector.
func vec(v entity.Vec2) box2d.B2Vec2 { return box2d.MakeB2Vec2(v.X, v.Y) }

// unit returns v scaled to length 1; v is at least minAxis long.
func unit(v entity.Vec2) box2d.B2Vec2 {
	n := math.Hypot(v.X, v.Y)
	return box2d.MakeB2Vec2(v.X/n, v.Y/n)
}

// b2JointDef returns box2d's definition of a validated d between ba and bb.
func (w *World) b2JointDef(ba, bb *box2d.B2Body, d *entity.JointDef, jt *joint) box2d.B2JointDefInterface {
	base := func(j *box2d.B2JointDef) {
		j.BodyA, j.BodyB = ba, bb
		j.CollideConnected = d.CollideConnected
		j.UserData = jt
	}
	a, b := vec(d.AnchorA), vec(d.AnchorB)
	switch d.Kind {
	case entity.Revolute:
		j := box2d.MakeB2RevoluteJointDef()
		base(&j.B2JointDef)
		j.LocalAnchorA, j.LocalAnchorB, j.ReferenceAngle = a, b, d.ReferenceAngle
		j.EnableLimit, j.LowerAngle, j.UpperAngle = d.EnableLimit, d.Lower, d.Upper
		j.EnableMotor, j.MotorSpeed, j.MaxMotorTorque = d.EnableMotor, d.MotorSpeed, d.MaxTorque
		return &j
	case entity.Prismatic:
		j := box2d.MakeB2PrismaticJointDef()
		base(&j.B2JointDef)
		j.LocalAnchorA, j.LocalAnchorB, j.LocalAxisA, j.ReferenceAngle = a, b, unit(d.Axis), d.ReferenceAngle
		j.EnableLimit, j.LowerTranslation, j.UpperTranslation = d.EnableLimit, d.Lower, d.Upper
		j.EnableMotor, j.MotorSpeed, j.MaxMotorForce = d.EnableMotor, d.MotorSpeed, d.MaxForce
		return &j
	case entity.Distance:
		j := box2d.MakeB2DistanceJointDef()
		base(&j.B2JointDef)
		j.LocalAnchorA, j.LocalAnchorB, j.Length = a, b, d.Length
		j.FrequencyHz, j.DampingRatio = d.Frequency, d.DampingRatio
		return &j
	case entity.Weld:
		j := box2d.MakeB2WeldJointDef()
		base(&j.B2JointDef)
		j.LocalAnchorA, j.LocalAnchorB, j.ReferenceAngle = a, b, d.ReferenceAngle
		j.FrequencyHz, j.DampingRatio = d.Frequency, d.DampingRatio
		return &j
	case entity.Wheel:
		j := box2d.MakeB2WheelJointDef()
		base(&j.B2JointDef)
		// box2d normalises a wheel's axis only in Initialize.
		j.LocalAnchorA, j.LocalAnchorB, j.LocalAxisA = a, b, unit(d.Axis)
		j.EnableMotor, j.MotorSpeed, j.MaxMotorTorque = d.EnableMotor, d.MotorSpeed, d.MaxTorque
		j.FrequencyHz, j.DampingRatio = d.Frequency, d.DampingRatio
		return &j
	case entity.Motor:
		j := box2d.MakeB2MotorJointDef()
		base(&j.B2JointDef)
		if bb == w.ground {
			// Driven toward a pose in the world: the world is box2d's A.
			j.BodyA, j.BodyB = bb, ba
		}
		j.LinearOffset, j.AngularOffset = vec(d.LinearOffset), d.AngularOffset
		j.MaxForce, j.MaxTorque, j.CorrectionFactor = d.MaxForce, d.MaxTorque, d.CorrectionFactor
		return &j
	case entity.Rope:
		j := box2d.MakeB2RopeJointDef()
		base(&j.B2JointDef)
		j.LocalAnchorA, j.LocalAnchorB, j.MaxLength = a, b, d.Length
		return &j
	case entity.Friction:
		j := box2d.MakeB2FrictionJointDef()
		base(&j.B2JointDef)
		j.LocalAnchorA, j.LocalAnchorB, j.MaxForce, j.MaxTorque = a, b, d.MaxForce, d.MaxTorque
		return &j
	default: // entity.Mouse: the world holds, the entity is pulled
		j := box2d.MakeB2MouseJointDef()
		base(&j.B2JointDef)
		j.BodyA, j.BodyB = bb, ba
		j.Target, j.MaxForce = vec(d.Target), d.MaxForce
		j.FrequencyHz, j.DampingRatio = d.Frequency, d.DampingRatio
		return &j
	}
}

// sortJointEdges puts b's joint list in jointCmp order. box2d puts a new
// joint first; the lists are short, so this insertion sort is a few
// comparisons.
func sortJointEdges(b *box2d.B2Body) {
	var sorted *box2d.B2JointEdge
	for e := b.M_jointList; e != nil; {
		next := e.Next
		if sorted == nil || edgeCmp(e, sorted) < 0 {
			e.Prev, e.Next = nil, sorted
			if sorted != nil {
				sorted.Prev = e
			}
			sorted = e
		} else {
			at := sorted
			for at.Next != nil && edgeCmp(at.Next, e) <= 0 {
				at = at.Next
			}
			e.Prev, e.Next = at, at.Next
			if at.Next != nil {
				at.Next.Prev = e
			}
			at.Next = e
		}
		e = next
	}
	b.M_jointList = sorted
}

func edgeCmp(x, y *box2d.B2JointEdge) int {
	return jointCmp(x.Joint.GetUserData().(*joint), y.Joint.GetUserData().(*joint))
}

// RemoveJoint destroys a joint and wakes both its bodies, as box2d does
// (their Rigidbody.Awake is set by the next Step's gather); two bodies it
// kept from colliding collide again from the next step, even where they
// overlap. It reports whether id named a joint. Removing a body removes
// its joints.
func (w *World) RemoveJoint(id JointID) bool {
	jt, ok := w.joints[id]
	if !ok {
		return false
	}
	ba, bb := jt.j.GetBodyA(), jt.j.GetBodyB()
	collide := jt.j.IsCollideConnected()
	w.b2.DestroyJoint(jt.j)
	w.forgetJoint(jt)
	w.wake(ba)
	w.wake(bb)
	if !collide {
		// box2d only refilters the pair's contacts, and the joint kept
		// them from having any: without a look at their proxies, two
		// bodies it held overlapping would pass through each other until
		// one of them left its fattened box.
		w.touchProxies(ba)
	}
	return true
}

// forgetJoint drops jt from w's records; box2d's joint is gone already.
func (w *World) forgetJoint(jt *joint) {
	delete(w.joints, jt.id)
	if i, found := slices.BinarySearchFunc(w.jointList, jt, jointCmp); found {
		w.jointList = slices.Delete(w.jointList, i, i+1)
	}
}

// JointBodies returns the entities a joint joins (b None for the world),
// and false when id names no joint.
func (w *World) JointBodies(id JointID) (a, b entity.ID, ok bool) {
	jt, ok := w.joints[id]
	if !ok {
		return entity.None, entity.None, false
	}
	return jt.a, jt.b, true
}

// JointsOf calls fn with each joint of id's body, in the order its joints
// are solved (by the entities they join), until fn returns false. fn may
// change the world.
func (w *World) JointsOf(id entity.ID, fn func(JointID) bool) {
	r, ok := w.byID[id]
	if !ok {
		return
	}
	var ids []JointID
	for e := r.b.M_jointList; e != nil; e = e.Next {
		ids = append(ids, e.Joint.GetUserData().(*joint).id)
	}
	for _, j := range ids {
		if !fn(j) {
			return
		}
	}
}

// JointCount is the number of joints in w.
func (w *World) JointCount() int { return len(w.joints) }

// Joint returns a joint's definition as it stands: what AddJoint was
// given, with the changes SetJoint made since and a Length of 0 resolved.
func (w *World) Joint(id JointID) (entity.JointDef, bool) {
	jt, ok := w.joints[id]
	if !ok {
		return entity.JointDef{}, false
	}
	d := entity.JointDef{Kind: jt.kind, CollideConnected: jt.j.IsCollideConnected()}
	switch j := jt.j.(type) {
	case *box2d.B2RevoluteJoint:
		d.AnchorA, d.AnchorB, d.ReferenceAngle = pt(j.M_localAnchorA), pt(j.M_localAnchorB), j.M_referenceAngle
		d.EnableLimit, d.Lower, d.Upper = j.M_enableLimit, j.M_lowerAngle, j.M_upperAngle
		d.EnableMotor, d.MotorSpeed, d.MaxTorque = j.M_enableMotor, j.M_motorSpeed, j.M_maxMotorTorque
	case *box2d.B2PrismaticJoint:
		d.AnchorA, d.AnchorB, d.ReferenceAngle = pt(j.M_localAnchorA), pt(j.M_localAnchorB), j.M_referenceAngle
		d.Axis = pt(j.M_localXAxisA)
		d.EnableLimit, d.Lower, d.Upper = j.M_enableLimit, j.M_lowerTranslation, j.M_upperTranslation
		d.EnableMotor, d.MotorSpeed, d.MaxForce = j.M_enableMotor, j.M_motorSpeed, j.M_maxMotorForce
	case *box2d.B2DistanceJoint:
		d.AnchorA, d.AnchorB, d.Length = pt(j.M_localAnchorA), pt(j.M_localAnchorB), j.M_length
		d.Frequency, d.DampingRatio = j.M_frequencyHz, j.M_dampingRatio
	case *box2d.B2WeldJoint:
		d.AnchorA, d.AnchorB, d.ReferenceAngle = pt(j.M_localAnchorA), pt(j.M_localAnchorB), j.M_referenceAngle
		d.Frequency, d.DampingRatio = j.M_frequencyHz, j.M_dampingRatio
	case *box2d.B2WheelJoint:
		d.AnchorA, d.AnchorB, d.Axis = pt(j.M_localAnchorA), pt(j.M_localAnchorB), pt(j.M_localXAxisA)
		d.EnableMotor, d.MotorSpeed, d.MaxTorque = j.M_enableMotor, j.M_motorSpeed, j.M_maxMotorTorque
		d.Frequency, d.DampingRatio = j.M_frequencyHz, j.M_dampingRatio
	case *box2d.B2MotorJoint:
		d.LinearOffset, d.AngularOffset = pt(j.M_linearOffset), j.M_angularOffset
		d.MaxForce, d.MaxTorque, d.CorrectionFactor = j.M_maxForce, j.M_maxTorque, j.M_correctionFactor
	case *box2d.B2RopeJoint:
		d.AnchorA, d.AnchorB, d.Length = pt(j.M_localAnchorA), pt(j.M_localAnchorB), j.M_maxLength
	case *box2d.B2FrictionJoint:
		d.AnchorA, d.AnchorB, d.MaxForce, d.MaxTorque = pt(j.M_localAnchorA), pt(j.M_localAnchorB), j.M_maxForce, j.M_maxTorque
	case *box2d.B2MouseJoint:
		d.AnchorA, d.Target, d.MaxForce = pt(j.M_localAnchorB), pt(j.M_targetA), j.M_maxForce
		d.Frequency, d.DampingRatio = j.M_frequencyHz, j.M_dampingRatio
	}
	return d, true
}

// pt is v as an entity vector.
func pt(v box2d.B2Vec2) entity.Vec2 { return entity.Vec2{X: v.X, Y: v.Y} }

// errJointFixed is SetJoint's refusal of a change to what a joint is made
// with.
var errJointFixed = errors.New("its kind, anchors, axis, reference angle and collideConnected are fixed when it is made: remove it and add another")

// SetJoint changes a joint to def, which is its definition (Joint) with
// some of what a running joint may change changed: the limits and whether
// they hold, the motor (on or off, speed, its most force or torque), a
// distance joint's or rope's length (0: the anchors' distance now), the
// frequency and damping, a motor joint's offsets and correction, a mouse
// joint's target. When anything changes both bodies are woken, so the
// next step moves them; their Rigidbody.Awake is set by that step's
// gather. It returns an error starting "physics: " for an unknown id, a
// def CheckJoint refuses (wrapping its *JointError) or one that changes
// what is fixed (kind, anchors, axis, reference angle, collideConnected),
// and changes nothing then.
func (w *World) SetJoint(id JointID, def *entity.JointDef) error {
	jt, ok := w.joints[id]
	if !ok {
		return fmt.Errorf("physics: no joint %d", id)
	}
	if e := CheckJoint(def); e != nil {
		return fmt.Errorf("physics: joint %d: %w", id, e)
	}
	cur, _ := w.Joint(id)
	d := *def
	if (jt.kind == entity.Distance || jt.kind == entity.Rope) && d.Length == 0 {
		d.Length = w.jointReading(jt).Length
		if !(d.Length >= minSize) {
			return fmt.Errorf("physics: joint %d: %w", id, jointErr("length", "%v m is shorter than %s, which box2d cannot hold", d.Length, mm(minSize)))
		}
	}
	if d.Kind != cur.Kind || fixed(&cur) != fixed(&d) {
		return fmt.Errorf("physics: joint %d: %w", id, errJointFixed)
	}
	w.setJoint(jt, &cur, &d)
	if now, _ := w.Joint(id); now != cur {
		w.wake(jt.j.GetBodyA())
		w.wake(jt.j.GetBodyB())
	}
	return nil
}

// fixedPart is what a joint of some kind is made with, which SetJoint
// cannot change; what the kind does not read is left zero.
type fixedPart struct {
	anchorA, anchorB, axis entity.Vec2
	referenceAngle         float64
	collideConnected       bool
}

func fixed(d *entity.JointDef) fixedPart {
	f := fixedPart{anchorA: d.AnchorA, anchorB: d.AnchorB, collideConnected: d.CollideConnected}
	switch d.Kind {
	case entity.Revolute, entity.Weld:
		f.referenceAngle = d.ReferenceAngle
	case entity.Prismatic:
		f.referenceAngle, f.axis = d.ReferenceAngle, pt(unit(d.Axis))
	case entity.Wheel:
		f.axis = pt(unit(d.Axis)) // Joint reads it back normalised
	case entity.Motor:
		f.anchorA, f.anchorB = entity.Vec2{}, entity.Vec2{}
	case entity.Mouse:
		f.anchorB = entity.Vec2{}
	}
	return f
}

// setJoint writes what may change from d into jt, cur being what it was,
// as box2d's own setters would: a limit changed or switched forgets the
// limit's impulse.
func (w *World) setJoint(jt *joint, cur, d *entity.JointDef) {
	limitChanged := cur.EnableLimit != d.EnableLimit || cur.Lower != d.Lower || cur.Upper != d.Upper
	switch j := jt.j.(type) {
	case *box2d.B2RevoluteJoint:
		j.M_enableLimit, j.M_lowerAngle, j.M_upperAngle = d.EnableLimit, d.Lower, d.Upper
		j.M_enableMotor, j.M_motorSpeed, j.M_maxMotorTorque = d.EnableMotor, d.MotorSpeed, d.MaxTorque
		if limitChanged {
			j.M_impulse.Z = 0
		}
	case *box2d.B2PrismaticJoint:
		j.M_enableLimit, j.M_lowerTranslation, j.M_upperTranslation = d.EnableLimit, d.Lower, d.Upper
		j.M_enableMotor, j.M_motorSpeed, j.M_maxMotorForce = d.EnableMotor, d.MotorSpeed, d.MaxForce
		if limitChanged {
			j.M_impulse.Z = 0
		}
	case *box2d.B2DistanceJoint:
		j.M_length, j.M_frequencyHz, j.M_dampingRatio = d.Length, d.Frequency, d.DampingRatio
	case *box2d.B2WeldJoint:
		j.M_frequencyHz, j.M_dampingRatio = d.Frequency, d.DampingRatio
	case *box2d.B2WheelJoint:
		j.M_enableMotor, j.M_motorSpeed, j.M_maxMotorTorque = d.EnableMotor, d.MotorSpeed, d.MaxTorque
		j.M_frequencyHz, j.M_dampingRatio = d.Frequency, d.DampingRatio
	case *box2d.B2MotorJoint:
		j.M_linearOffset, j.M_angularOffset = vec(d.LinearOffset), d.AngularOffset
		j.M_maxForce, j.M_maxTorque, j.M_correctionFactor = d.MaxForce, d.MaxTorque, d.CorrectionFactor
	case *box2d.B2RopeJoint:
		j.M_maxLength = d.Length
	case *box2d.B2FrictionJoint:
		j.M_maxForce, j.M_maxTorque = d.MaxForce, d.MaxTorque
	case *box2d.B2MouseJoint:
		j.M_targetA, j.M_maxForce = vec(d.Target), d.MaxForce
		j.M_frequencyHz, j.M_dampingRatio = d.Frequency, d.DampingRatio
	}
}

// touchProxies has the next step look for new pairs of every fixture of b.
func (w *World) touchProxies(b *box2d.B2Body) {
	bp := &w.b2.M_contactManager.M_broadPhase
	for f := b.M_fixtureList; f != nil; f = f.M_next {
		for i := 0; i < f.M_proxyCount; i++ {
			bp.BufferMove(f.M_proxies[i].ProxyId)
		}
	}
}

// wake wakes b now and, if it is an entity's, has the next Step's gather
// set its Rigidbody.Awake too, which would otherwise put it back to sleep.
func (w *World) wake(b *box2d.B2Body) {
	if b.M_type == box2d.B2BodyType.B2_staticBody {
		return
	}
	b.SetAwake(true)
	if r, ok := b.M_userData.(*body); ok {
		r.wake = true
	}
}

// JointReading returns what a joint did in the last step and where it
// stands, and false when id names no joint.
func (w *World) JointReading(id JointID) (JointReading, bool) {
	jt, ok := w.joints[id]
	if !ok {
		return JointReading{}, false
	}
	return w.jointReading(jt), true
}

func (w *World) jointReading(jt *joint) JointReading {
	invDt := 1 / w.cfg.Step
	var r JointReading
	var a, b, f box2d.B2Vec2
	ba, bb := jt.j.GetBodyA(), jt.j.GetBodyB()
	angle := bb.M_sweep.A - ba.M_sweep.A
	switch j := jt.j.(type) {
	case *box2d.B2RevoluteJoint:
		a, b, f, r.Torque = j.GetAnchorA(), j.GetAnchorB(), j.GetReactionForce(invDt), j.GetReactionTorque(invDt)
		r.Motor, r.Angle, r.Speed = j.GetMotorTorque(invDt), angle-j.M_referenceAngle, j.GetJointSpeed()
	case *box2d.B2PrismaticJoint:
		a, b, f, r.Torque = j.GetAnchorA(), j.GetAnchorB(), j.GetReactionForce(invDt), j.GetReactionTorque(invDt)
		r.Motor, r.Angle = j.GetMotorForce(invDt), angle-j.M_referenceAngle
		r.Translation, r.Speed = j.GetJointTranslation(), j.GetJointSpeed()
	case *box2d.B2DistanceJoint:
		a, b, f, r.Torque = j.GetAnchorA(), j.GetAnchorB(), j.GetReactionForce(invDt), j.GetReactionTorque(invDt)
	case *box2d.B2WeldJoint:
		a, b, f, r.Torque = j.GetAnchorA(), j.GetAnchorB(), j.GetReactionForce(invDt), j.GetReactionTorque(invDt)
		r.Angle = angle - j.M_referenceAngle
	case *box2d.B2WheelJoint:
		a, b, f, r.Torque = j.GetAnchorA(), j.GetAnchorB(), j.GetReactionForce(invDt), j.GetReactionTorque(invDt)
		r.Motor, r.Angle = j.GetMotorTorque(invDt), angle
		r.Translation, r.Speed = j.GetJointTranslation(), j.GetJointAngularSpeed()
	case *box2d.B2MotorJoint:
		a, b, f, r.Torque = j.GetAnchorA(), j.GetAnchorB(), j.GetReactionForce(invDt), j.GetReactionTorque(invDt)
		r.Angle = angle
	case *box2d.B2RopeJoint:
		a, b, f, r.Torque = j.GetAnchorA(), j.GetAnchorB(), j.GetReactionForce(invDt), j.GetReactionTorque(invDt)
	case *box2d.B2FrictionJoint:
		a, b, f, r.Torque = j.GetAnchorA(), j.GetAnchorB(), j.GetReactionForce(invDt), j.GetReactionTorque(invDt)
	case *box2d.B2MouseJoint:
		// box2d's A is the world and its B the pulled body: the entity's
		// A.
		a, b, f, r.Torque = j.GetAnchorB(), j.GetTarget(), j.GetReactionForce(invDt), j.GetReactionTorque(invDt)
	}
	r.AX, r.AY, r.BX, r.BY = a.X, a.Y, b.X, b.Y
	r.ForceX, r.ForceY = f.X, f.Y
	r.Length = math.Hypot(b.X-a.X, b.Y-a.Y)
	return r
}

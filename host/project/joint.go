package project

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"vkm/internal/entity"
	"vkm/physics"
)

// JointDef is one [[joint]] of a scene or prefab: two entities of the file
// joined by one of box2d's joints, or one entity joined to the world.
// Every point a file writes is in the file's frame (a scene's: the world;
// a prefab's: the frame its root's transform is in) and is turned into
// each body's own frame as the file is read, from where the file places
// the bodies: so the joint means the same whatever pose they stand in when
// it is made.
type JointDef struct {
	// Line is the line of the [[joint]] header, best effort.
	Line int
	// Name names the joint for behaviors (self:joint(name)); "" for none.
	Name string
	// A and B are the joined entities' ids (a scene's slots, a prefab's
	// uids); ToWorld joins A to the world instead of to B.
	A, B    uint32
	ToWorld bool
	// Def is the joint in the bodies' frames. For a joint to the world,
	// what is the world's (AnchorB, Target, a motor joint's offsets) and
	// ReferenceAngle are still the file's: World turns them.
	Def entity.JointDef
}

// World returns the joint's definition for the file placed at pose in the
// world: pose is entity.Identity for a scene, and for a prefab the pose
// its instance was spawned at. Only a joint to the world depends on it.
func (j *JointDef) World(pose entity.Transform) entity.JointDef {
	d := j.Def
	if !j.ToWorld {
		return d
	}
	if pose.Scale == 0 {
		pose.Scale = 1
	}
	d.AnchorB = composePoint(pose, d.AnchorB)
	d.Target = composePoint(pose, d.Target)
	d.ReferenceAngle -= pose.Angle
	if d.Kind == entity.Motor {
		d.LinearOffset = composePoint(pose, d.LinearOffset)
		d.AngularOffset += pose.Angle
	}
	return d
}

// composePoint is p, in a frame placed at pose, in pose's parent frame, as
// store.Compose places an entity: rotated, scaled, moved, each product
// rounded on its own.
func composePoint(pose entity.Transform, p entity.Vec2) entity.Vec2 {
	sin, cos := math.Sincos(pose.Angle)
	x, y := float64(p.X*pose.Scale), float64(p.Y*pose.Scale)
	return entity.Vec2{X: pose.X + float64(cos*x) - float64(sin*y), Y: pose.Y + float64(sin*x) + float64(cos*y)}
}

// toLocal is the file-frame point p in the frame of a body standing at t
// (its scale ignored, as physics ignores it).
func toLocal(t entity.Transform, p entity.Vec2) entity.Vec2 {
	sin, cos := math.Sincos(t.Angle)
	dx, dy := p.X-t.X, p.Y-t.Y
	return entity.Vec2{X: float64(cos*dx) + float64(sin*dy), Y: float64(cos*dy) - float64(sin*dx)}
}

// turn is the direction v turned by -angle: a file-frame direction in the
// frame of a body at that angle.
func turn(v entity.Vec2, angle float64) entity.Vec2 {
	return toLocal(entity.Transform{Angle: angle}, v)
}

// jointKinds are the names [[joint]] kind takes, in entity.JointKind order.
var jointKinds = []string{"revolute", "prismatic", "distance", "weld", "wheel", "motor", "rope", "mouse"}

// jointCommon are the keys every kind of joint takes.
var jointCommon = []string{"kind", "name", "a", "b", "collideConnected"}

// jointKeys are the keys each kind takes besides the common ones.
var jointKeys = map[entity.JointKind][]string{
	entity.Revolute:  {"anchor", "limits", "motorSpeed", "maxTorque"},
	entity.Prismatic: {"anchor", "axis", "limits", "motorSpeed", "maxForce"},
	entity.Distance:  {"anchorA", "anchorB", "length", "frequency", "damping"},
	entity.Weld:      {"anchor", "frequency", "damping"},
	entity.Wheel:     {"anchor", "axis", "motorSpeed", "maxTorque", "frequency", "damping"},
	entity.Motor:     {"offset", "angularOffset", "maxForce", "maxTorque", "correction"},
	entity.Rope:      {"anchorA", "anchorB", "length"},
	entity.Mouse:     {"anchor", "target", "maxForce", "frequency", "damping"},
}

// Defaults of [[joint]] keys a file leaves out.
const (
	// DefaultWheelFrequency and DefaultWheelDamping are a wheel's
	// suspension: box2d's car, soft enough to roll over a plank's edge.
	DefaultWheelFrequency = 4.0
	DefaultWheelDamping   = 0.7
	// DefaultMouseFrequency and DefaultMouseDamping are a mouse joint's
	// pull: box2d's, a drag that follows the pointer without ringing.
	DefaultMouseFrequency = 5.0
	DefaultMouseDamping   = 0.7
	// DefaultMotorCorrection is how much of its way a motor joint goes in
	// each step: box2d's default.
	DefaultMotorCorrection = 0.3
)

// readJoints reads the file's [[joint]] tables, after its entities are
// read and checked, and turns each into its bodies' frames. A mistake is
// recorded in the document as every reader's is.
func readJoints(root *tomlTable, defs []EntityDef, prefab bool) []JointDef {
	tabs, _ := root.tables("joint", "[[joint]]")
	index := make(map[uint32]int, len(defs))
	for i, d := range defs {
		index[d.ID] = i
	}
	var out []JointDef
	for _, t := range tabs {
		j, ok := readJoint(t, defs, index, prefab)
		if !ok || root.doc.err != nil {
			return nil
		}
		out = append(out, j)
	}
	return out
}

// jointReader reads one [[joint]].
type jointReader struct {
	t      *tomlTable
	kind   entity.JointKind
	idKey  string
	prefab bool
}

// readJoint reads and resolves one [[joint]].
func readJoint(t *tomlTable, defs []EntityDef, index map[uint32]int, prefab bool) (JointDef, bool) {
	t.only()
	j := JointDef{Line: t.line}
	r := jointReader{t: t, idKey: "id", prefab: prefab}
	if prefab {
		r.idKey = "uid"
	}
	if !t.has("kind") {
		t.fail("kind", "a joint needs a kind: %s", strings.Join(jointKinds, ", "))
		return j, false
	}
	k, _ := t.str("kind")
	i := slices.Index(jointKinds, k)
	if i < 0 {
		hint := ""
		if s := closestKey(k, jointKinds); s != "" {
			hint = fmt.Sprintf("did you mean %q? ", s)
		}
		t.fail("kind", "%q is not a joint kind; %sthe kinds are %s", k, hint, strings.Join(jointKinds, ", "))
		return j, false
	}
	r.kind = entity.JointKind(i)
	allowed := append(slices.Clone(jointCommon), jointKeys[r.kind]...)
	for _, key := range tableKeys[t.doc.kind]["joint"] {
		if t.has(key) && !slices.Contains(allowed, key) {
			t.fail(key, "a %s joint takes no %s; its keys are %s", r.kind, key, strings.Join(allowed, ", "))
			return j, false
		}
	}
	if n, ok := t.str("name"); ok {
		j.Name = n
	}
	a, ok := r.body("a", defs, index)
	if !ok {
		return j, false
	}
	j.A = defs[a].ID
	b := -1
	if t.has("b") {
		if b, ok = r.body("b", defs, index); !ok {
			return j, false
		}
		j.B = defs[b].ID
		if b == a {
			t.fail("b", "joins %s %d to itself; a joint joins two different entities (leave b out to join a to the world)", r.idKey, j.A)
			return j, false
		}
	} else {
		j.ToWorld = true
	}
	ta := defs[a].Transform
	tb := entity.Identity // the world, in the file's frame
	if b >= 0 {
		tb = defs[b].Transform
	}
	switch {
	case r.kind == entity.Mouse && b >= 0:
		t.fail("b", "a mouse joint pulls one entity toward a point: leave b out")
		return j, false
	case defs[a].Body.Type != entity.Dynamic && (b < 0 || defs[b].Body.Type != entity.Dynamic):
		key := "a"
		if b >= 0 {
			key = "b"
		}
		t.fail(key, "neither body is dynamic, so the joint would hold nothing: join a dynamic body")
		return j, false
	}
	j.Def = r.def(ta, tb, b < 0)
	if t.doc.err != nil {
		return j, false
	}
	if e := physics.CheckJoint(&j.Def); e != nil {
		t.fail(e.Key, "%s", e.Reason)
		return j, false
	}
	return j, true
}

// body reads key's entity and checks it has a physics body.
func (r *jointReader) body(key string, defs []EntityDef, index map[uint32]int) (int, bool) {
	t := r.t
	if !t.has(key) {
		t.fail(key, "a joint needs %s: the %s of the entity it joins", key, r.idKey)
		return 0, false
	}
	n, ok := t.integer(key)
	if !ok {
		return 0, false
	}
	i, found := index[uint32(n)]
	if n < 0 || n > math.MaxUint32 || !found {
		t.fail(key, "no entity in this file has %s %d: a joint joins entities of its own file", r.idKey, n)
		return 0, false
	}
	d := &defs[i]
	if d.Body == nil || d.Body.Type == entity.Decoration {
		why := "give it an [entity.body]"
		if r.prefab {
			why = "in a prefab only the root may have a body, so a prefab's joints join its root to the world (leave b out); join several bodies in a scene"
		}
		t.fail(key, "%s %d (%s) has no physics body to join: %s", r.idKey, n, describeDef(defs, i), why)
		return 0, false
	}
	return i, true
}

// def reads the kind's keys and turns what the file writes into the
// bodies' frames, ta and tb being where the file has them (tb the world's
// frame when toWorld).
func (r *jointReader) def(ta, tb entity.Transform, toWorld bool) entity.JointDef {
	t := r.t
	d := entity.JointDef{Kind: r.kind}
	d.CollideConnected, _ = t.boolean("collideConnected")
	pa, pb := entity.Vec2{X: ta.X, Y: ta.Y}, entity.Vec2{X: tb.X, Y: tb.Y}
	// One anchor for the kinds that pin the bodies at a point: by default
	// where B's origin is (a wheel's axle), or A's for a joint to the
	// world.
	anchor := pb
	if toWorld {
		anchor = pa
	}
	if v, ok := t.vec2("anchor", "[x, y]"); ok {
		anchor = v
	}
	// Two anchors for the kinds that hold them apart: by default the
	// bodies' origins.
	ea, eb := pa, pb
	if v, ok := t.vec2("anchorA", "[x, y]"); ok {
		ea = v
	}
	if v, ok := t.vec2("anchorB", "[x, y]"); ok {
		eb = v
	} else if toWorld && (r.kind == entity.Distance || r.kind == entity.Rope) {
		t.fail("anchorB", "a %s joint to the world needs anchorB, the point in the world it holds a's anchor from", r.kind)
	}
	local := func(p entity.Vec2) (entity.Vec2, entity.Vec2) {
		lb := p // the world's frame is the file's
		if !toWorld {
			lb = toLocal(tb, p)
		}
		return toLocal(ta, p), lb
	}
	refAngle := tb.Angle - ta.Angle
	switch r.kind {
	case entity.Revolute, entity.Weld, entity.Prismatic, entity.Wheel:
		d.AnchorA, d.AnchorB = local(anchor)
		d.ReferenceAngle = refAngle
	case entity.Distance, entity.Rope:
		d.AnchorA = toLocal(ta, ea)
		d.AnchorB = eb
		if !toWorld {
			d.AnchorB = toLocal(tb, eb)
		}
		d.Length = math.Hypot(eb.X-ea.X, eb.Y-ea.Y)
	case entity.Mouse:
		d.AnchorA = toLocal(ta, anchor)
		d.Target = anchor
	case entity.Motor:
		d.LinearOffset, d.AngularOffset = toLocal(ta, pb), refAngle
		if toWorld {
			d.LinearOffset, d.AngularOffset = pa, ta.Angle
		}
		d.CorrectionFactor = DefaultMotorCorrection
	}
	r.axis(&d, ta)
	r.limitsAndMotor(&d)
	r.springAndForces(&d)
	return d
}

// axis reads a prismatic or wheel joint's axis, in the file's frame, into
// A's frame.
func (r *jointReader) axis(d *entity.JointDef, ta entity.Transform) {
	t := r.t
	switch r.kind {
	case entity.Prismatic:
		if !t.has("axis") {
			t.fail("axis", "a prismatic joint needs axis, the direction b slides along (in the file's frame), such as [0.0, 1.0]")
			return
		}
		fallthrough
	case entity.Wheel:
		v := entity.Vec2{Y: 1} // a wheel's suspension travels up and down
		if a, ok := t.vec2("axis", "[x, y]"); ok {
			v = a
		}
		d.Axis = turn(v, ta.Angle)
	}
}

// limitsAndMotor reads limits and the motor.
func (r *jointReader) limitsAndMotor(d *entity.JointDef) {
	t := r.t
	if v, ok := t.m["limits"]; ok {
		lim, reason := toVec2(v)
		if reason != "" {
			t.fail("limits", "must be [lower, upper], two numbers; %s", reason)
			return
		}
		d.EnableLimit, d.Lower, d.Upper = true, lim.X, lim.Y
	}
	maxKey := "maxTorque"
	if r.kind == entity.Prismatic {
		maxKey = "maxForce"
	}
	if r.kind != entity.Revolute && r.kind != entity.Prismatic && r.kind != entity.Wheel {
		return
	}
	speed, hasSpeed := t.number("motorSpeed")
	most, hasMost := t.number(maxKey)
	if !hasSpeed && !hasMost {
		return
	}
	if !(most > 0) {
		t.fail(maxKey, "the motor needs %s above 0, the most it may apply: without it a motor moves nothing", maxKey)
		return
	}
	d.EnableMotor, d.MotorSpeed = true, speed
	if r.kind == entity.Prismatic {
		d.MaxForce = most
	} else {
		d.MaxTorque = most
	}
}

// springAndForces reads length, frequency, damping, the motor joint's
// offsets and correction, a mouse joint's target, and the forces of the
// kinds that need one.
func (r *jointReader) springAndForces(d *entity.JointDef) {
	t := r.t
	switch r.kind {
	case entity.Wheel:
		d.Frequency, d.DampingRatio = DefaultWheelFrequency, DefaultWheelDamping
	case entity.Mouse:
		d.Frequency, d.DampingRatio = DefaultMouseFrequency, DefaultMouseDamping
	}
	if v, ok := t.number("length"); ok {
		d.Length = v
	}
	if v, ok := t.number("frequency"); ok {
		d.Frequency = v
	}
	if v, ok := t.number("damping"); ok {
		d.DampingRatio = v
	}
	if v, ok := t.vec2("target", "[x, y]"); ok {
		d.Target = v
	}
	if v, ok := t.vec2("offset", "[x, y]"); ok {
		d.LinearOffset = v
	}
	if v, ok := t.number("angularOffset"); ok {
		d.AngularOffset = v
	}
	if v, ok := t.number("correction"); ok {
		d.CorrectionFactor = v
	}
	if r.kind == entity.Motor || r.kind == entity.Mouse {
		d.MaxForce, _ = t.number("maxForce")
		d.MaxTorque, _ = t.number("maxTorque")
		switch {
		case r.kind == entity.Mouse && !(d.MaxForce > 0):
			t.fail("maxForce", "a mouse joint needs maxForce above 0, the most it pulls with (a few times its body's weight drags it briskly)")
		case r.kind == entity.Motor && !(d.MaxForce > 0) && !(d.MaxTorque > 0):
			t.fail("maxForce", "a motor joint needs maxForce or maxTorque above 0, or it moves nothing")
		}
	}
	if (r.kind == entity.Distance || r.kind == entity.Rope) && t.doc.err == nil && d.Length >= 0 && d.Length < physics.MinJointLength {
		if t.has("length") {
			t.fail("length", "%v m is shorter than the %v m box2d can hold: pin the bodies with a revolute joint instead", d.Length, physics.MinJointLength)
		} else {
			t.fail("anchorB", "the anchors are %v m apart, less than the %v m box2d can hold: move them apart, give a length, or pin the bodies with a revolute joint", d.Length, physics.MinJointLength)
		}
	}
}

// validateJoints checks joints built in code (a file's are checked as they
// are read): each joins entities of defs that have physics bodies, and its
// definition is one physics takes.
func validateJoints(file string, prefab bool, defs []EntityDef, joints []JointDef) *ConfigError {
	idKey := "id"
	if prefab {
		idKey = "uid"
	}
	has := func(id uint32) bool {
		for i := range defs {
			if defs[i].ID == id {
				return defs[i].Body != nil && defs[i].Body.Type != entity.Decoration
			}
		}
		return false
	}
	for _, j := range joints {
		fail := func(key, format string, args ...any) *ConfigError {
			return &ConfigError{File: file, Line: j.Line, Key: joinPath("joint", key), Reason: fmt.Sprintf(format, args...)}
		}
		switch {
		case !has(j.A):
			return fail("a", "no entity with a physics body in this file has %s %d", idKey, j.A)
		case !j.ToWorld && (!has(j.B) || j.B == j.A):
			return fail("b", "no other entity with a physics body in this file has %s %d", idKey, j.B)
		}
		if e := physics.CheckJoint(&j.Def); e != nil {
			return fail(e.Key, "%s", e.Reason)
		}
	}
	return nil
}

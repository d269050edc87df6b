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
var jointKinds = []string{"revolute", "prismatic", "distance", "weld", "wheel", "motor", "rope", "mouse", "friction"}

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
	entity.Friction:  {"anchor", "maxForce", "maxTorque"},
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

// readJoint reads one [[joint]] and resolves it into its bodies' frames.
func readJoint(t *tomlTable, defs []EntityDef, index map[uint32]int, prefab bool) (JointDef, bool) {
	t.only()
	j := JointDef{Line: t.line}
	idKey := "id"
	if prefab {
		idKey = "uid"
	}
	if !t.has("kind") {
		t.fail("kind", "a joint needs a kind: %s", strings.Join(jointKinds, ", "))
		return j, false
	}
	k, _ := t.str("kind")
	kind, ok := JointKind(k)
	if !ok {
		hint := ""
		if s := closestKey(k, jointKinds); s != "" {
			hint = fmt.Sprintf("did you mean %q? ", s)
		}
		t.fail("kind", "%q is not a joint kind; %sthe kinds are %s", k, hint, strings.Join(jointKinds, ", "))
		return j, false
	}
	spec := readJointSpec(t, kind)
	if n, ok := t.str("name"); ok {
		j.Name = n
	}
	if t.doc.err != nil {
		return j, false
	}
	if key := disallowed(&spec); key != "" {
		t.fail(key, "%s", kindKeysReason(kind, key))
		return j, false
	}
	a, ok := jointBody(t, "a", idKey, defs, index, prefab)
	if !ok {
		return j, false
	}
	j.A = defs[a].ID
	b := -1
	if t.has("b") {
		if b, ok = jointBody(t, "b", idKey, defs, index, prefab); !ok {
			return j, false
		}
		j.B = defs[b].ID
		if b == a {
			t.fail("b", "joins %s %d to itself; a joint joins two different entities (leave b out to join a to the world)", idKey, j.A)
			return j, false
		}
	} else {
		j.ToWorld = true
	}
	tb, dynB := entity.Identity, false
	if b >= 0 {
		tb, dynB = fileFrame(defs, index, b), defs[b].Body.Type == entity.Dynamic
	}
	if key, reason := CheckJointBodies(kind, defs[a].Body.Type == entity.Dynamic, dynB, b < 0); reason != "" {
		t.fail(key, "%s", reason)
		return j, false
	}
	def, e := ResolveJoint(&spec, fileFrame(defs, index, a), tb, b < 0)
	if e != nil {
		t.fail(e.Key, "%s", e.Reason)
		return j, false
	}
	j.Def = def
	return j, true
}

// fileFrame is where defs[i] stands in its file's frame: its transform
// composed with its parents' (Compose), as an instance places it. A
// scene's bodies have no parents; a prefab's parts do.
func fileFrame(defs []EntityDef, index map[uint32]int, i int) entity.Transform {
	t := defs[i].Transform
	for seen := 0; defs[i].HasParent && seen < len(defs); seen++ {
		i = index[defs[i].Parent]
		t = Compose(defs[i].Transform, t)
	}
	return t
}

// Compose returns local, a pose relative to parent, as a pose in parent's
// frame of reference: rotated by parent's angle, scaled by its (uniform)
// scale and moved to its position.
//
// The float64 conversions keep each product rounded on its own, so no
// platform fuses them into one instruction (FMA) and every machine gets the
// same bits.
func Compose(parent, local entity.Transform) entity.Transform {
	sin, cos := math.Sincos(parent.Angle)
	x := float64(local.X * parent.Scale)
	y := float64(local.Y * parent.Scale)
	return entity.Transform{
		X:     parent.X + float64(cos*x) - float64(sin*y),
		Y:     parent.Y + float64(sin*x) + float64(cos*y),
		Angle: parent.Angle + local.Angle,
		Scale: float64(parent.Scale * local.Scale),
	}
}

// JointKind returns the kind a file or a behavior names, and false for a
// name that is not one.
func JointKind(name string) (entity.JointKind, bool) {
	i := slices.Index(jointKinds, name)
	return entity.JointKind(i), i >= 0
}

// JointKinds are the names of the kinds of joint, in entity.JointKind
// order.
func JointKinds() []string { return slices.Clone(jointKinds) }

// CheckJointBodies says what is wrong (the key, "a" or "b", and why) with
// joining a body to another, or to the world, by which of them are
// dynamic; empty strings when nothing is.
func CheckJointBodies(kind entity.JointKind, dynA, dynB, toWorld bool) (key, reason string) {
	switch {
	case kind == entity.Mouse && !toWorld:
		return "b", "a mouse joint pulls one entity toward a point: leave b out"
	case !dynA && !dynB:
		key = "a"
		if !toWorld {
			key = "b"
		}
		return key, "neither body is dynamic, so the joint would hold nothing: join a dynamic body"
	}
	return "", ""
}

// jointBody reads key's entity and checks it has a physics body.
func jointBody(t *tomlTable, key, idKey string, defs []EntityDef, index map[uint32]int, prefab bool) (int, bool) {
	if !t.has(key) {
		t.fail(key, "a joint needs %s: the %s of the entity it joins", key, idKey)
		return 0, false
	}
	n, ok := t.integer(key)
	if !ok {
		return 0, false
	}
	i, found := index[uint32(n)]
	if n < 0 || n > math.MaxUint32 || !found {
		t.fail(key, "no entity in this file has %s %d: a joint joins entities of its own file", idKey, n)
		return 0, false
	}
	d := &defs[i]
	if d.Body == nil || d.Body.Type == entity.Decoration {
		t.fail(key, "%s %d (%s) has no physics body to join: give it an [entity.body]", idKey, n, describeDef(defs, i))
		return 0, false
	}
	return i, true
}

// readJointSpec reads what a [[joint]] writes of its kind's keys, checking
// their types; ResolveJoint checks the rest.
func readJointSpec(t *tomlTable, kind entity.JointKind) entity.JointSpec {
	s := entity.JointSpec{Kind: kind}
	s.CollideConnected, _ = t.boolean("collideConnected")
	vec := func(key string) *entity.Vec2 {
		if v, ok := t.vec2(key, "[x, y]"); ok {
			return &v
		}
		return nil
	}
	num := func(key string) *float64 {
		if v, ok := t.number(key); ok {
			return &v
		}
		return nil
	}
	s.Anchor, s.AnchorA, s.AnchorB, s.Axis = vec("anchor"), vec("anchorA"), vec("anchorB"), vec("axis")
	s.Offset, s.Target = vec("offset"), vec("target")
	if v, ok := t.m["limits"]; ok {
		lim, reason := toVec2(v)
		if reason != "" {
			t.fail("limits", "must be [lower, upper], two numbers; %s", reason)
		} else {
			s.Limits = &[2]float64{lim.X, lim.Y}
		}
	}
	s.MotorSpeed, s.MaxTorque, s.MaxForce = num("motorSpeed"), num("maxTorque"), num("maxForce")
	s.Length, s.Frequency, s.Damping = num("length"), num("frequency"), num("damping")
	s.AngularOffset, s.Correction = num("angularOffset"), num("correction")
	return s
}

// specKeys names the keys a spec gives, as a file spells them.
func specKeys(s *entity.JointSpec) []string {
	var out []string
	for _, f := range []struct {
		key string
		set bool
	}{
		{"anchor", s.Anchor != nil}, {"anchorA", s.AnchorA != nil}, {"anchorB", s.AnchorB != nil},
		{"axis", s.Axis != nil}, {"limits", s.Limits != nil}, {"motorSpeed", s.MotorSpeed != nil},
		{"maxTorque", s.MaxTorque != nil}, {"maxForce", s.MaxForce != nil}, {"length", s.Length != nil},
		{"frequency", s.Frequency != nil}, {"damping", s.Damping != nil}, {"offset", s.Offset != nil},
		{"angularOffset", s.AngularOffset != nil}, {"correction", s.Correction != nil}, {"target", s.Target != nil},
	} {
		if f.set {
			out = append(out, f.key)
		}
	}
	return out
}

// disallowed returns the first key s gives that its kind does not take,
// or "".
func disallowed(s *entity.JointSpec) string {
	allowed := jointKeys[s.Kind]
	for _, key := range specKeys(s) {
		if !slices.Contains(allowed, key) {
			return key
		}
	}
	return ""
}

// kindKeysReason says that key is not one of kind's.
func kindKeysReason(kind entity.JointKind, key string) string {
	keys := append(slices.Clone(jointCommon), jointKeys[kind]...)
	return fmt.Sprintf("a %s joint takes no %s; its keys are %s", kind, key, strings.Join(keys, ", "))
}

// ResolveJoint turns s, written in one frame where a body stands at ta and
// the other at tb (toWorld: the other is the world, whose frame is the
// one s is written in), into the definition physics takes, in each body's
// own frame, with each field s leaves out at its kind's default. It is the
// one set of rules [[joint]] files and behaviors' joints follow. A mistake
// comes back as a *physics.JointError whose key is spelled as a file
// spells it ("motorSpeed"). The bodies are not checked here: whether they
// exist, and whether one is dynamic (CheckJointBodies), is the caller's.
func ResolveJoint(s *entity.JointSpec, ta, tb entity.Transform, toWorld bool) (entity.JointDef, *physics.JointError) {
	fail := func(key, format string, args ...any) (entity.JointDef, *physics.JointError) {
		return entity.JointDef{}, &physics.JointError{Key: key, Reason: fmt.Sprintf(format, args...)}
	}
	kind := s.Kind
	if kind > entity.Friction {
		return fail("kind", "%v is not a joint kind; the kinds are %s", kind, strings.Join(jointKinds, ", "))
	}
	if key := disallowed(s); key != "" {
		return fail(key, "%s", kindKeysReason(kind, key))
	}
	or := func(p *entity.Vec2, def entity.Vec2) entity.Vec2 {
		if p != nil {
			return *p
		}
		return def
	}
	d := entity.JointDef{Kind: kind, CollideConnected: s.CollideConnected}
	pa, pb := entity.Vec2{X: ta.X, Y: ta.Y}, entity.Vec2{X: tb.X, Y: tb.Y}
	// The kinds that pin the bodies at a point pin them, by default, where
	// B's origin is (a wheel's axle), or A's for a joint to the world.
	anchorDefault := pb
	if toWorld {
		anchorDefault = pa
	}
	anchor := or(s.Anchor, anchorDefault)
	inB := func(p entity.Vec2) entity.Vec2 {
		if toWorld {
			return p // the world's frame is the one s is written in
		}
		return toLocal(tb, p)
	}
	refAngle := tb.Angle - ta.Angle
	switch kind {
	case entity.Revolute, entity.Weld, entity.Prismatic, entity.Wheel, entity.Friction:
		d.AnchorA, d.AnchorB = toLocal(ta, anchor), inB(anchor)
		if kind != entity.Wheel && kind != entity.Friction {
			d.ReferenceAngle = refAngle
		}
	case entity.Distance, entity.Rope:
		if toWorld && s.AnchorB == nil {
			return fail("anchorB", "a %s joint to the world needs anchorB, the point in the world it holds a's end from", kind)
		}
		ea, eb := or(s.AnchorA, pa), or(s.AnchorB, pb)
		d.AnchorA, d.AnchorB = toLocal(ta, ea), inB(eb)
		d.Length = math.Hypot(eb.X-ea.X, eb.Y-ea.Y)
	case entity.Mouse:
		d.AnchorA, d.Target = toLocal(ta, anchor), anchor
		d.Frequency, d.DampingRatio = DefaultMouseFrequency, DefaultMouseDamping
	case entity.Motor:
		d.LinearOffset, d.AngularOffset = toLocal(ta, pb), refAngle
		if toWorld {
			d.LinearOffset, d.AngularOffset = pa, ta.Angle // held where it stands
		}
		d.CorrectionFactor = DefaultMotorCorrection
	}
	switch kind {
	case entity.Prismatic:
		if s.Axis == nil {
			return fail("axis", "a prismatic joint needs axis, the direction b slides along, such as [0.0, 1.0]")
		}
		d.Axis = turn(*s.Axis, ta.Angle)
	case entity.Wheel:
		d.Axis = turn(or(s.Axis, entity.Vec2{Y: 1}), ta.Angle) // a suspension travels up and down
		d.Frequency, d.DampingRatio = DefaultWheelFrequency, DefaultWheelDamping
	}
	if s.Limits != nil {
		d.EnableLimit, d.Lower, d.Upper = true, s.Limits[0], s.Limits[1]
	}
	if err := resolveMotor(s, &d); err != nil {
		return entity.JointDef{}, err
	}
	set := func(dst *float64, p *float64) {
		if p != nil {
			*dst = *p
		}
	}
	set(&d.Length, s.Length)
	set(&d.Frequency, s.Frequency)
	set(&d.DampingRatio, s.Damping)
	set(&d.AngularOffset, s.AngularOffset)
	set(&d.CorrectionFactor, s.Correction)
	d.Target = or(s.Target, d.Target)
	d.LinearOffset = or(s.Offset, d.LinearOffset)
	if kind == entity.Motor || kind == entity.Mouse || kind == entity.Friction {
		set(&d.MaxForce, s.MaxForce)
		set(&d.MaxTorque, s.MaxTorque)
		switch {
		case kind == entity.Mouse && !(d.MaxForce > 0):
			return fail("maxForce", "a mouse joint needs maxForce above 0, the most it pulls with (a few times its body's weight drags it briskly)")
		case kind == entity.Motor && !(d.MaxForce > 0) && !(d.MaxTorque > 0):
			return fail("maxForce", "a motor joint needs maxForce or maxTorque above 0, or it moves nothing")
		case kind == entity.Friction && !(d.MaxForce > 0) && !(d.MaxTorque > 0):
			return fail("maxForce", "a friction joint needs maxForce or maxTorque above 0, or it holds nothing")
		}
	}
	if e := physics.CheckJoint(&d); e != nil {
		return entity.JointDef{}, e
	}
	if (kind == entity.Distance || kind == entity.Rope) && d.Length < physics.MinJointLength {
		if s.Length != nil {
			return fail("length", "%v m is shorter than the %v m box2d can hold: pin the bodies with a revolute joint instead", d.Length, physics.MinJointLength)
		}
		return fail("anchorB", "the anchors are %v m apart, less than the %v m box2d can hold: move them apart, give a length, or pin the bodies with a revolute joint", d.Length, physics.MinJointLength)
	}
	return d, nil
}

// resolveMotor sets a revolute, prismatic or wheel joint's motor from s:
// it runs when s gives a speed or the most it may apply, which must then
// be above 0 (a motor at speed 0 is a brake).
func resolveMotor(s *entity.JointSpec, d *entity.JointDef) *physics.JointError {
	if d.Kind != entity.Revolute && d.Kind != entity.Prismatic && d.Kind != entity.Wheel {
		return nil
	}
	maxKey, most := "maxTorque", s.MaxTorque
	if d.Kind == entity.Prismatic {
		maxKey, most = "maxForce", s.MaxForce
	}
	if s.MotorSpeed == nil && most == nil {
		return nil
	}
	if most == nil || !(*most > 0) {
		return &physics.JointError{Key: maxKey, Reason: fmt.Sprintf("the motor needs %s above 0, the most it may apply: without it a motor moves nothing", maxKey)}
	}
	d.EnableMotor = true
	if s.MotorSpeed != nil {
		d.MotorSpeed = *s.MotorSpeed
	}
	if d.Kind == entity.Prismatic {
		d.MaxForce = *most
	} else {
		d.MaxTorque = *most
	}
	return nil
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

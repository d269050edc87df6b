package scripting

import (
	"fmt"
	"math"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"vkm/internal/entity"
)

// jointKey is the field of a joint handle holding its number.
const jointKey = "_j"

// jointKinds are the names vkm.joint takes, in entity.JointKind order.
var jointKinds = []string{"revolute", "prismatic", "distance", "weld", "wheel", "motor", "rope", "mouse", "friction"}

// jointOptKeys are the keys of vkm.joint's options, each with the key a
// scene file spells it as (the rules' errors name that one).
var jointOptKeys = [][2]string{
	{"anchor", "anchor"}, {"anchor_a", "anchorA"}, {"anchor_b", "anchorB"}, {"axis", "axis"},
	{"limits", "limits"}, {"motor_speed", "motorSpeed"}, {"max_torque", "maxTorque"}, {"max_force", "maxForce"},
	{"length", "length"}, {"frequency", "frequency"}, {"damping", "damping"}, {"offset", "offset"},
	{"angular_offset", "angularOffset"}, {"correction", "correction"}, {"target", "target"},
	{"collide_connected", "collideConnected"}, {"name", "name"},
}

// JointOptionKey is the name vkm.joint's options give the joint key a
// scene file spells fileKey ("motorSpeed" is "motor_speed"), for errors a
// host words for a behavior.
func JointOptionKey(fileKey string) string {
	for _, k := range jointOptKeys {
		if k[1] == fileKey {
			return k[0]
		}
	}
	return fileKey
}

// installJoints builds the joint handles' metatable and adds vkm.joint.
func (r *Runtime) installJoints(vkm *lua.LTable) {
	L := r.ls
	methods := map[string]lua.LGFunction{
		"alive": r.jointAlive, "kind": r.jointKind, "name": r.jointName, "bodies": r.jointBodies,
		"destroy":        r.jointDestroy,
		"reaction_force": r.jointReactionForce, "reaction_torque": r.jointReactionTorque,
		"motor_torque": r.jointMotorTorque, "angle": r.jointAngle, "speed": r.jointSpeed,
		"translation": r.jointTranslation, "distance": r.jointDistance, "anchors": r.jointAnchors,
		"motor_speed": r.jointMotorSpeed, "set_motor_speed": r.jointSetMotorSpeed,
		"motor_enabled": r.jointMotorEnabled, "set_motor_enabled": r.jointSetMotorEnabled,
		"max_torque": r.jointMaxTorque, "set_max_torque": r.jointSetMaxTorque,
		"max_force": r.jointMaxForce, "set_max_force": r.jointSetMaxForce,
		"limits": r.jointLimits, "set_limits": r.jointSetLimits,
		"limits_enabled": r.jointLimitsEnabled, "set_limits_enabled": r.jointSetLimitsEnabled,
		"length": r.jointLength, "set_length": r.jointSetLength,
		"frequency": r.jointFrequency, "set_frequency": r.jointSetFrequency,
		"damping": r.jointDamping, "set_damping": r.jointSetDamping,
		"target": r.jointTarget, "set_target": r.jointSetTarget,
		"offset": r.jointOffset, "set_offset": r.jointSetOffset,
	}
	for _, name := range []string{"destroy", "set_motor_speed", "set_motor_enabled", "set_max_torque", "set_max_force",
		"set_limits", "set_limits_enabled", "set_length", "set_frequency", "set_damping", "set_target", "set_offset"} {
		methods[name] = r.simulationOnly(name, methods[name])
	}
	r.jointMethods = L.CreateTable(0, len(methods))
	for _, name := range sortedKeys(methods) {
		rawSetString(r.jointMethods, name, newFunction(L, methods[name]))
	}
	r.jointMeta = L.NewTable()
	rawSetString(r.jointMeta, "__index", r.jointMethods)
	rawSetString(r.jointMeta, "__tostring", newFunction(L, func(L *lua.LState) int {
		j, _ := L.Get(1).(*lua.LTable)
		n, _ := j.RawGetString(jointKey).(lua.LNumber)
		if info, ok := r.world.Joint(uint32(n)); ok {
			L.Push(lua.LString(fmt.Sprintf("joint %d (%v)", uint32(n), info.Kind)))
		} else {
			L.Push(lua.LString(fmt.Sprintf("joint %d (gone)", uint32(n))))
		}
		return 1
	}))
	rawSetString(vkm, "joint", newFunction(L, r.simulationOnly("vkm.joint", r.luaMakeJoint)))
}

// jointHandle returns joint j's handle, the same table each time, so that
// handles compare with ==.
func (r *Runtime) jointHandle(j uint32) lua.LValue {
	if j == 0 {
		return lua.LNil
	}
	if t, ok := r.joints[j]; ok {
		return t
	}
	if len(r.joints) >= r.jointSweepAt {
		for k := range r.joints {
			if _, ok := r.world.Joint(k); !ok {
				delete(r.joints, k)
			}
		}
		r.jointSweepAt = max(64, 2*len(r.joints))
	}
	t := r.ls.CreateTable(0, 1)
	t.RawSetString(jointKey, lua.LNumber(j))
	t.Metatable = r.jointMeta
	r.joints[j] = t
	return t
}

// joint returns the joint argument 1 names and what it is now; a joint
// that is gone is not an error: every method then returns nothing.
func (r *Runtime) joint(L *lua.LState) (uint32, JointInfo, bool) {
	t, ok := L.Get(1).(*lua.LTable)
	var n lua.LNumber
	if ok {
		n, ok = t.RawGetString(jointKey).(lua.LNumber)
	}
	if !ok {
		L.ArgError(1, "joint expected (call a joint's methods with ':', as j:set_motor_speed(2))")
	}
	info, alive := r.world.Joint(uint32(n))
	return uint32(n), info, alive
}

// luaMakeJoint implements vkm.joint(kind, a, b, opts): joins a's body to
// b's (nil: to the world) and returns the joint's handle. Every point in
// opts is in the world, where the bodies stand now.
func (r *Runtime) luaMakeJoint(L *lua.LState) int {
	name := L.CheckString(1)
	kind := slices.Index(jointKinds, name)
	if kind < 0 {
		L.ArgError(1, "unknown joint kind "+quote(name)+": the kinds are "+strings.Join(jointKinds, ", "))
	}
	a, ok := entityOf(L.Get(2))
	if !ok {
		L.ArgError(2, "entity expected")
	}
	b := entity.None
	if L.Get(3) != lua.LNil {
		if b, ok = entityOf(L.Get(3)); !ok {
			L.ArgError(3, "entity or nil (the world) expected")
		}
	}
	spec := entity.JointSpec{Kind: entity.JointKind(kind)}
	jname := ""
	if L.Get(4) != lua.LNil {
		jname = r.jointOpts(L, 4, L.CheckTable(4), &spec)
	}
	j, err := r.world.MakeJoint(a, b, &spec, jname)
	if err != nil {
		L.RaiseError("vkm.joint: %s", trimPackage(err))
	}
	L.Push(r.jointHandle(j))
	return 1
}

// jointOpts reads vkm.joint's options into spec and returns the name.
func (r *Runtime) jointOpts(L *lua.LState, n int, t *lua.LTable, spec *entity.JointSpec) string {
	var keys []string
	for _, k := range jointOptKeys {
		keys = append(keys, k[0])
	}
	r.onlyKeys(L, n, t, keys)
	pt := func(key string) *entity.Vec2 {
		if t.RawGetString(key) == lua.LNil {
			return nil
		}
		p := tablePoint(L, n, t, key)
		return &p
	}
	num := func(key string) *float64 {
		if t.RawGetString(key) == lua.LNil {
			return nil
		}
		v := tableNumber(L, n, t, key, 0)
		return &v
	}
	spec.Anchor, spec.AnchorA, spec.AnchorB, spec.Axis = pt("anchor"), pt("anchor_a"), pt("anchor_b"), pt("axis")
	spec.Offset, spec.Target = pt("offset"), pt("target")
	if lim := pt("limits"); lim != nil {
		spec.Limits = &[2]float64{lim.X, lim.Y}
	}
	spec.MotorSpeed, spec.MaxTorque, spec.MaxForce = num("motor_speed"), num("max_torque"), num("max_force")
	spec.Length, spec.Frequency, spec.Damping = num("length"), num("frequency"), num("damping")
	spec.AngularOffset, spec.Correction = num("angular_offset"), num("correction")
	spec.CollideConnected = tableBool(L, n, t, "collide_connected")
	name := ""
	if v := t.RawGetString("name"); v != lua.LNil {
		s, ok := v.(lua.LString)
		if !ok {
			L.ArgError(n, "name must be a string")
		}
		name = string(s)
	}
	return name
}

// luaJoints implements self:joints(): a new list of the joints of the
// entity's body, in the order they are solved.
func (r *Runtime) luaJoints(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	t := L.CreateTable(0, 0)
	r.world.JointsOf(id, func(j uint32) bool {
		t.Append(r.jointHandle(j))
		return true
	})
	L.Push(t)
	return 1
}

// luaJointNamed implements self:joint(name): the first of the entity's
// joints with that name, or nil.
func (r *Runtime) luaJointNamed(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	name := L.CheckString(2)
	found := uint32(0)
	r.world.JointsOf(id, func(j uint32) bool {
		if info, ok := r.world.Joint(j); ok && info.Name == name {
			found = j
			return false
		}
		return true
	})
	L.Push(r.jointHandle(found))
	return 1
}

func (r *Runtime) jointAlive(L *lua.LState) int {
	_, _, ok := r.joint(L)
	L.Push(lua.LBool(ok))
	return 1
}

func (r *Runtime) jointKind(L *lua.LState) int {
	if _, info, ok := r.joint(L); ok {
		L.Push(lua.LString(info.Kind.String()))
		return 1
	}
	return 0
}

func (r *Runtime) jointName(L *lua.LState) int {
	if _, info, ok := r.joint(L); ok {
		L.Push(lua.LString(info.Name))
		return 1
	}
	return 0
}

func (r *Runtime) jointBodies(L *lua.LState) int {
	if _, info, ok := r.joint(L); ok {
		L.Push(r.handle(info.A))
		L.Push(r.handle(info.B))
		return 2
	}
	return 0
}

func (r *Runtime) jointDestroy(L *lua.LState) int {
	if j, _, ok := r.joint(L); ok {
		r.world.RemoveJoint(j)
	}
	return 0
}

// readout pushes what f reads of the joint, or nothing when it is gone.
func (r *Runtime) readout(L *lua.LState, f func(JointInfo) []float64) int {
	_, info, ok := r.joint(L)
	if !ok {
		return 0
	}
	vs := f(info)
	for _, v := range vs {
		L.Push(r.num.box(v))
	}
	return len(vs)
}

func (r *Runtime) jointReactionForce(L *lua.LState) int {
	return r.readout(L, func(i JointInfo) []float64 { return []float64{i.ForceX, i.ForceY} })
}

func (r *Runtime) jointReactionTorque(L *lua.LState) int {
	return r.readout(L, func(i JointInfo) []float64 { return []float64{i.Torque} })
}

func (r *Runtime) jointMotorTorque(L *lua.LState) int {
	return r.readout(L, func(i JointInfo) []float64 { return []float64{i.Motor} })
}

func (r *Runtime) jointAngle(L *lua.LState) int {
	return r.readout(L, func(i JointInfo) []float64 { return []float64{i.Angle} })
}

func (r *Runtime) jointSpeed(L *lua.LState) int {
	return r.readout(L, func(i JointInfo) []float64 { return []float64{i.Speed} })
}

func (r *Runtime) jointTranslation(L *lua.LState) int {
	return r.readout(L, func(i JointInfo) []float64 { return []float64{i.Translation} })
}

func (r *Runtime) jointDistance(L *lua.LState) int {
	return r.readout(L, func(i JointInfo) []float64 { return []float64{i.Length} })
}

func (r *Runtime) jointAnchors(L *lua.LState) int {
	return r.readout(L, func(i JointInfo) []float64 { return []float64{i.AX, i.AY, i.BX, i.BY} })
}

func (r *Runtime) jointMotorSpeed(L *lua.LState) int {
	return r.readout(L, func(i JointInfo) []float64 { return []float64{i.Def.MotorSpeed} })
}

func (r *Runtime) jointMaxTorque(L *lua.LState) int {
	return r.readout(L, func(i JointInfo) []float64 { return []float64{i.Def.MaxTorque} })
}

func (r *Runtime) jointMaxForce(L *lua.LState) int {
	return r.readout(L, func(i JointInfo) []float64 { return []float64{i.Def.MaxForce} })
}

func (r *Runtime) jointLimits(L *lua.LState) int {
	return r.readout(L, func(i JointInfo) []float64 { return []float64{i.Def.Lower, i.Def.Upper} })
}

func (r *Runtime) jointLength(L *lua.LState) int {
	return r.readout(L, func(i JointInfo) []float64 { return []float64{i.Def.Length} })
}

func (r *Runtime) jointFrequency(L *lua.LState) int {
	return r.readout(L, func(i JointInfo) []float64 { return []float64{i.Def.Frequency} })
}

func (r *Runtime) jointDamping(L *lua.LState) int {
	return r.readout(L, func(i JointInfo) []float64 { return []float64{i.Def.DampingRatio} })
}

func (r *Runtime) jointTarget(L *lua.LState) int {
	return r.readout(L, func(i JointInfo) []float64 { return []float64{i.Def.Target.X, i.Def.Target.Y} })
}

func (r *Runtime) jointOffset(L *lua.LState) int {
	return r.readout(L, func(i JointInfo) []float64 {
		return []float64{i.Def.LinearOffset.X, i.Def.LinearOffset.Y, i.Def.AngularOffset}
	})
}

func (r *Runtime) jointMotorEnabled(L *lua.LState) int {
	if _, info, ok := r.joint(L); ok {
		L.Push(lua.LBool(info.Def.EnableMotor))
		return 1
	}
	return 0
}

func (r *Runtime) jointLimitsEnabled(L *lua.LState) int {
	if _, info, ok := r.joint(L); ok {
		L.Push(lua.LBool(info.Def.EnableLimit))
		return 1
	}
	return 0
}

// change reads the joint, lets edit change its definition, and sets it,
// raising what the world says is wrong as an error of the named method.
func (r *Runtime) change(L *lua.LState, method string, edit func(d *entity.JointDef)) int {
	j, info, ok := r.joint(L)
	if !ok {
		return 0
	}
	d := info.Def
	edit(&d)
	if err := r.world.SetJoint(j, d); err != nil {
		L.RaiseError("%s: %s", method, trimPackage(err))
	}
	return 0
}

func (r *Runtime) jointSetMotorSpeed(L *lua.LState) int {
	v := checkFinite(L, 2)
	return r.change(L, "set_motor_speed", func(d *entity.JointDef) { d.MotorSpeed, d.EnableMotor = v, true })
}

func (r *Runtime) jointSetMotorEnabled(L *lua.LState) int {
	on := L.CheckBool(2)
	return r.change(L, "set_motor_enabled", func(d *entity.JointDef) { d.EnableMotor = on })
}

func (r *Runtime) jointSetMaxTorque(L *lua.LState) int {
	v := checkFinite(L, 2)
	return r.change(L, "set_max_torque", func(d *entity.JointDef) { d.MaxTorque = v })
}

func (r *Runtime) jointSetMaxForce(L *lua.LState) int {
	v := checkFinite(L, 2)
	return r.change(L, "set_max_force", func(d *entity.JointDef) { d.MaxForce = v })
}

func (r *Runtime) jointSetLimits(L *lua.LState) int {
	lo, hi := checkFinite(L, 2), checkFinite(L, 3)
	if lo > hi {
		L.ArgError(2, fmt.Sprintf("limits %v, %v are the wrong way round: the lower limit comes first", lo, hi))
	}
	return r.change(L, "set_limits", func(d *entity.JointDef) { d.Lower, d.Upper, d.EnableLimit = lo, hi, true })
}

func (r *Runtime) jointSetLimitsEnabled(L *lua.LState) int {
	on := L.CheckBool(2)
	return r.change(L, "set_limits_enabled", func(d *entity.JointDef) { d.EnableLimit = on })
}

func (r *Runtime) jointSetLength(L *lua.LState) int {
	v := checkFinite(L, 2)
	if !(v > 0) {
		L.ArgError(2, "a length above 0 expected")
	}
	return r.change(L, "set_length", func(d *entity.JointDef) { d.Length = v })
}

func (r *Runtime) jointSetFrequency(L *lua.LState) int {
	v := checkFinite(L, 2)
	return r.change(L, "set_frequency", func(d *entity.JointDef) { d.Frequency = v })
}

func (r *Runtime) jointSetDamping(L *lua.LState) int {
	v := checkFinite(L, 2)
	return r.change(L, "set_damping", func(d *entity.JointDef) { d.DampingRatio = v })
}

func (r *Runtime) jointSetTarget(L *lua.LState) int {
	x, y := checkFinite(L, 2), checkFinite(L, 3)
	return r.change(L, "set_target", func(d *entity.JointDef) { d.Target = entity.Vec2{X: x, Y: y} })
}

func (r *Runtime) jointSetOffset(L *lua.LState) int {
	x, y := checkFinite(L, 2), checkFinite(L, 3)
	a := math.NaN()
	if L.Get(4) != lua.LNil {
		a = checkFinite(L, 4)
	}
	return r.change(L, "set_offset", func(d *entity.JointDef) {
		d.LinearOffset = entity.Vec2{X: x, Y: y}
		if !math.IsNaN(a) {
			d.AngularOffset = a
		}
	})
}

package scripting

import (
	"math"

	lua "github.com/yuin/gopher-lua"

	"vkm/internal/entity"
	"vkm/replication"
)

// engineFields lists the fields of the engine component types that
// self:get, self:set and self:component name, in table order. Only
// Transform, Rigidbody's motion and CharacterController.grounded replicate;
// the controller's tuning and intent are there for behaviors to adjust.
var engineFields = map[string][]string{
	"Transform":           {"x", "y", "angle", "scale"},
	"Rigidbody":           {"vx", "vy", "angular_velocity", "awake"},
	"CharacterController": {"grounded", "move_x", "move_y", "jump", "speed", "accel", "air_accel", "jump_speed", "friction"},
}

// ref points at one component field in the store: a number or a flag. Both
// nil means the entity has no such component.
type ref struct {
	num  *float64
	flag *bool
}

// engineRef resolves an engine type's field on id. It reports false if typ
// is not an engine type, and raises a Lua error (argument 3) for an unknown
// field.
func (r *Runtime) engineRef(L *lua.LState, id entity.ID, typ, name string) (ref, bool) {
	switch typ {
	case "Transform":
		t := r.world.Transform(id)
		if t == nil {
			return ref{}, true
		}
		switch name {
		case "x":
			return ref{num: &t.X}, true
		case "y":
			return ref{num: &t.Y}, true
		case "angle":
			return ref{num: &t.Angle}, true
		case "scale":
			return ref{num: &t.Scale}, true
		}
	case "Rigidbody":
		b := r.world.Rigidbody(id)
		if b == nil {
			return ref{}, true
		}
		switch name {
		case "vx":
			return ref{num: &b.VX}, true
		case "vy":
			return ref{num: &b.VY}, true
		case "angular_velocity":
			return ref{num: &b.AngularVelocity}, true
		case "awake":
			return ref{flag: &b.Awake}, true
		}
	case "CharacterController":
		return r.controllerRef(L, id, name), true
	default:
		return ref{}, false
	}
	L.ArgError(3, "component type "+typ+" has no field "+name)
	return ref{}, true
}

func (r *Runtime) controllerRef(L *lua.LState, id entity.ID, name string) ref {
	c := r.world.Controller(id)
	if c == nil {
		return ref{}
	}
	switch name {
	case "grounded":
		return ref{flag: &c.Grounded}
	case "move_x":
		return ref{num: &c.MoveX}
	case "move_y":
		return ref{num: &c.MoveY}
	case "jump":
		return ref{flag: &c.Jump}
	case "speed":
		return ref{num: &c.Speed}
	case "accel":
		return ref{num: &c.Accel}
	case "air_accel":
		return ref{num: &c.AirAccel}
	case "jump_speed":
		return ref{num: &c.JumpSpeed}
	case "friction":
		return ref{num: &c.Friction}
	}
	L.ArgError(3, "component type CharacterController has no field "+name)
	return ref{}
}

// projectType resolves a project component type registered by
// vkmSetupNetwork (argument n), raising a Lua error for an unknown name.
func (r *Runtime) projectType(L *lua.LState, n int, typ string) int {
	i, ok := r.types[typ]
	if !ok {
		L.ArgError(n, "unknown component type "+typ+" (register it in vkmSetupNetwork)")
	}
	return i
}

// projectField resolves field name of project type typ (argument n).
func (r *Runtime) projectField(L *lua.LState, n, typ int, name string) (int, replication.Codec) {
	f, ok := r.fields[typ][name]
	if !ok {
		L.ArgError(n, "component type "+r.schema.Types[typ].Name+" has no field "+name)
	}
	return f, r.schema.Types[typ].Fields[f].Codec
}

// pushField pushes a stored field value as Lua sees it: a boolean for a
// Bool codec, a number otherwise.
func (r *Runtime) pushField(L *lua.LState, v float64, c replication.Codec) {
	if c.Kind == replication.Bool {
		L.Push(lua.LBool(v != 0))
		return
	}
	L.Push(r.num.box(v))
}

// fieldValue converts v for a field with codec c and returns what the wire
// would carry (Codec.Quantize), so every end holds the same value. A Bool
// field takes a boolean or a number; the others a finite number. what
// names the field in the error raised otherwise.
func fieldValue(L *lua.LState, v lua.LValue, c replication.Codec, what string) float64 {
	switch x := v.(type) {
	case lua.LBool:
		if c.Kind == replication.Bool {
			if x {
				return 1
			}
			return 0
		}
	case lua.LNumber:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			L.RaiseError("%s: finite number expected, got %v", what, f)
		}
		return c.Quantize(f)
	}
	want := "number"
	if c.Kind == replication.Bool {
		want = "boolean"
	}
	L.RaiseError("%s: %s expected, got %s", what, want, v.Type())
	return 0
}

// luaGet implements self:get(type, field).
func (r *Runtime) luaGet(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	typ, name := L.CheckString(2), L.CheckString(3)
	if rf, engine := r.engineRef(L, id, typ, name); engine {
		return r.pushRef(L, rf)
	}
	t := r.projectType(L, 2, typ)
	f, codec := r.projectField(L, 3, t, name)
	vals := r.world.Component(id, t)
	if f >= len(vals) {
		return 0
	}
	r.pushField(L, vals[f], codec)
	return 1
}

func (r *Runtime) pushRef(L *lua.LState, rf ref) int {
	switch {
	case rf.num != nil:
		L.Push(r.num.box(*rf.num))
	case rf.flag != nil:
		L.Push(lua.LBool(*rf.flag))
	default:
		return 0
	}
	return 1
}

// luaSet implements self:set(type, field, value). A project field's value
// is quantised by its codec. Setting a component the entity does not have
// is an error (add it first).
func (r *Runtime) luaSet(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	typ, name := L.CheckString(2), L.CheckString(3)
	if rf, engine := r.engineRef(L, id, typ, name); engine {
		switch {
		case rf.num != nil:
			*rf.num = checkFinite(L, 4)
		case rf.flag != nil:
			*rf.flag = L.CheckBool(4)
		default:
			L.RaiseError("entity %v has no %s", id, typ)
		}
		return 0
	}
	t := r.projectType(L, 2, typ)
	f, codec := r.projectField(L, 3, t, name)
	v := fieldValue(L, L.Get(4), codec, "set "+typ+"."+name)
	vals := r.world.Component(id, t)
	if f >= len(vals) {
		L.RaiseError("entity %v has no %s (add it first with self:add)", id, typ)
	}
	vals[f] = v
	return 0
}

// luaHas implements self:has(type).
func (r *Runtime) luaHas(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	typ := L.CheckString(2)
	if names, engine := engineFields[typ]; engine {
		rf, _ := r.engineRef(L, id, typ, names[0])
		L.Push(lua.LBool(rf.num != nil || rf.flag != nil))
		return 1
	}
	L.Push(lua.LBool(r.world.Component(id, r.projectType(L, 2, typ)) != nil))
	return 1
}

// luaAdd implements self:add(type [, fields]): attaches a project component
// (zeroed, or kept if present) and sets the given fields, quantised. Engine
// components come from the scene or prefab and cannot be added.
func (r *Runtime) luaAdd(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	typ := L.CheckString(2)
	if _, engine := engineFields[typ]; engine {
		L.ArgError(2, typ+" is an engine component; it comes from the scene or prefab")
	}
	t := r.projectType(L, 2, typ)
	type set struct {
		f int
		v float64
	}
	var sets []set
	if init, isTable := L.Get(3).(*lua.LTable); isTable {
		for k, v := init.Next(lua.LNil); k != lua.LNil; k, v = init.Next(k) {
			f, codec := r.projectField(L, 3, t, k.String())
			sets = append(sets, set{f, fieldValue(L, v, codec, "add "+typ+"."+k.String())})
		}
	} else if L.Get(3) != lua.LNil {
		L.TypeError(3, lua.LTTable)
	}
	vals := r.world.AddComponent(id, t)
	for _, s := range sets {
		if s.f < len(vals) {
			vals[s.f] = s.v
		}
	}
	return 0
}

// luaRemove implements self:remove(type) for a project component.
func (r *Runtime) luaRemove(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	typ := L.CheckString(2)
	if _, engine := engineFields[typ]; engine {
		L.ArgError(2, typ+" is an engine component; it cannot be removed by a script")
	}
	r.world.RemoveComponent(id, r.projectType(L, 2, typ))
	return 0
}

// luaComponent implements self:component(type): a new table holding a copy
// of every field (so it allocates; prefer get for one field), or nil if the
// entity has no such component. Writing to the copy changes nothing.
func (r *Runtime) luaComponent(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	typ := L.CheckString(2)
	if names, engine := engineFields[typ]; engine {
		out := L.CreateTable(0, len(names))
		for _, n := range names {
			rf, _ := r.engineRef(L, id, typ, n)
			if r.pushRef(L, rf) == 0 {
				return 0
			}
			out.RawSetString(n, L.Get(-1))
			L.Pop(1)
		}
		L.Push(out)
		return 1
	}
	t := r.projectType(L, 2, typ)
	vals := r.world.Component(id, t)
	fields := r.schema.Types[t].Fields
	if vals == nil || len(vals) < len(fields) {
		return 0
	}
	out := L.CreateTable(0, len(fields))
	for i, f := range fields {
		r.pushField(L, vals[i], f.Codec)
		out.RawSetString(f.Name, L.Get(-1))
		L.Pop(1)
	}
	L.Push(out)
	return 1
}

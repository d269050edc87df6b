package scripting

import (
	"math"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"vkm/internal/entity"
)

// The Lua side of physics beyond the components: forces, mass, a body's
// type, shapes and filters (methods on entities), and joints (vkm.joint,
// self:joints, self:joint, and the methods of a joint handle). Names
// follow LÖVE's love.physics where they fit (apply_force, apply_torque,
// set_limits, set_motor_speed), in the API's snake case.

// Defaults of a shape self:add_shape is given, as a scene file's
// (project.DefaultDensity, DefaultFriction, DefaultRestitution).
const (
	defaultDensity     = 1.0
	defaultFriction    = 0.6
	defaultRestitution = 0.0
)

// physicsMethods are the entity methods of this file.
func (r *Runtime) physicsMethods() map[string]lua.LGFunction {
	return map[string]lua.LGFunction{
		"apply_force": r.luaApplyForce, "apply_torque": r.luaApplyTorque,
		"apply_angular_impulse": r.luaApplyAngularImpulse,
		"mass":                  r.luaMass, "inertia": r.luaInertia, "center_of_mass": r.luaCenterOfMass,
		"body_type": r.luaBodyType, "set_body_type": r.luaSetBodyType,
		"enabled": r.luaEnabled, "set_enabled": r.luaSetEnabled,
		"damping": r.luaDamping, "set_damping": r.luaSetDamping,
		"gravity_scale": r.luaGravityScale, "set_gravity_scale": r.luaSetGravityScale,
		"shape_count": r.luaShapeCount, "add_shape": r.luaAddShape, "remove_shape": r.luaRemoveShape,
		"filter": r.luaFilter, "set_filter": r.luaSetFilter,
		"joints": r.luaJoints, "joint": r.luaJointNamed,
	}
}

// physicsWriters are the methods of this file that change the world,
// refused in on_update.
var physicsWriters = []string{
	"apply_force", "apply_torque", "apply_angular_impulse", "set_body_type", "set_enabled",
	"set_damping", "set_gravity_scale", "add_shape", "remove_shape", "set_filter",
}

func (r *Runtime) luaApplyForce(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	p := Push{X: checkFinite(L, 2), Y: checkFinite(L, 3)}
	if L.Get(4) != lua.LNil {
		p.At, p.PX, p.PY = true, checkFinite(L, 4), checkFinite(L, 5)
	}
	r.world.Push(r.current, id, p)
	return 0
}

func (r *Runtime) luaApplyTorque(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	r.world.Push(r.current, id, Push{Turn: checkFinite(L, 2)})
	return 0
}

func (r *Runtime) luaApplyAngularImpulse(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	r.world.Push(r.current, id, Push{Impulse: true, Turn: checkFinite(L, 2)})
	return 0
}

// body returns the target's body, or pushes nothing and reports false.
func (r *Runtime) body(L *lua.LState) (entity.ID, BodyInfo, bool) {
	id, ok := r.target(L)
	if !ok {
		return id, BodyInfo{}, false
	}
	b, ok := r.world.Body(id)
	return id, b, ok
}

func (r *Runtime) luaMass(L *lua.LState) int {
	if _, b, ok := r.body(L); ok {
		L.Push(r.num.box(b.Mass))
		return 1
	}
	return 0
}

func (r *Runtime) luaInertia(L *lua.LState) int {
	if _, b, ok := r.body(L); ok {
		L.Push(r.num.box(b.Inertia))
		return 1
	}
	return 0
}

func (r *Runtime) luaCenterOfMass(L *lua.LState) int {
	if _, b, ok := r.body(L); ok {
		L.Push(r.num.box(b.CenterX))
		L.Push(r.num.box(b.CenterY))
		return 2
	}
	return 0
}

// bodyTypes are the names body_type returns and set_body_type takes.
var bodyTypes = []string{entity.Static.String(), entity.Dynamic.String(), entity.Kinematic.String(), entity.Decoration.String()}

func (r *Runtime) luaBodyType(L *lua.LState) int {
	if _, b, ok := r.body(L); ok {
		L.Push(lua.LString(b.Type.String()))
		return 1
	}
	return 0
}

func (r *Runtime) luaSetBodyType(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	name := L.CheckString(2)
	i := slices.Index(bodyTypes, name)
	if i < 0 || entity.BodyType(i) == entity.Decoration {
		L.ArgError(2, `"static", "dynamic" or "kinematic" expected`)
	}
	if err := r.world.SetBodyType(id, entity.BodyType(i)); err != nil {
		L.RaiseError("set_body_type: %s", trimPackage(err))
	}
	return 0
}

func (r *Runtime) luaEnabled(L *lua.LState) int {
	if _, b, ok := r.body(L); ok {
		L.Push(lua.LBool(b.Enabled))
		return 1
	}
	return 0
}

func (r *Runtime) luaSetEnabled(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	r.world.SetEnabled(id, L.CheckBool(2))
	return 0
}

func (r *Runtime) luaDamping(L *lua.LState) int {
	if _, b, ok := r.body(L); ok {
		L.Push(r.num.box(b.LinearDamping))
		L.Push(r.num.box(b.AngularDamping))
		return 2
	}
	return 0
}

func (r *Runtime) luaSetDamping(L *lua.LState) int {
	id, b, ok := r.body(L)
	if !ok {
		return 0
	}
	lin := checkFinite(L, 2)
	ang := optFinite(L, 3, b.AngularDamping)
	if err := r.world.SetDamping(id, lin, ang, b.GravityScale); err != nil {
		L.RaiseError("set_damping: %s", trimPackage(err))
	}
	return 0
}

func (r *Runtime) luaGravityScale(L *lua.LState) int {
	if _, b, ok := r.body(L); ok {
		L.Push(r.num.box(b.GravityScale))
		return 1
	}
	return 0
}

func (r *Runtime) luaSetGravityScale(L *lua.LState) int {
	id, b, ok := r.body(L)
	if !ok {
		return 0
	}
	if err := r.world.SetDamping(id, b.LinearDamping, b.AngularDamping, checkFinite(L, 2)); err != nil {
		L.RaiseError("set_gravity_scale: %s", trimPackage(err))
	}
	return 0
}

func (r *Runtime) luaShapeCount(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	n := 0
	for {
		if _, ok := r.world.Shape(id, n); !ok {
			break
		}
		n++
	}
	L.Push(lua.LNumber(n))
	return 1
}

// luaAddShape implements self:add_shape(spec): spec is {box = {w, h}},
// {circle = r}, {polygon = {{x, y}, ...}} or {chain = {{x, y}, ...},
// loop = b}, with offset = {x, y}, angle, density, friction, restitution,
// sensor, category, mask, group and one_way as a scene file's shape has
// them. It returns the new shape's number, from 1.
func (r *Runtime) luaAddShape(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	s := r.shapeSpec(L, 2)
	i, err := r.world.AddShape(id, s)
	if err != nil {
		L.RaiseError("add_shape: %s", trimPackage(err))
	}
	L.Push(lua.LNumber(i + 1))
	return 1
}

// shapeKeys are the keys of add_shape's table.
var shapeKeys = []string{"box", "circle", "polygon", "chain", "loop", "offset", "angle", "density", "friction",
	"restitution", "sensor", "category", "mask", "group", "one_way"}

// shapeSpec reads argument n as a shape.
func (r *Runtime) shapeSpec(L *lua.LState, n int) entity.Shape {
	t := L.CheckTable(n)
	r.onlyKeys(L, n, t, shapeKeys)
	s := entity.Shape{Density: defaultDensity, Friction: defaultFriction, Restitution: defaultRestitution}
	kinds := 0
	for _, k := range []string{"box", "circle", "polygon", "chain"} {
		if t.RawGetString(k) != lua.LNil {
			kinds++
		}
	}
	if kinds != 1 {
		L.ArgError(n, "a shape is exactly one of box = {w, h}, circle = r, polygon = {{x, y}, ...} or chain = {{x, y}, ...}")
	}
	switch {
	case t.RawGetString("box") != lua.LNil:
		wh := tablePoint(L, n, t, "box")
		s.Kind, s.W, s.H = entity.Box, wh.X, wh.Y
	case t.RawGetString("circle") != lua.LNil:
		s.Kind, s.Radius = entity.Circle, tableNumber(L, n, t, "circle", 0)
	case t.RawGetString("polygon") != lua.LNil:
		s.Kind, s.Points = entity.Polygon, tablePoints(L, n, t, "polygon")
	default:
		s.Kind, s.Points = entity.Chain, tablePoints(L, n, t, "chain")
	}
	s.Loop = tableBool(L, n, t, "loop")
	if t.RawGetString("offset") != lua.LNil {
		s.Offset = tablePoint(L, n, t, "offset")
	}
	s.Angle = tableNumber(L, n, t, "angle", 0)
	s.Density = tableNumber(L, n, t, "density", s.Density)
	s.Friction = tableNumber(L, n, t, "friction", s.Friction)
	s.Restitution = tableNumber(L, n, t, "restitution", s.Restitution)
	s.Sensor = tableBool(L, n, t, "sensor")
	s.OneWay = tableBool(L, n, t, "one_way")
	s.Category, s.Mask, s.Group = r.filterSpec(L, n, t, 0, 0, 0)
	return s
}

func (r *Runtime) luaRemoveShape(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	i := L.CheckInt(2)
	if err := r.world.RemoveShape(id, i-1); err != nil {
		L.RaiseError("remove_shape: %s", trimPackage(err))
	}
	return 0
}

// luaFilter implements self:filter([i]): shape i's (from 1, by default
// 1) collision filter as {category = {names}, mask = {names}, group = n}.
func (r *Runtime) luaFilter(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	s, ok := r.world.Shape(id, L.OptInt(2, 1)-1)
	if !ok {
		return 0
	}
	cat, mask := s.Category, s.Mask
	if cat == 0 {
		cat = 1
	}
	if mask == 0 {
		mask = 0xFFFF
	}
	t := L.CreateTable(0, 3)
	t.RawSetString("category", r.categoryList(cat))
	t.RawSetString("mask", r.categoryList(mask))
	t.RawSetString("group", lua.LNumber(s.Group))
	L.Push(t)
	return 1
}

// luaSetFilter implements self:set_filter(filter [, i]): filter is a table
// of category, mask (names, as a scene file gives them) and group; what it
// leaves out stays as it is. Without i, every shape of the body takes it.
func (r *Runtime) luaSetFilter(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	t := L.CheckTable(2)
	r.onlyKeys(L, 2, t, []string{"category", "mask", "group"})
	first, last := 0, math.MaxInt
	if L.Get(3) != lua.LNil {
		first = L.CheckInt(3) - 1
		last = first
		if _, ok := r.world.Shape(id, first); !ok {
			L.ArgError(3, "the entity has no such shape")
		}
	}
	for i := first; i <= last; i++ {
		s, ok := r.world.Shape(id, i)
		if !ok {
			break
		}
		cat, mask, group := r.filterSpec(L, 2, t, s.Category, s.Mask, s.Group)
		if err := r.world.SetShapeFilter(id, i, cat, mask, group); err != nil {
			L.RaiseError("set_filter: %s", trimPackage(err))
		}
	}
	return 0
}

// filterSpec reads category, mask and group from t (argument n), keeping
// cat, mask and group for what it leaves out.
func (r *Runtime) filterSpec(L *lua.LState, n int, t *lua.LTable, cat, mask uint16, group int16) (uint16, uint16, int16) {
	if v := t.RawGetString("category"); v != lua.LNil {
		cat = r.categoryBits(L, n, "category", v)
	}
	if v := t.RawGetString("mask"); v != lua.LNil {
		mask = r.categoryBits(L, n, "mask", v)
	}
	if v := t.RawGetString("group"); v != lua.LNil {
		g, ok := v.(lua.LNumber)
		if !ok || float64(g) != math.Trunc(float64(g)) || g < math.MinInt16 || g > math.MaxInt16 {
			L.ArgError(n, "group must be a whole number from -32768 to 32767")
		}
		group = int16(g)
	}
	return cat, mask, group
}

// categoryBits reads a category name or a list of them.
func (r *Runtime) categoryBits(L *lua.LState, n int, key string, v lua.LValue) uint16 {
	var names []string
	switch v := v.(type) {
	case lua.LString:
		names = []string{string(v)}
	case *lua.LTable:
		for i := 1; i <= v.Len(); i++ {
			s, ok := v.RawGetInt(i).(lua.LString)
			if !ok {
				L.ArgError(n, key+" must be a category's name or a list of them")
			}
			names = append(names, string(s))
		}
	default:
		L.ArgError(n, key+" must be a category's name or a list of them")
	}
	if len(names) == 0 {
		L.ArgError(n, key+" names no category")
	}
	var bits uint16
	for _, name := range names {
		b, ok := r.categoryBit(name)
		if !ok {
			L.ArgError(n, "unknown collision category "+quote(name)+": the categories are "+strings.Join(r.categoryNames(), ", ")+" (project.toml's [collision] categories)")
		}
		bits |= b
	}
	return bits
}

// categoryNames are "default" and the project's categories, in bit order.
func (r *Runtime) categoryNames() []string {
	return append([]string{"default"}, r.cfg.Categories...)
}

// categoryBit is the bit of a category's name.
func (r *Runtime) categoryBit(name string) (uint16, bool) {
	i := slices.Index(r.categoryNames(), name)
	if i < 0 || i > 15 {
		return 0, false
	}
	return 1 << i, true
}

// categoryList is bits as a list of names, in bit order.
func (r *Runtime) categoryList(bits uint16) *lua.LTable {
	names := r.categoryNames()
	t := r.ls.CreateTable(0, 0)
	for i := range 16 {
		if bits&(1<<i) == 0 {
			continue
		}
		if i < len(names) {
			t.Append(lua.LString(names[i]))
		} else {
			t.Append(lua.LString("bit " + itoa(i)))
		}
	}
	return t
}

// onlyKeys raises an error naming the first key of t (argument n) that is
// not in keys, and the nearest that is.
func (r *Runtime) onlyKeys(L *lua.LState, n int, t *lua.LTable, keys []string) {
	bad := ""
	t.ForEach(func(k, _ lua.LValue) {
		s, ok := k.(lua.LString)
		if (!ok || !slices.Contains(keys, string(s))) && bad == "" {
			bad = k.String()
		}
	})
	if bad != "" {
		L.ArgError(n, "unknown key "+quote(bad)+"; the keys are "+strings.Join(keys, ", "))
	}
}

// tableNumber reads t[key] (argument n) as a finite number, def when absent.
func tableNumber(L *lua.LState, n int, t *lua.LTable, key string, def float64) float64 {
	v := t.RawGetString(key)
	if v == lua.LNil {
		return def
	}
	f, ok := v.(lua.LNumber)
	if !ok || math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		L.ArgError(n, key+" must be a finite number")
	}
	return float64(f)
}

// tableBool reads t[key] as a boolean, false when absent.
func tableBool(L *lua.LState, n int, t *lua.LTable, key string) bool {
	v := t.RawGetString(key)
	if v == lua.LNil {
		return false
	}
	b, ok := v.(lua.LBool)
	if !ok {
		L.ArgError(n, key+" must be true or false")
	}
	return bool(b)
}

// tablePoint reads t[key] as {x, y}.
func tablePoint(L *lua.LState, n int, t *lua.LTable, key string) entity.Vec2 {
	p, ok := point(t.RawGetString(key))
	if !ok {
		L.ArgError(n, key+" must be {x, y}, two finite numbers")
	}
	return p
}

// tablePoints reads t[key] as {{x, y}, ...}.
func tablePoints(L *lua.LState, n int, t *lua.LTable, key string) []entity.Vec2 {
	list, ok := t.RawGetString(key).(*lua.LTable)
	if !ok {
		L.ArgError(n, key+" must be a list of {x, y}")
	}
	var out []entity.Vec2
	for i := 1; i <= list.Len(); i++ {
		p, ok := point(list.RawGetInt(i))
		if !ok {
			L.ArgError(n, key+" must be a list of {x, y}, each two finite numbers")
		}
		out = append(out, p)
	}
	return out
}

// point reads {x, y}.
func point(v lua.LValue) (entity.Vec2, bool) {
	t, ok := v.(*lua.LTable)
	if !ok || t.Len() != 2 {
		return entity.Vec2{}, false
	}
	x, ok1 := t.RawGetInt(1).(lua.LNumber)
	y, ok2 := t.RawGetInt(2).(lua.LNumber)
	p := entity.Vec2{X: float64(x), Y: float64(y)}
	return p, ok1 && ok2 && !math.IsNaN(p.X) && !math.IsInf(p.X, 0) && !math.IsNaN(p.Y) && !math.IsInf(p.Y, 0)
}

// trimPackage is err's message without the package prefix a Go error
// starts with, which means nothing to a behavior's writer.
func trimPackage(err error) string {
	s := err.Error()
	for _, p := range []string{"game: ", "physics: ", "project: "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

// quote is s in double quotes.
func quote(s string) string { return `"` + s + `"` }

// itoa is a small number in decimal.
func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return string(rune('0'+i/10)) + string(rune('0'+i%10))
}

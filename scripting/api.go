package scripting

import (
	"slices"

	lua "github.com/yuin/gopher-lua"

	"vkm/internal/entity"
)

// installAPI builds the engine method table every class falls back to, the
// metatable of plain handles, the net and scene tables, the command()
// table, and the error a call of a method no entity has raises.
func (r *Runtime) installAPI() {
	L := r.ls
	methods := map[string]lua.LGFunction{
		"id": r.luaID, "name": r.luaName, "alive": r.luaAlive, "parent": r.luaParent,
		"position": r.luaPosition, "set_position": r.luaSetPosition,
		"angle": r.luaAngle, "set_angle": r.luaSetAngle,
		"velocity": r.luaVelocity, "set_velocity": r.luaSetVelocity,
		"angular_velocity": r.luaAngularVelocity, "set_angular_velocity": r.luaSetAngularVelocity,
		"apply_impulse": r.luaApplyImpulse,
		"get":           r.luaGet, "set": r.luaSet, "has": r.luaHas, "add": r.luaAdd,
		"remove": r.luaRemove, "component": r.luaComponent,
		"grounded": r.luaGrounded, "move": r.luaMove, "jump": r.luaJump,
		"spawn": r.luaSpawn, "destroy": r.luaDestroy,
		"raycast": r.luaRaycast, "query": r.luaQuery, "touching": r.luaTouching,
		"emit": r.luaEmit, "log": r.luaLog,
		"is_simulated": r.luaIsSimulated, "is_mine": r.luaIsMine,
		"command": r.luaCommand, "is_replaying": r.luaIsReplaying,
		"player":   r.luaPlayer,
		"cooldown": r.luaCooldown, "remaining": r.luaRemaining,
		"fresh": r.luaFresh,
	}
	for name, fn := range r.physicsMethods() {
		methods[name] = fn
	}
	for _, name := range slices.Concat(worldWriters, physicsWriters) {
		methods[name] = r.simulationOnly(name, methods[name])
	}
	r.api = L.CreateTable(0, len(methods))
	r.apiNames = sortedKeys(methods)
	for _, name := range r.apiNames {
		rawSetString(r.api, name, newFunction(L, methods[name]))
	}
	r.apiMeta = newSmallTable(L)
	rawSetString(r.apiMeta, "__index", r.api)
	r.handleMeta = newSmallTable(L)
	rawSetString(r.handleMeta, "__index", r.api)
	rawSetString(r.handleMeta, "__tostring", newFunction(L, r.luaToString))
	r.netTable = r.newNetTable()
	L.SetGlobal("net", r.netTable)
	r.sceneTable = r.newSceneTable()
	r.cmd = newCommandTable(L, r.cfg.Axes, r.cfg.Buttons)
	r.installMissing()
}

// worldWriters are the methods that change the simulated world. They are
// refused in on_update: a frame's wall-clock dt and its count of frames
// differ between ends and between runs, so a write from there would make
// the simulation depend on them.
var worldWriters = []string{
	"set_position", "set_angle", "set_velocity", "set_angular_velocity", "apply_impulse",
	"set", "add", "remove", "move", "jump", "spawn", "destroy", "cooldown",
}

// simulationOnly wraps a world-writing method so that it raises an error
// when called from on_update.
func (r *Runtime) simulationOnly(name string, fn lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		if r.presenting {
			L.RaiseError("%s changes the world and on_update is for presentation only: call it from on_fixed_update", name)
		}
		return fn(L)
	}
}

// target returns the entity a method was called on (argument 1) and whether
// it is alive. Argument 1 that is not an entity is a Lua error; a dead
// entity is not: every method then returns nothing (nil; alive() false)
// and does nothing, before looking at its other arguments.
func (r *Runtime) target(L *lua.LState) (entity.ID, bool) {
	self := L.Get(1)
	if t, ok := self.(*lua.LTable); ok && t == r.currentSelf {
		// The running callback's own self, its entity known: no read of
		// its entity field (a cache miss in a big world's instances).
		return r.current, r.world.Alive(r.current)
	}
	id, ok := entityOf(self)
	if !ok {
		L.ArgError(1, "entity expected (call methods with ':', as self:position())")
	}
	return id, r.world.Alive(id)
}

func (r *Runtime) luaID(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	L.Push(r.num.box(float64(id.Slot)))
	return 1
}

func (r *Runtime) luaName(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	L.Push(lua.LString(r.world.Name(id)))
	return 1
}

func (r *Runtime) luaAlive(L *lua.LState) int {
	_, ok := r.target(L)
	L.Push(lua.LBool(ok))
	return 1
}

func (r *Runtime) luaParent(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	L.Push(r.handle(r.world.Parent(id)))
	return 1
}

func (r *Runtime) luaPosition(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	if t := r.world.Transform(id); t != nil {
		L.Push(r.num.box(t.X))
		L.Push(r.num.box(t.Y))
		return 2
	}
	return 0
}

func (r *Runtime) luaSetPosition(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	x, y := checkFinite(L, 2), checkFinite(L, 3)
	if t := r.world.Transform(id); t != nil {
		t.X, t.Y = x, y
		r.wake(id)
	}
	return 0
}

// wake marks a teleported body awake: a sleeping crate moved into the air
// is expected to fall, not to hang where it was put.
func (r *Runtime) wake(id entity.ID) {
	if b := r.world.Rigidbody(id); b != nil {
		b.Awake = true
	}
}

func (r *Runtime) luaAngle(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	if t := r.world.Transform(id); t != nil {
		L.Push(r.num.box(t.Angle))
		return 1
	}
	return 0
}

func (r *Runtime) luaSetAngle(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	a := checkFinite(L, 2)
	if t := r.world.Transform(id); t != nil {
		t.Angle = a
		r.wake(id)
	}
	return 0
}

func (r *Runtime) luaVelocity(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	if b := r.world.Rigidbody(id); b != nil {
		L.Push(r.num.box(b.VX))
		L.Push(r.num.box(b.VY))
		return 2
	}
	return 0
}

// luaSetVelocity sets the body's velocity and, when it is not zero, wakes
// the body, as box2d's SetLinearVelocity does.
func (r *Runtime) luaSetVelocity(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	vx, vy := checkFinite(L, 2), checkFinite(L, 3)
	if b := r.world.Rigidbody(id); b != nil {
		b.VX, b.VY = vx, vy
		b.Awake = b.Awake || vx != 0 || vy != 0
	}
	return 0
}

func (r *Runtime) luaAngularVelocity(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	if b := r.world.Rigidbody(id); b != nil {
		L.Push(r.num.box(b.AngularVelocity))
		return 1
	}
	return 0
}

func (r *Runtime) luaSetAngularVelocity(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	w := checkFinite(L, 2)
	if b := r.world.Rigidbody(id); b != nil {
		b.AngularVelocity = w
		b.Awake = b.Awake || w != 0
	}
	return 0
}

func (r *Runtime) luaApplyImpulse(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	ix, iy := checkFinite(L, 2), checkFinite(L, 3)
	if L.Get(4) != lua.LNil {
		// At a point: it turns the body too.
		r.world.Push(r.current, id, Push{Impulse: true, X: ix, Y: iy, At: true, PX: checkFinite(L, 4), PY: checkFinite(L, 5)})
		return 0
	}
	r.world.ApplyImpulse(r.current, id, ix, iy)
	return 0
}

func (r *Runtime) luaGrounded(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	c := r.world.Controller(id)
	L.Push(lua.LBool(c != nil && c.Grounded))
	return 1
}

// luaMove sets the character controller's intent for the coming tick,
// self:move(x [, y]): side view runs toward x clamped to -1..1 and ignores
// y, so one behavior can drive either mode; top-down moves toward (x, y),
// scaled to length 1 when longer (see entity.CharacterController.Move).
func (r *Runtime) luaMove(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	x, y := checkFinite(L, 2), optFinite(L, 3, 0)
	if c := r.world.Controller(id); c != nil {
		c.Move(x, y)
	}
	return 0
}

func (r *Runtime) luaJump(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	if c := r.world.Controller(id); c != nil {
		c.Jump = true
	}
	return 0
}

func (r *Runtime) luaIsSimulated(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	L.Push(lua.LBool(r.world.Simulates(id)))
	return 1
}

func (r *Runtime) luaIsMine(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	L.Push(lua.LBool(r.world.IsMine(id)))
	return 1
}

func (r *Runtime) luaIsReplaying(L *lua.LState) int {
	if _, ok := r.target(L); !ok {
		return 0
	}
	L.Push(lua.LBool(r.world.IsReplaying()))
	return 1
}

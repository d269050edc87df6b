package scripting

import (
	lua "github.com/yuin/gopher-lua"

	"vkm/internal/entity"
)

// spawnArgs reads (prefab, x, y [, angle]) from argument n on and spawns.
func (r *Runtime) spawnArgs(L *lua.LState, n int) lua.LValue {
	path := L.CheckString(n)
	pose := entity.Identity
	pose.X, pose.Y = checkFinite(L, n+1), checkFinite(L, n+2)
	pose.Angle = optFinite(L, n+3, 0)
	pose.Scale = optFinite(L, n+4, 1)
	id, err := r.world.Spawn(path, pose)
	if err != nil {
		L.RaiseError("spawn %q: %s", path, err.Error())
	}
	return r.handle(id)
}

// luaSpawn implements self:spawn(prefab, x, y [, angle [, scale]]): builds the prefab
// (a path inside the project) with its root at the pose and returns the
// root's handle.
func (r *Runtime) luaSpawn(L *lua.LState) int {
	if _, ok := r.target(L); !ok {
		return 0
	}
	L.Push(r.spawnArgs(L, 2))
	return 1
}

// luaDestroy implements self:destroy(): detaches the entity's behaviors,
// running their on_destroy while the entity is still whole, then removes it
// and its subtree (World.Destroy, which detaches the subtree's behaviors).
// luaNetSpawn implements net.spawn(prefab, x, y [, angle [, scale]]), the
// same as self:spawn for code that has no entity at hand (a join handler, a
// game-mode script).
func (r *Runtime) luaNetSpawn(L *lua.LState) int {
	L.Push(r.spawnArgs(L, 1))
	return 1
}

func (r *Runtime) luaDestroy(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	r.world.Destroy(id) // detaches every behavior of the subtree first
	return 0
}

// luaRaycast implements self:raycast(x1, y1, x2, y2): the closest solid
// fixture on the segment, ignoring the caller's own, as a new table
// {entity = handle, x, y, nx, ny, fraction}, or nil for no hit.
func (r *Runtime) luaRaycast(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	x1, y1 := checkFinite(L, 2), checkFinite(L, 3)
	x2, y2 := checkFinite(L, 4), checkFinite(L, 5)
	hit, found := r.world.RayCast(x1, y1, x2, y2, id)
	if !found {
		return 0
	}
	t := L.CreateTable(0, 6)
	t.RawSetString("entity", r.handle(hit.Entity))
	t.RawSetString("x", lua.LNumber(hit.X))
	t.RawSetString("y", lua.LNumber(hit.Y))
	t.RawSetString("nx", lua.LNumber(hit.NX))
	t.RawSetString("ny", lua.LNumber(hit.NY))
	t.RawSetString("fraction", lua.LNumber(hit.Fraction))
	L.Push(t)
	return 1
}

// luaQuery implements self:query(minx, miny, maxx, maxy): a new list of the
// entities with a fixture overlapping the box (the caller included).
func (r *Runtime) luaQuery(L *lua.LState) int {
	_, ok := r.target(L)
	if !ok {
		return 0
	}
	x1, y1 := checkFinite(L, 2), checkFinite(L, 3)
	x2, y2 := checkFinite(L, 4), checkFinite(L, 5)
	r.scratch = r.scratch[:0]
	r.world.QueryBox(min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2), r.collector())
	L.Push(r.list())
	return 1
}

// luaTouching implements self:touching(): a new list of the entities whose
// fixtures touch the caller's, sensors included.
func (r *Runtime) luaTouching(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	r.scratch = r.scratch[:0]
	r.world.Touching(id, r.collector())
	L.Push(r.list())
	return 1
}

// collect is the World callback of query and touching.
func (r *Runtime) collect(id entity.ID) bool {
	r.scratch = append(r.scratch, id)
	return true
}

// collector returns r.collect as a func value made once. A method value
// handed to an interface's method is a closure made on the heap at each
// use: for the arena's health packs, which ask what touches them every
// tick, that was half of what a server tick allocated.
func (r *Runtime) collector() func(entity.ID) bool {
	if r.collectFn == nil {
		r.collectFn = r.collect
	}
	return r.collectFn
}

// list turns r.scratch into a Lua list of handles.
func (r *Runtime) list() *lua.LTable {
	t := r.ls.CreateTable(len(r.scratch), 0)
	for i, id := range r.scratch {
		t.RawSetInt(i+1, r.handle(id))
	}
	return t
}

// luaEmit implements self:emit(name [, fields]): records a presentation
// event from this entity at this tick. fields is a flat table of numbers,
// strings and booleans.
func (r *Runtime) luaEmit(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	name := L.CheckString(2)
	fields := flatFields(L, 3)
	r.world.Emit(Event{Name: name, Entity: id, Tick: r.world.Tick(), Fields: fields})
	return 0
}

// luaLog implements self:log(...): the arguments, tostring'd and joined by
// spaces, recorded through World.Log for this entity.
func (r *Runtime) luaLog(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	r.world.Log(id, joinArgs(L, 2, " "))
	return 0
}

// newSceneTable builds the scene passed to vkmBuildScene:
// scene:spawn(prefab, x, y [, angle]) and scene:find(name).
func (r *Runtime) newSceneTable() *lua.LTable {
	L := r.ls
	t := L.NewTable()
	self := func(L *lua.LState) {
		if L.Get(1) != t {
			L.ArgError(1, "scene expected (call scene:spawn and scene:find with ':')")
		}
	}
	rawSetString(t, "spawn", newFunction(L, func(L *lua.LState) int {
		self(L)
		L.Push(r.spawnArgs(L, 2))
		return 1
	}))
	rawSetString(t, "find", newFunction(L, func(L *lua.LState) int {
		self(L)
		L.Push(r.handle(r.world.Find(L.CheckString(2))))
		return 1
	}))
	return t
}

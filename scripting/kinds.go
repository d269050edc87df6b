package scripting

import (
	lua "github.com/yuin/gopher-lua"

	"vkm/internal/entity"
)

// Entities by kind: vkm.each(component), vkm.named(name) and
// vkm.count(component) walk the live entities in slot order, whether they
// have a body or not. The slot order is the one every end shares, so a
// loop visits the same entities in the same order on the server, on every
// client and in every replay.
//
// The two iterators are stateless, as Lua's generic for wants them: the
// state is the component type or name the loop was asked for, and the
// control variable is the last entity returned, so the next step resumes
// at the slot after it. Nothing is built per loop or per step beyond the
// handle of an entity that has never been named in Lua before.

// installKinds adds each, named and count to the vkm table.
func (r *Runtime) installKinds(vkm *lua.LTable) {
	L := r.ls
	eachStep := newFunction(L, r.luaEachStep)
	namedStep := newFunction(L, r.luaNamedStep)
	rawSetString(vkm, "each", newFunction(L, func(L *lua.LState) int {
		name := L.CheckString(1)
		r.checkKind(L, 1, name)
		L.Push(eachStep)
		L.Push(L.Get(1))
		L.Push(lua.LNil)
		return 3
	}))
	rawSetString(vkm, "named", newFunction(L, func(L *lua.LState) int {
		L.CheckString(1)
		L.Push(namedStep)
		L.Push(L.Get(1))
		L.Push(lua.LNil)
		return 3
	}))
	rawSetString(vkm, "count", newFunction(L, r.luaCount))
}

// checkKind raises an error naming argument n unless name is a component
// type self:has accepts: an engine type or one vkmSetupNetwork registered.
func (r *Runtime) checkKind(L *lua.LState, n int, name string) {
	if _, engine := engineFields[name]; engine {
		return
	}
	r.projectType(L, n, name)
}

// kind is a component type as a walk tests for it: one of the engine's
// (by its position in kindEngine) or a project type's schema index.
type kind struct {
	engine int // 1 + index in kindEngine; 0: a project type
	typ    int
}

var kindEngine = [...]string{"Transform", "Rigidbody", "CharacterController"}

// kindOf resolves name once per walk step rather than once per entity. It
// reports false for a name that is no type (a schema rebuilt since).
func (r *Runtime) kindOf(name string) (kind, bool) {
	for i, e := range kindEngine {
		if name == e {
			return kind{engine: i + 1}, true
		}
	}
	typ, ok := r.types[name]
	return kind{typ: typ}, ok
}

// has reports whether id has the component type k, as self:has would.
func (r *Runtime) has(id entity.ID, k kind) bool {
	switch k.engine {
	case 1:
		return r.world.Transform(id) != nil
	case 2:
		return r.world.Rigidbody(id) != nil
	case 3:
		return r.world.Controller(id) != nil
	}
	return r.world.Component(id, k.typ) != nil
}

// resume returns the slot a walk continues from: the one after the entity
// in argument n (the loop's control variable), or 0 to start.
func resume(L *lua.LState, n int) uint32 {
	if id, ok := entityOf(L.Get(n)); ok {
		return id.Slot + 1
	}
	return 0
}

// luaEachStep is vkm.each's iterator: the next live entity after the
// control variable that has the component type in the state.
func (r *Runtime) luaEachStep(L *lua.LState) int {
	k, ok := r.kindOf(L.CheckString(1))
	if !ok {
		return 0
	}
	for id := r.world.Next(resume(L, 2)); !id.IsNone(); id = r.world.Next(id.Slot + 1) {
		if r.has(id, k) {
			L.Push(r.handle(id))
			return 1
		}
	}
	return 0
}

// luaNamedStep is vkm.named's iterator: the next live entity after the
// control variable whose name is the state.
func (r *Runtime) luaNamedStep(L *lua.LState) int {
	name := L.CheckString(1)
	for id := r.world.Next(resume(L, 2)); !id.IsNone(); id = r.world.Next(id.Slot + 1) {
		if r.world.Name(id) == name {
			L.Push(r.handle(id))
			return 1
		}
	}
	return 0
}

// luaCount implements vkm.count(component): how many live entities have
// it, walked without building a handle or a table.
func (r *Runtime) luaCount(L *lua.LState) int {
	name := L.CheckString(1)
	r.checkKind(L, 1, name)
	k, _ := r.kindOf(name)
	n := 0
	for id := r.world.Next(0); !id.IsNone(); id = r.world.Next(id.Slot + 1) {
		if r.has(id, k) {
			n++
		}
	}
	L.Push(r.num.box(float64(n)))
	return 1
}

package scripting

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"vkm/internal/entity"
)

// entityKey is the instance and handle field holding the entity,
// entity.ID.Pack()ed. Scripts must not write it.
const entityKey = "_e"

// callback names one of a behavior's lifecycle methods. Its String is the
// method's name in Lua, which scripts define and the runtime looks up.
type callback uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=callback -linecomment

const (
	cbStart       callback = iota // on_start
	cbFixedUpdate                 // on_fixed_update
	cbUpdate                      // on_update
	cbDestroy                     // on_destroy
	cbReload                      // on_reload
	cbContact                     // on_contact
	numCallbacks
)

// behavior is a registered class: a table of methods.
type behavior struct {
	name  string
	class *lua.LTable
	meta  *lua.LTable // {__index = class, __tostring}: every instance's metatable
}

// instance is one behavior attached to one entity.
type instance struct {
	id   entity.ID
	b    *behavior
	self *lua.LTable
	fn   [numCallbacks]*lua.LFunction // resolved once, at Attach
	// props is what the instance was built with (or a reload last gave
	// it), kept to tell on_reload what changed; never written.
	props   map[string]any
	started bool
	// disabled is set after the instance's first error: no more callbacks.
	disabled bool
	// dead is set by Detach; the instance is dropped from order between
	// passes.
	dead bool
}

// entry is what the runtime knows of one entity: the one table scripts see
// for it, and its behaviors in attach order.
type entry struct {
	handle    *lua.LTable // the first behavior's instance, or a plain handle
	instances []*instance
	// marks are what self:fresh has seen in the entity's fields.
	marks []mark
	// cmd is the table self:command() refills for this entity, made at
	// its first call.
	cmd *commandTable
}

// newRegistry builds the r passed to vkmRegisterBehaviors: assigning
// r.name = Class, or calling r:register("name", Class), registers a
// behavior; reading r.name returns the class registered under it.
func (r *Runtime) newRegistry() *lua.LTable {
	L := r.ls
	reg := L.NewTable()
	rawSetString(reg, "register", newFunction(L, func(L *lua.LState) int {
		r.register(L, L.Get(2), L.Get(3))
		return 0
	}))
	meta := L.NewTable()
	rawSetString(meta, "__newindex", newFunction(L, func(L *lua.LState) int {
		r.register(L, L.Get(2), L.Get(3))
		return 0
	}))
	rawSetString(meta, "__index", newFunction(L, func(L *lua.LState) int {
		if b, ok := r.behaviors[L.Get(2).String()]; ok {
			L.Push(b.class)
			return 1
		}
		return 0
	}))
	reg.Metatable = meta
	return reg
}

// register adds class under name, raising a Lua error for a bad name, a
// class that is not a table or a name registered twice.
func (r *Runtime) register(L *lua.LState, name, class lua.LValue) {
	n, ok := name.(lua.LString)
	if !ok || n == "" {
		L.RaiseError("behavior name must be a non-empty string, got %s", name.Type())
	}
	t, ok := class.(*lua.LTable)
	if !ok {
		L.RaiseError("behavior %q must be a table of methods, got %s", string(n), class.Type())
	}
	if _, dup := r.behaviors[string(n)]; dup {
		L.RaiseError("behavior %q registered twice", string(n))
	}
	r.fallBackToAPI(t)
	r.copyAPI(t)
	meta := newSmallTable(L)
	meta.RawSetString("__index", t)
	meta.RawSetString("__tostring", L.NewFunction(r.luaToString))
	r.behaviors[string(n)] = &behavior{name: string(n), class: t, meta: meta}
}

// maxIndexDepth bounds the walks along __index chains, which a script could
// make circular.
const maxIndexDepth = 16

// fallBackToAPI makes the engine API the last link of class's __index chain:
// the first table along the chain with no metatable gets {__index = api}.
// A chain that ends in an __index function is left alone.
func (r *Runtime) fallBackToAPI(class *lua.LTable) {
	t := class
	for range maxIndexDepth {
		if t == r.api {
			return
		}
		mt, ok := t.Metatable.(*lua.LTable)
		if !ok {
			t.Metatable = r.apiMeta
			return
		}
		next, ok := mt.RawGetString("__index").(*lua.LTable)
		if !ok {
			return
		}
		t = next
	}
}

// copyAPI writes into class each engine method that class would find at
// the end of its chain, so that self:position() finds it in three reads
// (the instance, its metatable's __index, the class) rather than five (and
// the class's metatable's __index, and the engine's table): method lookups
// along that chain were a tenth of a busy world's server time. What the
// class finds first is unchanged: a method of its own or of a table before
// the engine along its chain is not copied over, and one the class defines
// later overwrites the copy. A copy left by an earlier registration of the
// same table (a class kept across a reload) is asked of the chain again.
// A class whose chain does not end in the engine's table (an __index
// function on the way) is left alone. The names go in sorted order, so
// pairs() over a class visits them alike on every end.
func (r *Runtime) copyAPI(class *lua.LTable) {
	if class == r.api || !r.endsInAPI(class) {
		return
	}
	for _, name := range r.apiNames {
		fn := r.api.RawGetString(name)
		if class.RawGetString(name) == fn {
			class.RawSetString(name, lua.LNil)
		}
		if lookup(class, name) == fn {
			class.RawSetString(name, fn)
		}
	}
}

// endsInAPI reports whether class's chain of __index tables reaches the
// engine's table.
func (r *Runtime) endsInAPI(class *lua.LTable) bool {
	t := class
	for range maxIndexDepth {
		if t == r.api {
			return true
		}
		mt, ok := t.Metatable.(*lua.LTable)
		if !ok {
			return false
		}
		if t, ok = mt.RawGetString("__index").(*lua.LTable); !ok {
			return false
		}
	}
	return false
}

// lookup finds key on t or along its chain of __index tables, using raw
// reads only, so no script code runs outside a protected call.
func lookup(t *lua.LTable, key string) lua.LValue {
	for range maxIndexDepth {
		if v := t.RawGetString(key); v != lua.LNil {
			return v
		}
		mt, ok := t.Metatable.(*lua.LTable)
		if !ok {
			return lua.LNil
		}
		if t, ok = mt.RawGetString("__index").(*lua.LTable); !ok {
			return lua.LNil
		}
	}
	return lua.LNil
}

// resolve caches the instance's lifecycle methods, as the instance will
// find them: a property of that name first, then the class chain. It runs
// before the instance table is touched, so a refused Attach changes
// nothing. A lifecycle name bound to something other than a function is an
// error.
func (in *instance) resolve(props []field) error {
	for cb := range numCallbacks {
		v := lookup(in.b.class, cb.String())
		for _, f := range props {
			if f.key == cb.String() && f.value != lua.LNil {
				v = f.value
			}
		}
		switch v := v.(type) {
		case *lua.LFunction:
			in.fn[cb] = v
		case *lua.LNilType:
			in.fn[cb] = nil
		default:
			return fmt.Errorf("scripting: behavior %q: %s is a %s, want a function", in.b.name, cb, v.Type())
		}
	}
	return nil
}

// entityOf returns the entity an instance or handle table names.
func entityOf(v lua.LValue) (entity.ID, bool) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return entity.None, false
	}
	n, ok := t.RawGetString(entityKey).(lua.LNumber)
	if !ok {
		return entity.None, false
	}
	id := entity.Unpack(float64(n))
	return id, !id.IsNone()
}

// handle returns the one table that stands for id in Lua, creating a plain
// handle the first time an entity with no behavior is named. Equal entities
// give the same table, so a == b compares entities. None gives nil.
func (r *Runtime) handle(id entity.ID) lua.LValue {
	if id.IsNone() {
		return lua.LNil
	}
	if e, ok := r.entities[id]; ok {
		return e.handle
	}
	t := r.ls.CreateTable(0, 1)
	t.RawSetString(entityKey, lua.LNumber(id.Pack()))
	t.Metatable = r.handleMeta
	r.entities[id] = &entry{handle: t}
	r.sweep()
	return t
}

// sweep forgets handles of dead entities with no behaviors once the table
// has doubled since the last sweep, so a host that never calls Detach for
// behavior-less entities does not grow the map without bound.
func (r *Runtime) sweep() {
	if len(r.entities) < r.sweepAt {
		return
	}
	for id, e := range r.entities {
		if len(e.instances) == 0 && !r.world.Alive(id) {
			delete(r.entities, id)
		}
	}
	r.sweepAt = 2*len(r.entities) + 64
}

// luaToString is __tostring of handles and instances: `entity 3#1 "hero"`.
func (r *Runtime) luaToString(L *lua.LState) int {
	id, ok := entityOf(L.Get(1))
	if !ok {
		L.Push(lua.LString("entity ?"))
		return 1
	}
	L.Push(lua.LString(fmt.Sprintf("entity %v %q", id, r.world.Name(id))))
	return 1
}

// smallTableFields is the string keys a table from newSmallTable holds
// before its map grows: Go keeps a map made for at most 8 in one group of
// 8 slots, read without a directory, in a few cache lines.
const smallTableFields = 8

// newSmallTable returns an empty table whose string keys start in a small
// map, for the tables every tick reads: an instance (its fields, and the
// misses of every self:method() before the class is asked) and the
// metatables a method lookup passes through. gopher-lua's NewTable, and
// the first string key set on a table made without one, make the map for
// 32 keys: a map of eight groups behind a directory, the few keys an
// instance holds scattered over them, so that in a busy world every
// instance's reads touched cache lines no other read had brought in. The
// table is the same to every script: the map grows as it fills, its
// array part is made at its first integer key as NewTable's would be, and
// pairs() follows the order keys were set in whatever the map's size.
func newSmallTable(L *lua.LState) *lua.LTable {
	return L.CreateTable(0, smallTableFields)
}

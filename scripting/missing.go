package scripting

import (
	"slices"

	lua "github.com/yuin/gopher-lua"

	"vkm/internal/names"
)

// A method an entity does not have is nil, like any missing field: reading
// self.target before it is set must give nil, so `if self.target then`
// keeps working, and nothing that reads a field can tell a read from the
// start of a call. What can tell them apart is the call itself: Lua calls
// a nil value's __call metamethod, if nil has a metatable, before it gives
// up. So nil gets one whose __call raises an error that names the method
// (gopher-lua knows the name each call site was compiled with) and the
// nearest name the entity answers to. A call of a function costs what it
// did; reading a field costs what it did; only calling nil takes the new
// path, and it was an error before too.

// installMissing gives nil its metatable. The metatable hides itself
// (getmetatable(nil) is false), so no script can change what nil does.
func (r *Runtime) installMissing() {
	L := r.ls
	mt := L.NewTable()
	rawSetString(mt, "__call", newFunction(L, r.luaCallNil))
	rawSetString(mt, "__metatable", lua.LFalse)
	L.SetMetatable(lua.LNil, mt)
}

// luaCallNil is nil's __call: argument 1 is the nil called, argument 2 on
// are the call's arguments; for a method call, argument 2 is the entity.
func (r *Runtime) luaCallNil(L *lua.LState) int {
	name := "?"
	if dbg, ok := L.GetStack(0); ok {
		// A call from Go (pcall(nil)) has no call site to name: gopher-lua
		// then says "(anonymous)", which is no name a script wrote.
		if _, err := L.GetInfo("n", dbg, lua.LNil); err == nil && isName(dbg.Name) {
			name = dbg.Name
		}
	}
	_, isEntity := entityOf(L.Get(2))
	if !isEntity || name == "?" {
		if name == "?" {
			L.RaiseError("attempt to call a nil value")
		}
		L.RaiseError("attempt to call %s, which is nil", name)
	}
	if near := nearestName(name, r.methodNames(L.Get(2).(*lua.LTable))); near != "" {
		L.RaiseError("entity has no method `%s`; did you mean `%s`?", name, near)
	}
	L.RaiseError("entity has no method `%s`", name)
	return 0
}

// methodNames lists the function-valued keys self answers to: its own
// fields, its behavior's along the class chain, and the engine API at the
// end of it. Raw reads only, so no script code runs.
func (r *Runtime) methodNames(self *lua.LTable) []string {
	var names []string
	add := func(t *lua.LTable) {
		t.ForEach(func(k, v lua.LValue) {
			if s, ok := k.(lua.LString); ok {
				if _, fn := v.(*lua.LFunction); fn {
					names = append(names, string(s))
				}
			}
		})
	}
	t := self
	for range maxIndexDepth {
		add(t)
		if t == r.api {
			break
		}
		mt, ok := t.Metatable.(*lua.LTable)
		if !ok {
			break
		}
		if t, ok = mt.RawGetString("__index").(*lua.LTable); !ok {
			break
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// nearestName returns the candidate closest to name by edit distance, if
// it is close enough to be a slip (one edit, plus one for every four
// letters of name), the first in sorted order on a tie; "" if none is.
func nearestName(name string, sorted []string) string {
	best, bestD := "", 1+len(name)/4+1
	for _, c := range sorted {
		if d := names.Distance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// isName reports whether s is a Lua name: a letter or _, then letters,
// digits or _.
func isName(s string) bool {
	for i, c := range s {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

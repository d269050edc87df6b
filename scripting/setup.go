package scripting

import lua "github.com/yuin/gopher-lua"

// The functions that build the scripts' API (installAPI, newNetTable and
// the rest), run once a runtime, make thousands of functions and table
// entries. Through these two, which are not inlined, each is a call
// rather than gopher-lua's code inlined in place: 122 KB less of the
// browser client's download, for a few microseconds at a runtime's start.

//go:noinline
func newFunction(L *lua.LState, fn lua.LGFunction) *lua.LFunction { return L.NewFunction(fn) }

//go:noinline
func rawSetString(t *lua.LTable, key string, v lua.LValue) { t.RawSetString(key, v) }

package scripting

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"vkm/scripts"
)

// Sandbox limits (feasibility §6).
const (
	// callStackSize bounds Lua call depth; deeper recursion is a Lua error
	// ("stack overflow"), never a crash.
	callStackSize = 200
	// registrySize and registryMaxSize bound the value stack; an unpack of
	// 100k values is a Lua error ("registry overflow").
	registrySize    = 4096
	registryMaxSize = 65536
	// maxRepBytes caps string.rep's result: a huge one would run the whole
	// process out of memory, which no protected call can recover.
	maxRepBytes = 1 << 20
	// maxScriptBytes caps a script file read through the project FS.
	maxScriptBytes = 4 << 20
	// preludeChunk is the prelude's name in messages and tracebacks.
	preludeChunk = "vkm/prelude.lua"
)

// removedGlobals are the base library functions a behavior must not reach:
// file and code loading (scripts load only through import), the process
// garbage collector, environment tricks and debugging internals.
var removedGlobals = []string{
	"dofile", "loadfile", "load", "loadstring", "require", "module",
	"collectgarbage", "getfenv", "setfenv", "newproxy", "_printregs",
}

// newSandbox returns a Lua state with only base, table, string and math
// open, minus removedGlobals and string.dump.
func newSandbox() *lua.LState {
	L := lua.NewState(lua.Options{
		SkipOpenLibs:    true,
		CallStackSize:   callStackSize,
		RegistrySize:    registrySize,
		RegistryMaxSize: registryMaxSize,
	})
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
	} {
		L.Push(newFunction(L, lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	g := L.G.Global
	for _, name := range removedGlobals {
		rawSetString(g, name, lua.LNil)
	}
	if str, ok := g.RawGetString("string").(*lua.LTable); ok {
		rawSetString(str, "dump", lua.LNil)
		rawSetString(str, "rep", newFunction(L, strRep))
	}
	if tbl, ok := g.RawGetString("table").(*lua.LTable); ok {
		rawSetString(tbl, "concat", newFunction(L, tableConcat))
	}
	return L
}

// strRep is string.rep with its result capped at maxRepBytes. The cap, and
// table.concat's, bound what one call can build; the .. operator is the
// VM's own and is not capped (docs/lua.md says so).
func strRep(L *lua.LState) int {
	s := L.CheckString(1)
	n := L.CheckInt(2)
	if n <= 0 || s == "" {
		L.Push(lua.LString(""))
		return 1
	}
	if len(s) > maxRepBytes/n {
		L.RaiseError("string.rep: result would exceed %d bytes", maxRepBytes)
	}
	L.Push(lua.LString(strings.Repeat(s, n)))
	return 1
}

// tableConcat is table.concat with its result capped at maxRepBytes, like
// string.rep: the length is added up before anything is built.
func tableConcat(L *lua.LState) int {
	t := L.CheckTable(1)
	sep := L.OptString(2, "")
	i, j := L.OptInt(3, 1), L.OptInt(4, t.Len())
	total := 0
	for k := i; k <= j; k++ {
		switch v := t.RawGetInt(k).(type) {
		case lua.LString, lua.LNumber:
			total += len(v.String())
		default:
			L.ArgError(1, fmt.Sprintf("invalid value (at index %d) in table for 'concat'", k))
		}
		if k > i {
			total += len(sep)
		}
		if total > maxRepBytes {
			L.RaiseError("table.concat: result would exceed %d bytes", maxRepBytes)
		}
	}
	var b strings.Builder
	b.Grow(total)
	for k := i; k <= j; k++ {
		if k > i {
			b.WriteString(sep)
		}
		b.WriteString(t.RawGetInt(k).String())
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// installGlobals replaces print and math.random/randomseed, and adds import
// and the vkm table (vkm.tick, vkm.find, the walks of kinds.go and the
// clock of timers.go; the prelude adds the helpers).
func (r *Runtime) installGlobals() {
	L := r.ls
	g := L.G.Global
	rawSetString(g, "print", newFunction(L, r.luaPrint))
	rawSetString(g, "import", newFunction(L, r.luaImport))
	if m, ok := g.RawGetString("math").(*lua.LTable); ok {
		rawSetString(m, "random", newFunction(L, r.luaRandom))
		rawSetString(m, "randomseed", newFunction(L, r.luaRandomSeed))
		r.installMath(m)
	}
	vkm := L.NewTable()
	rawSetString(vkm, "tick", newFunction(L, r.luaTick))
	rawSetString(vkm, "find", newFunction(L, r.luaFind))
	r.installKinds(vkm)
	r.installTimers(vkm)
	r.installJoints(vkm)
	rawSetString(g, "vkm", vkm)
}

// luaPrint implements print(...): the arguments, tostring'd and joined by
// tabs, go to World.Log for the entity whose callback is running (None
// outside callbacks), never to stdout.
func (r *Runtime) luaPrint(L *lua.LState) int {
	r.world.Log(r.current, joinArgs(L, 1, "\t"))
	return 0
}

// joinArgs tostring's the arguments from index first on, honouring
// __tostring, and joins them with sep.
func joinArgs(L *lua.LState, first int, sep string) string {
	var b strings.Builder
	for i := first; i <= L.GetTop(); i++ {
		if i > first {
			b.WriteString(sep)
		}
		b.WriteString(L.ToStringMeta(L.Get(i)).String())
	}
	return b.String()
}

// cleanScriptPath checks that p names a file inside the project folder:
// relative, slash-separated, no "." or ".." element, ending in ".lua".
func cleanScriptPath(p string) (string, error) {
	if strings.ContainsAny(p, `\:`) || strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("scripting: script path %q must be relative, with forward slashes", p)
	}
	for _, el := range strings.Split(p, "/") {
		if el == ".." {
			return "", fmt.Errorf("scripting: script path %q leaves the project folder", p)
		}
	}
	c := path.Clean(p)
	if !fs.ValidPath(c) || c == "." || !strings.HasSuffix(c, ".lua") {
		return "", fmt.Errorf("scripting: script path %q is not a .lua file inside the project", p)
	}
	return c, nil
}

// loadChunk reads and compiles the project script at the clean path name.
func (r *Runtime) loadChunk(name string) (*lua.LFunction, *ScriptError) {
	data, err := fs.ReadFile(r.cfg.FS, name)
	if err != nil {
		return nil, &ScriptError{Where: name, Message: "cannot read script: " + err.Error()}
	}
	return r.compile(data, name)
}

// compile turns source into a function. gopher-lua's compiler re-panics
// on anything but its own CompileError, so a panic is caught here too: no
// script text may take the host down.
func (r *Runtime) compile(data []byte, name string) (fn *lua.LFunction, serr *ScriptError) {
	if len(data) > maxScriptBytes {
		return nil, &ScriptError{Where: name, Message: fmt.Sprintf("script is over %d bytes", maxScriptBytes)}
	}
	defer func() {
		if p := recover(); p != nil {
			fn, serr = nil, &ScriptError{Where: name, Message: fmt.Sprintf("cannot compile: %v", p)}
		}
	}()
	fn, err := r.ls.Load(bytes.NewReader(data), name)
	if err != nil {
		return nil, syntaxError(name, data, err)
	}
	return fn, nil
}

// runPrelude runs the engine's prelude from scripts.FS.
func (r *Runtime) runPrelude() error {
	data, err := fs.ReadFile(scripts.FS, scripts.Prelude)
	if err != nil {
		return fmt.Errorf("scripting: prelude: %w", err)
	}
	fn, serr := r.compile(data, preludeChunk)
	if serr != nil {
		return serr
	}
	return r.callSetup("prelude", keyLoad, fn, 0)
}

// luaImport implements import(path): it runs the project script at path
// (relative to the project folder, e.g. "scripts/util.lua") once and returns
// what it returned (true if nothing); later imports of the same path return
// the same value without running it again. A script importing itself,
// directly or through others, is an error.
func (r *Runtime) luaImport(L *lua.LState) int {
	name, err := cleanScriptPath(L.CheckString(1))
	if err != nil {
		L.ArgError(1, strings.TrimPrefix(err.Error(), "scripting: "))
	}
	if v, ok := r.imports[name]; ok {
		L.Push(v)
		return 1
	}
	if r.loading[name] {
		L.RaiseError("import cycle: %s is still loading", name)
	}
	fn, serr := r.loadChunk(name)
	if serr != nil {
		L.Error(lua.LString(serr.Where+": "+serr.Message), 0)
	}
	L.Push(r.runOnce(L, name, fn))
	return 1
}

// runOnce runs a module's chunk fn, marked loading under key while it
// runs (so a cycle back to it is caught), and keeps what it returned (true
// for nothing) as the module's value for later imports.
func (r *Runtime) runOnce(L *lua.LState, key string, fn *lua.LFunction) lua.LValue {
	r.loading[key] = true
	defer delete(r.loading, key)
	L.Push(fn)
	L.Call(0, 1)
	v := L.Get(-1)
	L.Pop(1)
	if v == lua.LNil {
		v = lua.LTrue
	}
	r.imports[key] = v
	return v
}

// luaTick implements vkm.tick(): the number of the tick being run.
func (r *Runtime) luaTick(L *lua.LState) int {
	L.Push(r.num.box(float64(r.world.Tick())))
	return 1
}

// luaFind implements vkm.find(name): the first live entity with that name,
// or nil.
func (r *Runtime) luaFind(L *lua.LState) int {
	L.Push(r.handle(r.world.Find(L.CheckString(1))))
	return 1
}

package scripting

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"vkm/scripts"
)

// stockChunk is the prefix of a stock behavior's name in messages and
// tracebacks ("vkm/stock/walker.lua:12"), like the prelude's.
const stockChunk = "vkm/" + scripts.StockDir + "/"

// stockKey is where a stock behavior's table is kept among the imports. The
// colon keeps it apart from every project path, which may not hold one.
func stockKey(name string) string { return "vkm:stock/" + name }

// luaStock implements vkm.stock(name): the engine's stock behavior of that
// name (scripts/stock/NAME.lua), run once per Lua state and returned as the
// same table on every later call, as import does for a project's scripts.
// A project registers it like its own: r.walker = vkm.stock("walker").
func (r *Runtime) luaStock(L *lua.LState) int {
	name := L.CheckString(1)
	if !stockName(name) {
		L.ArgError(1, fmt.Sprintf("%q is not a stock behavior name (lower-case letters, digits and _)", name))
	}
	key := stockKey(name)
	if v, ok := r.imports[key]; ok {
		L.Push(v)
		return 1
	}
	data, err := fs.ReadFile(scripts.FS, path.Join(scripts.StockDir, name+".lua"))
	if err != nil {
		L.ArgError(1, fmt.Sprintf("no stock behavior %q (known: %s)", name, strings.Join(StockNames(), ", ")))
	}
	fn, serr := r.compile(data, stockChunk+name+".lua")
	if serr != nil {
		L.Error(lua.LString(serr.Where+": "+serr.Message), 0)
	}
	if r.loading[key] {
		L.RaiseError("import cycle: stock %s is still loading", name)
	}
	L.Push(r.runOnce(L, key, fn))
	return 1
}

// stockName reports whether name can name a stock behavior: a plain file
// name, never a path.
func stockName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// StockNames returns the names vkm.stock knows, sorted.
func StockNames() []string {
	files, _ := fs.Glob(scripts.FS, scripts.StockDir+"/*.lua")
	names := make([]string, 0, len(files))
	for _, f := range files {
		names = append(names, strings.TrimSuffix(path.Base(f), ".lua"))
	}
	return names
}

package scripting

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// stubFile is the editor stub of the Lua API, from this package's folder.
const stubFile = "../docs/luals/vkm.lua"

// stub is what docs/luals/vkm.lua annotates: for each class or global table,
// its methods, functions, fields and values; under "" the global functions
// and tables.
type stub map[string]map[string]bool

var (
	stubClass  = regexp.MustCompile(`^---@class\s+([A-Za-z_][\w.]*)`)
	stubField  = regexp.MustCompile(`^---@field\s+([A-Za-z_]\w*)`)
	stubFunc   = regexp.MustCompile(`^function\s+([A-Za-z_]\w*)(?:[.:]([A-Za-z_]\w*))?\s*\(`)
	stubAssign = regexp.MustCompile(`^([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?\s*=`)
	stubLocal  = regexp.MustCompile(`^local\s+([A-Za-z_]\w*)\s*=`)
)

// readStub reads the names the stub annotates. A method written on a local
// (function Entity:id()) counts under the class the local holds.
func readStub(t *testing.T) stub {
	t.Helper()
	data, err := os.ReadFile(stubFile)
	if err != nil {
		t.Fatal(err)
	}
	s := stub{"": {}}
	add := func(owner, name string) {
		if s[owner] == nil {
			s[owner] = map[string]bool{}
		}
		s[owner][name] = true
	}
	class := "" // the class whose tags are being read
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if m := stubClass.FindStringSubmatch(line); m != nil {
			class = m[1]
			if s[class] == nil {
				s[class] = map[string]bool{}
			}
			continue
		}
		if m := stubField.FindStringSubmatch(line); m != nil && class != "" {
			add(class, m[1])
			continue
		}
		if strings.HasPrefix(line, "---") {
			continue
		}
		switch m := stubFunc.FindStringSubmatch(line); {
		case m != nil && m[2] == "":
			add("", m[1])
		case m != nil:
			add(m[1], m[2])
		}
		if m := stubAssign.FindStringSubmatch(line); m != nil {
			if m[2] == "" {
				add("", m[1])
			} else {
				add(m[1], m[2])
			}
		}
		if stubLocal.MatchString(line) || line == "" {
			class = ""
		}
	}
	return s
}

// keysOf returns the keys of t, read raw.
func keysOf(t *lua.LTable) []string {
	var out []string
	t.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); ok {
			out = append(out, string(s))
		}
	})
	slices.Sort(out)
	return out
}

// compare reports each name the runtime has under what and the stub does
// not annotate, and each the stub annotates that the runtime lacks.
func compare(t *testing.T, what string, runtime []string, annotated map[string]bool) {
	t.Helper()
	for _, n := range runtime {
		if !annotated[n] {
			t.Errorf("the runtime has %s %s, and docs/luals/vkm.lua does not annotate it: add it there (and to docs/lua.md)", what, n)
		}
	}
	for n := range annotated {
		if !slices.Contains(runtime, n) {
			t.Errorf("docs/luals/vkm.lua annotates %s %s, which the runtime does not have", what, n)
		}
	}
}

// TestStubMatchesRuntime holds the editor stub to what a Runtime
// registers: the entity methods, the globals it adds or replaces, the vkm
// and net tables, the scene and registry tables, the command table, the
// lifecycle callbacks it calls and the entry script's functions it calls.
func TestStubMatchesRuntime(t *testing.T) {
	s := readStub(t)
	r, w := newTest(t, `
function vkmRegisterBehaviors(r)
  reg = r
  r.probe = { on_fixed_update = function(self) cmd = self:command(); hit = self:raycast(0, 0, 1, 0) end }
end`)
	defer r.Close()

	compare(t, "entity method", keysOf(r.api), s["Entity"])

	var callbacks []string
	for cb := range numCallbacks {
		callbacks = append(callbacks, cb.String())
	}
	compare(t, "behavior callback", callbacks, s["Behavior"])

	// Globals: what the runtime adds to, or replaces in, a bare sandbox,
	// and the entry script's functions it calls.
	bare := newSandbox()
	defer bare.Close()
	var globals []string
	r.ls.G.Global.ForEach(func(k, v lua.LValue) {
		name, ok := k.(lua.LString)
		if !ok || name == "reg" || name == "cmd" || name == "hit" || name == "vkmRegisterBehaviors" {
			return // the probe script's own
		}
		if replaced(bare.G.Global.RawGetString(string(name)), v) {
			globals = append(globals, string(name))
		}
	})
	globals = append(globals, entryFunctions(t)...)
	compare(t, "global", globals, s[""])

	vkm := r.ls.G.Global.RawGetString("vkm").(*lua.LTable)
	compare(t, "vkm field", keysOf(vkm), s["vkm"])
	compare(t, "net field", keysOf(r.netTable), s["net"])
	compare(t, "scene method", keysOf(r.sceneTable), s["Scene"])
	reg := r.ls.G.Global.RawGetString("reg").(*lua.LTable)
	compare(t, "registry method", keysOf(reg), s["Registry"])

	// The command table and a raycast hit, as a behavior gets them.
	w.hit = &Hit{Entity: w.add("wall"), X: 1, Fraction: 0.5}
	id := w.add("probe")
	if err := r.Attach(id, "probe", nil); err != nil {
		t.Fatal(err)
	}
	r.FixedUpdate(1.0/64, false)
	cmd, ok := r.ls.G.Global.RawGetString("cmd").(*lua.LTable)
	if !ok {
		t.Fatal("self:command() returned no table")
	}
	compare(t, "command table field", keysOf(cmd), s["Command"])
	hit, ok := r.ls.G.Global.RawGetString("hit").(*lua.LTable)
	if !ok {
		t.Fatal("self:raycast() returned no hit")
	}
	compare(t, "raycast hit field", keysOf(hit), s["Hit"])

	// The joint handle, and the tables the physics methods take and give.
	compare(t, "joint method", keysOf(r.jointMethods), s["Joint"])
	var opts []string
	for _, k := range jointOptKeys {
		opts = append(opts, k[0])
	}
	compare(t, "vkm.joint option", opts, s["JointOptions"])
	compare(t, "add_shape key", shapeKeys, s["ShapeSpec"])
	compare(t, "filter key", []string{"category", "mask", "group"}, s["Filter"])
	compare(t, "on_contact info field", keysOf(r.contactTable(ContactInfo{})), s["ContactInfo"])
}

// luaDoc is the page documenting the Lua API, from this package's folder.
const luaDoc = "../docs/lua.md"

// TestLuaDocNamesEveryFunction holds docs/lua.md to the runtime as the
// stub is held: every entity method, every vkm and net function, every
// joint method and every callback is written there as a call
// ("`name(", ":name(" or ".name("), which is where the page says what it
// does and returns.
func TestLuaDocNamesEveryFunction(t *testing.T) {
	data, err := os.ReadFile(luaDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	r, _ := newTest(t, "")
	defer r.Close()
	named := func(what, name string) {
		for _, p := range []string{"`", ":", "."} {
			if strings.Contains(doc, p+name+"(") {
				return
			}
		}
		t.Errorf("docs/lua.md never writes the %s %s as a call (`%s(...)`): document it", what, name, name)
	}
	for _, n := range keysOf(r.api) {
		named("entity method", n)
	}
	for _, n := range keysOf(r.jointMethods) {
		named("joint method", n)
	}
	vkm := r.ls.G.Global.RawGetString("vkm").(*lua.LTable)
	for _, n := range keysOf(vkm) {
		if _, ok := vkm.RawGetString(n).(*lua.LFunction); ok {
			named("vkm function", n)
		}
	}
	for cb := range numCallbacks {
		named("callback", cb.String())
	}
}

// replaced reports whether the runtime's global now differs from the bare
// sandbox's was: absent there, or a Go function other than the library's.
// Two states' tables and functions are never the same objects, so the test
// is by kind and, for a Go function, by the code behind it.
func replaced(was, now lua.LValue) bool {
	if was == lua.LNil {
		return true
	}
	f1, ok1 := was.(*lua.LFunction)
	f2, ok2 := now.(*lua.LFunction)
	if !ok1 || !ok2 {
		return was.Type() != now.Type()
	}
	if f1.IsG != f2.IsG {
		return true
	}
	return f1.IsG && reflect.ValueOf(f1.GFunction).Pointer() != reflect.ValueOf(f2.GFunction).Pointer()
}

// entryFunctions returns the entry script's global functions the runtime
// calls: each string literal of the package's source that names one
// (vkm followed by a capital: vkmRegisterBehaviors, vkmSetupNetwork, ...).
func entryFunctions(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	entry := regexp.MustCompile(`^vkm[A-Z]\w*$`)
	var names []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && entry.MatchString(s) && !slices.Contains(names, s) {
					names = append(names, s)
				}
			}
			return true
		})
	}
	if len(names) < 3 {
		t.Fatalf("found the entry functions %v in the source; want vkmRegisterBehaviors, vkmSetupNetwork and vkmBuildScene at least", names)
	}
	return names
}

// TestStubReaderSeesWhatItShould keeps readStub honest: a stub that lost
// its classes would pass the comparison with nothing on either side only
// if the runtime had nothing either.
func TestStubReaderSeesWhatItShould(t *testing.T) {
	s := readStub(t)
	for owner, name := range map[string]string{
		"Entity": "position", "Behavior": "on_start", "vkm": "clamp", "net": "bool",
		"Scene": "spawn", "Registry": "register", "Command": "pressed", "": "import",
	} {
		if !s[owner][name] {
			t.Errorf("readStub did not find %s.%s", owner, name)
		}
	}
}

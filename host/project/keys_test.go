package project

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// projectDoc is the page that documents every key of the project files,
// from this package's folder.
const projectDoc = "../../docs/project.md"

// documentedKeys reads the key tables of docs/project.md: each table
// follows a line "<!-- keys: KIND ... -->" naming the kinds of file its keys
// belong to, and the first cell of each of its rows is a key in backquotes,
// dotted from the file's top, a table written as its header
// ("`[entity.body]`", "`[[entity.body.shape]]`"). It returns each kind's
// keys with the line documenting each.
func documentedKeys(t *testing.T) map[fileKind]map[string]int {
	t.Helper()
	f, err := os.Open(projectDoc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kinds := map[string]fileKind{"project": projectKind, "scene": sceneKind, "prefab": prefabKind}
	out := map[fileKind]map[string]int{projectKind: {}, sceneKind: {}, prefabKind: {}}
	var in []fileKind // the kinds of the table being read; nil outside one
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "<!-- keys:"); ok {
			in = nil
			for _, w := range strings.Fields(strings.TrimSuffix(rest, "-->")) {
				k, ok := kinds[w]
				if !ok {
					t.Fatalf("%s:%d: %q is not a kind of file (project, scene, prefab)", projectDoc, n, w)
				}
				in = append(in, k)
			}
			continue
		}
		if in == nil {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			if line != "" {
				in = nil // the table ended
			}
			continue
		}
		cell := strings.TrimSpace(strings.Split(line, "|")[1])
		if cell == "key" || strings.HasPrefix(cell, "---") {
			continue
		}
		key, ok := strings.CutPrefix(cell, "`")
		key, ok2 := strings.CutSuffix(key, "`")
		if !ok || !ok2 {
			t.Errorf("%s:%d: a key table's row starts with %q; write the key in backquotes", projectDoc, n, cell)
			continue
		}
		key = strings.Trim(key, "[]")
		for _, k := range in {
			if prev, dup := out[k][key]; dup {
				t.Errorf("%s:%d: %s key %s is documented twice (first at line %d)", projectDoc, n, k, key, prev)
			}
			out[k][key] = n
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEveryKeyIsDocumented holds docs/project.md to the loader: every key
// the loader accepts in a project.toml, a scene or a prefab has a row, and
// every row names a key the loader accepts in the files it says.
func TestEveryKeyIsDocumented(t *testing.T) {
	docs := documentedKeys(t)
	for _, kind := range []fileKind{projectKind, sceneKind, prefabKind} {
		accepted := acceptedKeys(kind)
		if len(docs[kind]) == 0 {
			t.Errorf("%s documents no %s keys", projectDoc, kind)
		}
		for _, k := range accepted {
			if _, ok := docs[kind][k]; !ok {
				t.Errorf("the loader accepts %s key %s, and docs/project.md has no row for it: add one (type, default, limits, what it is)", kind, k)
			}
		}
		for k, line := range docs[kind] {
			if !slices.Contains(accepted, k) {
				t.Errorf("%s:%d documents %s key %s, which the loader does not accept", projectDoc, line, kind, k)
			}
		}
	}
}

// TestDocumentedKeysLoad writes each documented key into a file of its kind
// and checks that the loader does not call it unknown: the documented names
// are the ones a user can write, not only the ones in the table.
func TestDocumentedKeysLoad(t *testing.T) {
	for kind, keys := range documentedKeys(t) {
		for key := range keys {
			table, leaf := "", key
			if i := strings.LastIndexByte(key, '.'); i >= 0 {
				table, leaf = key[:i], key[i+1:]
			}
			doc := &tomlDoc{file: "x.toml", kind: kind, lines: lineMap{}}
			tt := &tomlTable{doc: doc, m: map[string]any{leaf: true}, path: table}
			tt.only()
			if doc.err != nil && strings.Contains(doc.err.Reason, "unknown key") {
				t.Errorf("%s key %s is documented, but the loader refuses it: %v", kind, key, doc.err)
			}
		}
	}
}

// TestKeysComeFromTheTable keeps tableKeys the one list: a loader that
// named its keys at the call site (t.only("speed", ...)) would accept keys
// the documentation test never sees. only takes no arguments, so this
// fails to compile first; the test says why.
func TestKeysComeFromTheTable(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
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
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "only" && len(call.Args) > 0 {
				t.Errorf("%s: only is given keys; add them to tableKeys (keys.go) and docs/project.md instead", fset.Position(call.Pos()))
			}
			return true
		})
	}
}

// TestUnknownKeyListsTheTable checks that a refusal lists the table's keys
// from tableKeys, and suggests the nearest.
func TestUnknownKeyListsTheTable(t *testing.T) {
	_, err := ParsePrefab("p.toml", []byte("[[entity]]\nuid = 1\n[entity.controller]\nsped = 3\n"))
	if err == nil {
		t.Fatal("a controller with sped parsed")
	}
	want := `p.toml:4: entity.controller.sped: unknown key (did you mean "speed"?); the keys here are ` + strings.Join(tableKeys[prefabKind]["entity.controller"], ", ")
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
}

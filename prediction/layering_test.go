package prediction

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestLayering checks the package's own source (tests excluded) against
// DESIGN.md's table and the sans-IO rule: prediction knows no sockets, no
// Lua and nothing above it, takes time as arguments and starts no
// goroutines.
func TestLayering(t *testing.T) {
	banned := map[string]string{
		"net":             "sockets belong to transport/udp",
		"os":              "the host owns the process",
		"vkm/host":        "host composes prediction, not the reverse",
		"vkm/scripting":   "prediction knows no Lua",
		"vkm/physics":     "the host hands prediction plain values",
		"vkm/transport":   "packets come in as bytes",
		"vkm/replication": "the snapshot's command feedback comes in as plain values",
	}
	clock := map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
		"AfterFunc": true, "Tick": true, "NewTimer": true, "NewTicker": true}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if why, ok := banned[path]; ok {
				t.Errorf("%s imports %s: %s", name, path, why)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: a go statement: the host owns goroutines", fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && id.Name == "time" && clock[n.Sel.Name] {
					t.Errorf("%s: time.%s: time comes in as an argument", fset.Position(n.Pos()), n.Sel.Name)
				}
			}
			return true
		})
	}
}

package transport_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The sans-IO packages of transport keep to their rules, checked on their
// source (tests excluded):
//   - no net (a socket is transport/udp's business; net/netip is a value
//     type and fine), no syscall or x/sys (nor are its system calls), and
//     no os (the host owns the process);
//   - of vkm's packages only wire and transport's own, so the link layer
//     knows nothing of entities, scripts or the host;
//   - no wall clock, sleep, timer or goroutine: every method takes the
//     caller's now, which is what lets tests run on a synthetic clock.
func TestSansIOLayering(t *testing.T) {
	banned := map[string]string{
		"net":                   "sockets belong to transport/udp",
		"os":                    "the host owns the process",
		"syscall":               "system calls belong to transport/udp",
		"golang.org/x/sys/unix": "system calls belong to transport/udp",
	}
	clock := map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
		"AfterFunc": true, "NewTimer": true, "NewTicker": true, "Tick": true}
	for _, dir := range []string{".", "cookie", "handshake", "memnet"} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		files := 0
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			files++
			path := filepath.Join(dir, name)
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			timeName := "time"
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if why, ok := banned[p]; ok {
					t.Errorf("%s imports %s: %s", path, p, why)
				}
				if strings.HasPrefix(p, "vkm/") && p != "vkm/wire" && !strings.HasPrefix(p, "vkm/transport") {
					t.Errorf("%s imports %s: transport may use only vkm/wire and its own packages", path, p)
				}
				if p == "time" && imp.Name != nil {
					timeName = imp.Name.Name
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.GoStmt:
					t.Errorf("%s: a goroutine in a sans-IO package", path)
				case *ast.SelectorExpr:
					if id, ok := n.X.(*ast.Ident); ok && id.Name == timeName && clock[n.Sel.Name] {
						t.Errorf("%s: time.%s in a sans-IO package; take now from the caller", path, n.Sel.Name)
					}
				}
				return true
			})
		}
		if files == 0 {
			t.Errorf("%s: no source files checked", dir)
		}
	}
}

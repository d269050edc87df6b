package replication

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestLayering checks the package's own source (tests excluded) against
// DESIGN.md's table: replication knows no sockets and no Lua, and sits
// below the host, so it imports none of these.
func TestLayering(t *testing.T) {
	banned := map[string]string{
		"net":           "sockets belong to transport/udp",
		"os":            "the host owns the process",
		"time":          "rounds are counted in ticks; the host owns the clock",
		"vkm/host":      "host composes replication, not the reverse",
		"vkm/scripting": "replication knows no Lua",
		"vkm/physics":   "the host hands replication plain component values",
		"vkm/transport": "acknowledgements come in through the Acks interface",
	}
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
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if why, ok := banned[path]; ok {
				t.Errorf("%s imports %s: %s", name, path, why)
			}
		}
	}
}

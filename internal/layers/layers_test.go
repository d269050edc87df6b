// Package layers holds a test that keeps the module's package boundaries:
// no package imports one that composes it, and the simulation packages never
// reach for the network or the operating system.
package layers

import (
	"go/build"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// order lists the packages from the one that imports nothing of ours to the
// one that composes them all, as in DESIGN.md's table: a package may import
// only those before it (and internal helpers). scripts, the embedded Lua,
// imports nothing and comes first.
var order = []string{"scripts", "wire", "transport", "replication", "prediction", "physics", "scripting", "host"}

// banned lists standard packages a layer must not import, and why.
var banned = map[string]map[string]string{
	"wire":        {"net": "bits and numbers only", "os": "bits and numbers only"},
	"transport":   {"net": "sans-IO: only transport/udp touches a socket", "os": "sans-IO: time comes in as an argument"},
	"replication": {"net": "sans-IO: bytes in, bytes out", "os": "no files or clocks of its own", "time": "rounds are counted in ticks; the host owns the clock"},
	"prediction":  {"net": "sans-IO: bytes in, bytes out", "os": "no files or clocks of its own"},
	"physics":     {"net": "physics knows nothing of networking", "os": "no files or clocks of its own"},
	"scripting":   {"net": "scripts never touch sockets", "os": "scripts are read through an fs.FS only"},
}

// systemCalls are the packages that call the kernel by number. No layer
// below the host imports them: the simulation makes no system calls, and
// a socket's are transport/udp's, which names them through x/sys.
var systemCalls = map[string]bool{"syscall": true, "golang.org/x/sys/unix": true}

func root(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func TestNoPackageImportsOneAboveItInTheLayering(t *testing.T) {
	dir := root(t)
	checked := 0
	for i, layer := range order {
		pkg, err := build.ImportDir(filepath.Join(dir, layer), 0)
		if err != nil {
			continue // a layer not written yet
		}
		checked++
		for _, imp := range pkg.Imports {
			if why, ok := banned[layer][imp]; ok {
				t.Errorf("%s imports %s: %s", layer, imp, why)
			}
			if systemCalls[imp] && layer != "host" {
				t.Errorf("%s imports %s: system calls are transport/udp's and the host's", layer, imp)
			}
			own, ok := strings.CutPrefix(imp, "vkm/")
			if !ok || strings.HasPrefix(own, "internal/") {
				continue
			}
			top := strings.SplitN(own, "/", 2)[0]
			j := slices.Index(order, top)
			if j < 0 {
				t.Errorf("%s imports %s, which has no place in the layering", layer, imp)
			} else if j >= i && top != layer {
				t.Errorf("%s imports %s, which comes after it in the layering", layer, imp)
			}
		}
	}
	if checked < 4 {
		t.Fatalf("only %d layers found under %s", checked, dir)
	}
}

package scripting

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// arenaScripts returns the example game's behavior scripts as path,
// content pairs for tryNew: the rules a project owns, read from
// projects/arena.
func arenaScripts(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, name := range []string{"scripts/walker.lua", "scripts/pickup.lua", "scripts/spawner.lua"} {
		data, err := os.ReadFile(filepath.Join("..", "projects", "arena", filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, name, string(data))
	}
	return files
}

// TestArenaBehaviorsRegisterByName: the arena's behaviors are project
// scripts like any other: imported once per state, each a table of
// callbacks, registered under the names its scene and prefabs use.
func TestArenaBehaviorsRegisterByName(t *testing.T) {
	r, _ := newTest(t, `
local W = import("scripts/walker.lua")
assert(W == import("scripts/walker.lua"), "a second import returned another table")
assert(type(W.on_fixed_update) == "function", "the walker has no on_fixed_update")
function vkmRegisterBehaviors(r)
  r.walker = W
  r.pickup = import("scripts/pickup.lua")
  r.spawner = import("scripts/spawner.lua")
end
`, arenaScripts(t)...)
	if got := r.BehaviorNames(); !slices.Equal(got, []string{"pickup", "spawner", "walker"}) {
		t.Fatalf("registered %v", got)
	}
}

// TestImportRefusesUnknownFilesAndPaths: a script that is not in the
// project, a path leaving it or not naming a script, and a missing
// argument are each an error saying which and naming the calling line.
func TestImportRefusesUnknownFilesAndPaths(t *testing.T) {
	for src, want := range map[string]string{
		`import("scripts/sleeper.lua")`: "scripts/sleeper.lua: cannot read script",
		`import("../prelude.lua")`:      "leaves the project folder",
		`import("scripts/walker")`:      "is not a .lua file inside the project",
		`import()`:                      "string expected",
	} {
		_, _, err := tryNew(t, Config{}, src, arenaScripts(t)...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", src, err, want)
		}
		if err != nil && !strings.Contains(err.Error(), "scripts/main.lua:1") {
			t.Errorf("%s: error %v does not name the calling line", src, err)
		}
	}
}

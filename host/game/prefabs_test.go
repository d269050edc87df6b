package game

import (
	"errors"
	"strings"
	"testing"

	"vkm/host/project"
	"vkm/internal/entity"
)

// namesMain registers one behavior, "walker", and one component, "Health".
const namesMain = `
local Walker = {}
function Walker:respawn() end
function vkmRegisterBehaviors(r) r.walker = Walker end
function vkmSetupNetwork(net)
  net.component("Health", {{"hp", net.int(0, 100)}})
end`

const namesScene = "[[entity]]\nid = 1\nname = \"floor\"\n"

// wantConfigError checks that err is a *project.ConfigError for file at
// line, and that its text holds each of parts.
func wantConfigError(t *testing.T, err error, file string, line int, parts ...string) {
	t.Helper()
	t.Logf("%v", err)
	var ce *project.ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v (%T), want a ConfigError naming %s:%d", err, err, file, line)
	}
	if ce.File != file || ce.Line != line {
		t.Errorf("the error names %s:%d, want %s:%d: %v", ce.File, ce.Line, file, line, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("the error %q does not say %q", err, p)
		}
	}
	if strings.Contains(err.Error(), "entity 0") {
		t.Errorf("the error %q names a slot, which a prefab's entity only happened to take", err)
	}
}

// TestABadPrefabStopsTheGameAtStart: a prefab under prefabs/ that names an
// unregistered behavior or component fails New, naming the prefab's file,
// the entity's line and the nearest registered name, before anything
// spawns it.
func TestABadPrefabStopsTheGameAtStart(t *testing.T) {
	for name, tc := range map[string]struct {
		prefab string
		line   int
		parts  []string
	}{
		"behavior": {"# a typo\n[[entity]]\nuid = 1\nname = \"hero\"\nbehavior = \"walkr\"\n", 2,
			[]string{`entity.behavior: unknown behavior "walkr"; did you mean "walker"?`}},
		"component": {"[[entity]]\nuid = 1\n[[entity]]\nuid = 2\nparent = 1\n[entity.components.Helth]\nhp = 3\n", 6,
			[]string{`entity.components.Helth: unknown component "Helth"; did you mean "Health"?`}},
	} {
		t.Run(name, func(t *testing.T) {
			p := miniProject(t, map[string]string{
				"scene.toml": namesScene, "scripts/main.lua": namesMain,
				"prefabs/ok.toml":       "[[entity]]\nuid = 1\nbehavior = \"walker\"\n",
				"prefabs/deep/bad.toml": tc.prefab,
			})
			g, err := New(Config{Project: p})
			if err == nil {
				g.Close()
				t.Fatal("New loaded a project whose prefab names what the scripts do not register")
			}
			wantConfigError(t, err, p.Where("prefabs/deep/bad.toml"), tc.line, tc.parts...)
		})
	}
}

// TestAnUnknownBehaviorAtRunTimeSaysWhereAsCheckDoes: a scene, and a
// prefab outside prefabs/ spawned from Lua, that name an unknown behavior
// are refused with the file, the line and the nearest name, the words
// vkmd check uses.
func TestAnUnknownBehaviorAtRunTimeSaysWhereAsCheckDoes(t *testing.T) {
	p := miniProject(t, map[string]string{
		"scene.toml":       namesScene + "[[entity]]\nid = 2\nbehavior = \"Walker\"\n",
		"scripts/main.lua": namesMain,
	})
	_, err := New(Config{Project: p})
	wantConfigError(t, err, p.Where("scene.toml"), 4, `unknown behavior "Walker"; did you mean "walker"?`)
	checked := Check(p)
	if len(checked.Errors) == 0 || checked.Errors[0].Error() != err.Error() {
		t.Errorf("vkmd check says %v; the game said %q", checked.Errors, err)
	}

	p = miniProject(t, map[string]string{
		"scene.toml": namesScene, "scripts/main.lua": namesMain,
		"extra/thing.toml": "[[entity]]\nuid = 7\nname = \"thing\"\nbehavior = \"walkerr\"\n",
	})
	g := newGame(t, p)
	before := g.Store().Len()
	_, err = g.Spawn("extra/thing.toml", entity.Identity)
	wantConfigError(t, err, p.Where("extra/thing.toml"), 1, `unknown behavior "walkerr"; did you mean "walker"?`)
	if n := g.Store().Len(); n != before {
		t.Errorf("a refused spawn left %d entities behind", n-before)
	}
}

// TestAPrefabEntityThatFailsToAttachIsNamedAsWritten: an error building a
// prefab's entity names the prefab, the entity's line, its uid and its
// name, not the slot it took.
func TestAPrefabEntityThatFailsToAttachIsNamedAsWritten(t *testing.T) {
	p := miniProject(t, map[string]string{
		"scene.toml": "", "scripts/main.lua": namesMain,
		"prefabs/hero.toml": "[[entity]]\nuid = 1\nname = \"base\"\n\n[[entity]]\nuid = 5\nname = \"hero\"\nparent = 1\nbehavior = \"walker\"\nprops = { respawn = 2 }\n",
	})
	g := newGame(t, p)
	_, err := g.Spawn("prefabs/hero.toml", entity.Identity)
	wantConfigError(t, err, p.Where("prefabs/hero.toml"), 5,
		`entity.behavior: the entity with uid 5 ("hero"): attach "walker"`, `prop "respawn" would hide the method respawn`)
}

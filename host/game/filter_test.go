package game

import (
	"testing"

	"vkm/host/project"
)

// TestSceneFiltersReachPhysics loads a scene whose crate's mask leaves out
// the ledge under it and whose other crate stands on a one-way platform:
// the first falls through the ledge to the floor, the second stays.
func TestSceneFiltersReachPhysics(t *testing.T) {
	p := miniProject(t, map[string]string{
		"scene.toml": `[[entity]]
id = 1
[entity.body]
type = "static"
[[entity.body.shape]]
box = [40.0, 1.0]
[[entity]]
id = 2
name = "ledge"
transform = { x = 0.0, y = 3.0 }
[entity.body]
type = "static"
[[entity.body.shape]]
box = [10.0, 0.2]
category = "ledge"
oneWay = true
[[entity]]
id = 3
name = "ghost"
transform = { x = -2.0, y = 4.0 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [1.0, 1.0]
mask = "default"
[[entity]]
id = 4
name = "crate"
transform = { x = 2.0, y = 4.0 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [1.0, 1.0]
`,
		"scripts/main.lua": "function vkmRegisterBehaviors(r) end\n",
	})
	p.Categories = project.Categories{"ledge"}
	g := newGame(t, p)
	for range 3 * 64 {
		g.RunTick()
	}
	ids := g.SceneIDs()
	ghost, crate := g.Store().Transform(ids[2]), g.Store().Transform(ids[3])
	t.Logf("after 3 s the ghost is at y %.3f, the crate at y %.3f", ghost.Y, crate.Y)
	if ghost.Y > 1.1 {
		t.Errorf("the crate whose mask leaves out the ledge stands at y = %g, want fallen through to the floor", ghost.Y)
	}
	if crate.Y < 3.5 {
		t.Errorf("the crate landing on the one-way ledge fell to y = %g", crate.Y)
	}
}

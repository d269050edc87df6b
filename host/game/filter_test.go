package game

import (
	"testing"

	"vkm/host/project"
	"vkm/internal/entity"
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

// TestADecorationIsNeverSimulated loads pitch markings (a decoration at the
// root) and a flag hanging from a crate (a decoration child): neither gets
// a physics body or a Rigidbody, rays and box queries pass them, and the
// crate that falls onto the markings lands on the floor under them.
func TestADecorationIsNeverSimulated(t *testing.T) {
	p := miniProject(t, map[string]string{
		"scene.toml": `[[entity]]
id = 1
[entity.body]
type = "static"
[[entity.body.shape]]
box = [40.0, 1.0]
[[entity]]
id = 2
name = "markings"
transform = { x = 0.0, y = 1.0 }
[entity.body]
type = "decoration"
[[entity.body.shape]]
box = [10.0, 0.1]
[[entity]]
id = 3
name = "crate"
transform = { x = 0.0, y = 3.0 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [1.0, 1.0]
[[entity]]
id = 4
name = "flag"
parent = 3
transform = { x = 0.0, y = 1.0 }
[entity.body]
type = "decoration"
[[entity.body.shape]]
polygon = [[0.0, 0.0], [0.6, 0.3], [0.0, 0.6]]
`,
		"scripts/main.lua": "function vkmRegisterBehaviors(r) end\n",
	})
	g := newGame(t, p)
	ids := g.SceneIDs()
	markings, crate, flag := ids[1], ids[2], ids[3]
	for _, id := range []entity.ID{markings, flag} {
		if g.Physics().Has(id) || g.Store().Rigidbody(id) != nil || g.Store().Body(id) == nil {
			t.Errorf("%s: physics body %v, Rigidbody %v, drawn shapes %v; want shapes only", g.Store().Name(id),
				g.Physics().Has(id), g.Store().Rigidbody(id) != nil, g.Store().Body(id) != nil)
		}
	}
	for range 2 * 64 {
		g.RunTick()
	}
	if y := g.Store().Transform(crate).Y; y > 1.1 {
		t.Errorf("the crate stopped at y = %g, on the markings", y)
	}
	if hit, ok := g.World().RayCast(-8, 1, -1, 1, entity.None); ok {
		t.Errorf("a ray along the markings hit %v", g.Store().Name(hit.Entity))
	}
	var found []entity.ID
	g.World().QueryBox(-5, 0.95, 5, 1.05, func(id entity.ID) bool { found = append(found, id); return true })
	for _, id := range found {
		if id == markings || id == flag {
			t.Errorf("a query found the decoration %s", g.Store().Name(id))
		}
	}
	fy := g.Store().WorldTransform(flag).Y
	t.Logf("the crate rests at y %.3f, its flag at %.3f", g.Store().Transform(crate).Y, fy)
}

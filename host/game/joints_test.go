package game

import (
	"math"
	"strings"
	"testing"

	"vkm/internal/entity"
	"vkm/physics"
)

// TestSceneAndPrefabJoints builds a scene with a pendulum hinged to a
// post and spawns a lamp prefab on a rope to the world: the scene's joint
// is made at load, named, and holds the pendulum at its length; the
// lamp's rope hangs from where the lamp was spawned, and leaves with it.
func TestSceneAndPrefabJoints(t *testing.T) {
	p := miniProject(t, map[string]string{
		"scene.toml": `[[entity]]
id = 1
name = "post"
transform = { x = 0.0, y = 5.0 }
[entity.body]
type = "static"
[[entity.body.shape]]
box = [0.2, 0.2]
[[entity]]
id = 2
name = "bob"
transform = { x = 2.0, y = 5.0 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
circle = 0.2
[[joint]]
kind = "revolute"
name = "pivot"
a = 1
b = 2
anchor = [0.0, 5.0]
`,
		"prefabs/lamp.toml": `[[entity]]
uid = 1
name = "lamp"
transform = { x = 0.0, y = -1.5 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
circle = 0.2
[[joint]]
kind = "rope"
name = "cord"
a = 1
anchorB = [0.0, 0.0]
`,
		"scripts/main.lua": "function vkmRegisterBehaviors(r) end\n",
	})
	g := newGame(t, p)
	ids := g.SceneIDs()
	bob := ids[1]
	var pivot []string
	g.Physics().JointsOf(bob, func(j physics.JointID) bool { pivot = append(pivot, g.JointName(j)); return true })
	if len(pivot) != 1 || pivot[0] != "pivot" {
		t.Fatalf("the bob's joints are named %v, want [pivot]", pivot)
	}
	lamp, err := g.Spawn("prefabs/lamp.toml", entity.Transform{X: 8, Y: 6})
	if err != nil {
		t.Fatal(err)
	}
	lowest := 6.0
	for range 2 * 64 {
		g.RunTick()
		lowest = math.Min(lowest, g.Store().Transform(lamp).Y)
		b := g.Store().Transform(bob)
		if r := math.Hypot(b.X, b.Y-5); math.Abs(r-2) > 0.01 {
			t.Fatalf("tick %d: the bob swings %g m from its pivot, want 2", g.Tick(), r)
		}
	}
	l := g.Store().Transform(lamp)
	t.Logf("the bob swung to (%.2f, %.2f); the lamp hangs at (%.2f, %.2f), lowest %.3f", g.Store().Transform(bob).X, g.Store().Transform(bob).Y, l.X, l.Y, lowest)
	if math.Hypot(l.X-8, l.Y-6) > 1.5+0.01 || lowest < 6-1.5-0.01 {
		t.Errorf("the lamp is %g m from where it was spawned, lowest at %g: its 1.5 m cord to (8, 6) does not hold it", math.Hypot(l.X-8, l.Y-6), lowest)
	}
	if n := g.Physics().JointCount(); n != 2 {
		t.Errorf("%d joints, want the pivot and the cord", n)
	}
	g.Destroy(lamp)
	if n := g.Physics().JointCount(); n != 1 || len(g.jointNames) != 1 {
		t.Errorf("after the lamp went: %d joints, %d names; want the pivot's", n, len(g.jointNames))
	}
}

// TestCheckReportsJointMistakes runs the project check over files with a
// joint naming an entity its file lacks, limits the wrong way round, and a
// prefab joint naming a child: each is reported with its file, line and
// key.
func TestCheckReportsJointMistakes(t *testing.T) {
	const body = `[[entity]]
id = 1
[entity.body]
type = "static"
[[entity.body.shape]]
box = [1.0, 1.0]
[[entity]]
id = 2
transform = { x = 2.0, y = 0.0 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [1.0, 1.0]
`
	p := miniProject(t, map[string]string{
		"scene.toml":         body,
		"scenes/other.toml":  body + "[[joint]]\nkind = \"revolute\"\na = 1\nb = 7\n",
		"scenes/limits.toml": body + "[[joint]]\nkind = \"revolute\"\na = 1\nb = 2\nlimits = [1.0, -1.0]\n",
		"prefabs/cart.toml": `[[entity]]
uid = 1
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [1.0, 1.0]
[[entity]]
uid = 2
parent = 1
[[joint]]
kind = "weld"
a = 1
b = 2
`,
		"scripts/main.lua": "function vkmRegisterBehaviors(r) end\n",
	})
	c := Check(p)
	want := []string{
		"scenes/limits.toml:18: joint.limits: [1, -1] is the wrong way round: the lower limit comes first",
		"scenes/other.toml:17: joint.b: no entity in this file has id 7: a joint joins entities of its own file",
		"prefabs/cart.toml:13: joint.b: uid 2 (the entity at line 7) has no physics body to join",
	}
	got := ""
	for _, err := range c.Errors {
		got += err.Error() + "\n"
	}
	t.Logf("check reported:\n%s", got)
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("check did not report %q", w)
		}
	}
}

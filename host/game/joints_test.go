package game

import (
	"math"
	"strings"
	"testing"

	"vkm/internal/entity"
	"vkm/physics"
	"vkm/prediction"
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

// ragdoll is a prefab of six bodies: a torso (the root) and, below it in
// the file, a head, two arms and two legs, each on a revolute joint to the
// torso with limits, the head's on a weld.
const ragdoll = `[[entity]]
uid = 1
name = "torso"
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [0.5, 0.9]
[[entity]]
uid = 2
parent = 1
name = "head"
transform = { x = 0.0, y = 0.7 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
circle = 0.22
[[entity]]
uid = 3
parent = 1
name = "arm-left"
transform = { x = -0.45, y = 0.2, angle = 0.3 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [0.4, 0.14]
[[entity]]
uid = 4
parent = 1
name = "arm-right"
transform = { x = 0.45, y = 0.2, angle = -0.3 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [0.4, 0.14]
[[entity]]
uid = 5
parent = 1
name = "leg-left"
transform = { x = -0.14, y = -0.75 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [0.16, 0.6]
[[entity]]
uid = 6
parent = 1
name = "leg-right"
transform = { x = 0.14, y = -0.75 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [0.16, 0.6]
[[joint]]
kind = "weld"
a = 1
b = 2
anchor = [0.0, 0.45]
frequency = 8.0
damping = 0.5
[[joint]]
kind = "revolute"
a = 1
b = 3
anchor = [-0.25, 0.3]
limits = [-1.5, 1.5]
[[joint]]
kind = "revolute"
a = 1
b = 4
anchor = [0.25, 0.3]
limits = [-1.5, 1.5]
[[joint]]
kind = "revolute"
a = 1
b = 5
anchor = [-0.14, -0.45]
limits = [-0.8, 0.8]
[[joint]]
kind = "revolute"
a = 1
b = 6
anchor = [0.14, -0.45]
limits = [-0.8, 0.8]
`

// TestASpawnedRagdollReplaysExactly spawns a ragdoll prefab (six bodies
// joined to its torso) mid-run over a floor on an end that replays, twice,
// the second falling on the first; puts the components back as they were
// ten ticks after the spawn and replays the next twenty: each replayed
// tick hashes as the run did. Its joints hold the limbs to the torso, and
// destroying the torso destroys every part and joint.
func TestASpawnedRagdollReplaysExactly(t *testing.T) {
	const lead, run = 10, 20
	p := miniProject(t, map[string]string{
		"scene.toml": `[[entity]]
id = 1
name = "floor"
[entity.body]
type = "static"
[[entity.body.shape]]
box = [40.0, 1.0]
`,
		"prefabs/ragdoll.toml": ragdoll,
		"scripts/main.lua":     "function vkmRegisterBehaviors(r) end\n",
	})
	g, err := New(Config{Project: p, Authority: func(g *Game) Authority { return told{offline{g}} }})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for range 5 {
		g.RunTick()
	}
	first, err := g.Spawn("prefabs/ragdoll.toml", entity.Transform{X: 0.3, Y: 2})
	if err != nil {
		t.Fatal(err)
	}
	for range 30 {
		g.RunTick()
	}
	second, err := g.Spawn("prefabs/ragdoll.toml", entity.Transform{X: 0, Y: 4, Angle: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	from := g.Tick()
	members := append(g.Store().Members(first), g.Store().Members(second)...)
	if len(members) != 12 || g.Physics().JointCount() != 10 {
		t.Fatalf("%d members and %d joints, want 12 and 10", len(members), g.Physics().JointCount())
	}
	for range lead {
		g.RunTick()
	}
	saved := map[entity.ID][2]any{}
	for _, id := range members {
		saved[id] = [2]any{*g.Store().Transform(id), *g.Store().Rigidbody(id)}
	}
	var hashes []uint64
	for range run {
		g.RunTick()
		hashes = append(hashes, g.Physics().Hash())
	}
	for id, c := range saved {
		*g.Store().Transform(id) = c[0].(entity.Transform)
		rb := c[1].(entity.Rigidbody)
		g.Store().SetRigidbody(id, &rb)
	}
	same := 0
	n := g.Replay(from+lead+1, from+lead+run, func(uint32) (prediction.Command, bool) { return prediction.Command{}, true }, func(g *Game) {
		if g.Physics().Hash() == hashes[g.Tick()-from-lead-1] {
			same++
		}
	})
	for range 64 {
		g.RunTick()
	}
	torso := g.Store().Transform(first)
	worst := 0.0
	for _, id := range g.Store().Members(first)[1:] {
		l := g.Store().Transform(id)
		worst = math.Max(worst, math.Hypot(l.X-torso.X, l.Y-torso.Y))
	}
	t.Logf("replayed %d ticks from tick %d, %d hash as the run did; a second later the farthest limb is %.2f m from the torso", n, from+lead+1, same, worst)
	if n != run || same != run {
		t.Errorf("replayed %d ticks, %d of them as the run, want %d", n, same, run)
	}
	if worst > 1.2 {
		t.Errorf("a limb is %.2f m from the torso: its joint did not hold", worst)
	}
	g.Destroy(first)
	if g.Physics().JointCount() != 5 || g.Physics().Len() != 7 {
		t.Errorf("after the first ragdoll went: %d joints, %d bodies; want 5 and 7", g.Physics().JointCount(), g.Physics().Len())
	}
}

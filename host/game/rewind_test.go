package game

import (
	"fmt"
	"strings"
	"testing"

	"vkm/internal/entity"
	"vkm/prediction"
)

// told is the offline Authority, but for an end that is told where the
// bodies it does not simulate are, as a client is: it keeps its physics
// for replays.
type told struct{ offline }

func (told) Told() bool { return true }

// chainProject is a floor, a post and a row of links a test joins into a
// chain hanging from the post, with a crate on the floor under it.
func chainProject(t testing.TB, links int) map[string]string {
	var b strings.Builder
	b.WriteString(`[[entity]]
id = 1
name = "floor"
[entity.body]
type = "static"
[[entity.body.shape]]
box = [40.0, 1.0]
[[entity]]
id = 2
name = "post"
transform = { x = 0.0, y = 4.5 }
[entity.body]
type = "static"
[[entity.body.shape]]
box = [0.2, 8.0]
[[entity]]
id = 3
name = "crate"
transform = { x = 3.0, y = 1.0 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [1.0, 1.0]
`)
	for i := range links {
		fmt.Fprintf(&b, `[[entity]]
id = %d
name = "link"
transform = { x = %g, y = 8.5 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [0.9, 0.2]
`, 10+i, 0.5+float64(i))
	}
	return map[string]string{
		"scene.toml":       b.String(),
		"scripts/main.lua": "function vkmRegisterBehaviors(r) end\n",
	}
}

// TestAReplayRestoresThePhysicsItStartsFrom runs a chain swinging onto a
// crate on an end that replays, puts the components back as they were
// after tick 40 (as a correction puts the server's answer there), and
// replays ticks 41..60: every replayed tick leaves the physics with the
// hash the first run left, because the replay starts from the joints'
// and contacts' carried impulses of tick 40 and not of tick 60. On an end
// that keeps no physics the same replay parts from the run.
func TestAReplayRestoresThePhysicsItStartsFrom(t *testing.T) {
	const links, lead, run = 6, 40, 20
	for _, keeps := range []bool{true, false} {
		p := miniProject(t, chainProject(t, links))
		cfg := Config{Project: p}
		if keeps {
			cfg.Authority = func(g *Game) Authority { return told{offline{g}} }
		}
		g, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		ids := g.SceneIDs()
		link := func(i int) entity.ID { return ids[3+i] }
		if _, err := g.Physics().AddJoint(ids[1], link(0), &entity.JointDef{Kind: entity.Revolute, AnchorA: entity.Vec2{Y: 4}, AnchorB: entity.Vec2{X: -0.5}}); err != nil {
			t.Fatal(err)
		}
		for i := range links - 1 {
			if _, err := g.Physics().AddJoint(link(i), link(i+1), &entity.JointDef{Kind: entity.Revolute, AnchorA: entity.Vec2{X: 0.5}, AnchorB: entity.Vec2{X: -0.5}}); err != nil {
				t.Fatal(err)
			}
		}
		for range lead {
			g.RunTick()
		}
		saved := map[entity.ID][2]any{}
		for _, id := range ids {
			if rb := g.Store().Rigidbody(id); rb != nil {
				saved[id] = [2]any{*g.Store().Transform(id), *rb}
			}
		}
		var first []uint64
		for range run {
			g.RunTick()
			first = append(first, g.Physics().Hash())
		}
		for id, c := range saved {
			*g.Store().Transform(id) = c[0].(entity.Transform)
			rb := c[1].(entity.Rigidbody)
			g.Store().SetRigidbody(id, &rb)
		}
		same, parted := 0, 0
		n := g.Replay(lead+1, lead+run, func(uint32) (prediction.Command, bool) { return prediction.Command{}, true }, func(g *Game) {
			if g.Physics().Hash() == first[g.Tick()-lead-1] {
				same++
			} else if parted == 0 {
				parted = int(g.Tick())
			}
		})
		t.Logf("keeps its physics %v: %d of %d replayed ticks hash as the run did (first parting at tick %d)", keeps, same, n, parted)
		switch {
		case n != run:
			t.Fatalf("replayed %d ticks, want %d", n, run)
		case keeps && same != run:
			t.Errorf("the replay parted from the run at tick %d", parted)
		case !keeps && same == run:
			t.Error("a replay from the physics as it stood repeated the run: the chain does not test what a replay restores")
		}
	}
}

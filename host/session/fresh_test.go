package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/transport/memnet"
)

// goalScript keeps the tick of the last goal on a scene entity, a goal
// every 100 ticks on the server, and shows each goal on the ends that draw
// with self:fresh, as docs/lua.md's "Showing what happened on every end"
// does.
const goalScript = `
local Goal = {}
function Goal:on_fixed_update(dt)
  if not self:is_simulated() then return end
  if vkm.tick() % 100 == 50 then self:set("Goal", "tick", vkm.tick()) end
end
function Goal:on_update(dt)
  local t = self:fresh("Goal", "tick")
  if t then self:emit("goal", { tick = t }) end
end
return Goal
`

// TestFreshOnASceneEntityAfterAMidMatchJoin: a client that joins after
// goals were scored shows none of them; it shows the next one, once. A
// scene entity is on a client from the start with its scene's values; the
// first snapshot that tells it the entity's state resets what fresh has
// seen there, so the past goal it carries is where fresh starts.
func TestFreshOnASceneEntityAfterAMidMatchJoin(t *testing.T) {
	dir := copyProject(t, "../../projects/arena")
	edit := func(name, old, add string) {
		t.Helper()
		file := filepath.Join(dir, filepath.FromSlash(name))
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b) + add
		if old != "" {
			if !strings.Contains(string(b), old) {
				t.Fatalf("%s no longer holds %q", name, old)
			}
			s = strings.Replace(string(b), old, old+add, 1)
		}
		if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "scripts", "goal.lua"), []byte(goalScript), 0o644); err != nil {
		t.Fatal(err)
	}
	edit("scripts/main.lua", "function vkmRegisterBehaviors(r)\n", "  r.goal = import(\"scripts/goal.lua\")\n")
	edit("scripts/main.lua", "function vkmSetupNetwork(net)\n", "  net.component(\"Goal\", { {\"tick\", net.int(0, 4294967295)} })\n")
	edit("scenes/arena.toml", "", "\n[[entity]]\nid = 46\nname = \"goal\"\nbehavior = \"goal\"\n[entity.components.Goal]\n")
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, p)
	first := h.join(p, memnet.Broadband, 1)
	h.run(1500 * time.Millisecond) // goals at ticks 50 and 150 (64 Hz)
	srv := h.server.Game()
	goal := entity.None
	srv.Store().Each(func(id entity.ID) bool {
		if srv.Store().Name(id) == "goal" {
			goal = id
		}
		return goal.IsNone()
	})
	if goal.IsNone() || !first.c.Playing() {
		t.Fatalf("the match has no goal entity (%v) or its first client is not playing", goal)
	}
	past := srv.Store().Component(goal, srv.Schema().Index("Goal"))[0]
	if past == 0 {
		t.Fatal("no goal was scored before the second client joined")
	}
	late := h.join(p, memnet.Broadband, 2)
	var shown []float64
	late.c.Game().WatchEvents(func(name string, _ entity.ID, f map[string]any) {
		if name == "goal" {
			shown = append(shown, f["tick"].(float64))
		}
	})
	h.runUntil(5*time.Second, "the late client playing", late.c.Playing)
	h.run(1700 * time.Millisecond) // past the next goal
	now := srv.Store().Component(goal, srv.Schema().Index("Goal"))[0]
	t.Logf("goal at tick %v when the client joined, %v now; the late client showed %v", past, now, shown)
	if now <= past {
		t.Fatal("no goal was scored after the join")
	}
	for _, s := range shown {
		if s <= past {
			t.Fatalf("the late client showed the goal of tick %v, scored before it joined (shown %v)", s, shown)
		}
	}
	if len(shown) == 0 {
		t.Fatalf("the late client showed none of the goals after its join (the last at tick %v)", now)
	}
}

package game

import (
	"strings"
	"testing"

	"vkm/internal/entity"
)

// rigPrefab is a two-entity prefab: a root that slides right by its
// speed prop each tick, and a child with a label prop of its own.
func rigPrefab(speed, label string) string {
	return `
[[entity]]
uid = 1
name = "rig"
behavior = "slider"
props = { speed = ` + speed + ` }
[[entity]]
uid = 2
name = "rig-tag"
parent = 1
behavior = "tag"
props = { label = "` + label + `" }
`
}

const reloadScripts = `
local Slider = {}
function Slider:on_start() self.step = self.speed / 64 end
function Slider:on_fixed_update(dt)
  local x, y = self:position()
  self:set_position(x + self.step, y)
end
function Slider:on_reload(old)
  if old.speed ~= self.speed then self.step = self.speed / 64 end
  self:emit("slider_reloaded", { old_speed = old.speed, speed = self.speed })
end

local Tag = {}
function Tag:on_reload(old)
  self:emit("tag_reloaded", { old_label = old.label, label = self.label })
end

local Probe = {}
function Probe:on_fixed_update(dt)
  if vkm.tick() == 1 then self:spawn("prefabs/rig.toml", 0, 10) end
end

function vkmRegisterBehaviors(r) r.slider = Slider; r.tag = Tag; r.probe = Probe end
`

// TestReloadGivesLiveEntitiesTheirPrefabsNewProps edits the props of a
// two-entity prefab after one instance was spawned: at the reload the live
// root slides at the new speed (its on_reload recomputed what on_start
// derived from it), its child has its new label, on_reload received the
// old props on both, and an entity the scene authored runs on as it was.
// An edit that does not parse changes nothing.
func TestReloadGivesLiveEntitiesTheirPrefabsNewProps(t *testing.T) {
	p := miniProject(t, map[string]string{
		"scene.toml": probeScene + `
[[entity]]
id = 9
name = "scene-slider"
behavior = "slider"
props = { speed = 64 }
`,
		"prefabs/rig.toml": rigPrefab("64", "old"),
		"scripts/main.lua": reloadScripts,
	})
	g := newGame(t, p)
	s := g.Store()
	g.RunTick() // the probe spawns the rig
	rig, tag, scene := g.World().Find("rig"), g.World().Find("rig-tag"), s.At(9)
	if rig.IsNone() || tag.IsNone() {
		t.Fatal("the rig was not spawned")
	}
	g.RunTick()
	slid := func(id entity.ID) float64 {
		x := s.Transform(id).X
		g.RunTick()
		return s.Transform(id).X - x
	}
	if d := slid(rig); d != 1 {
		t.Fatalf("before the reload the rig slid %v a tick, want 1", d)
	}

	if _, err := g.Reload(map[string][]byte{"prefabs/rig.toml": []byte("[[entity]\nuid = 1\n")}); err == nil ||
		!strings.Contains(err.Error(), "rig.toml") {
		t.Fatalf("a prefab that does not parse: err %v", err)
	}
	if d := slid(rig); d != 1 || len(g.DrainEvents()) != 0 {
		t.Fatalf("a failed reload changed the rig: it slid %v", d)
	}

	res, err := g.Reload(map[string][]byte{"prefabs/rig.toml": []byte(rigPrefab("192", "new"))})
	if err != nil {
		t.Fatal(err)
	}
	if res.Props != 2 || res.Instances != 4 {
		t.Fatalf("reload reported %+v, want 4 instances, 2 given new props", res)
	}
	byName := map[string]map[string]any{}
	for _, ev := range g.DrainEvents() {
		who := s.Name(ev.Entity)
		if byName[who] != nil {
			t.Fatalf("on_reload ran twice on %s", who)
		}
		byName[who] = ev.Fields
	}
	if f := byName["rig"]; f["old_speed"] != 64.0 || f["speed"] != 192.0 {
		t.Fatalf("the rig's on_reload saw %v", f)
	}
	if f := byName["rig-tag"]; f["old_label"] != "old" || f["label"] != "new" {
		t.Fatalf("the rig's child's on_reload saw %v", f)
	}
	if f := byName["scene-slider"]; f["old_speed"] != 64.0 || f["speed"] != 64.0 {
		t.Fatalf("the scene's slider's on_reload saw %v", f)
	}
	if d := slid(rig); d != 3 {
		t.Fatalf("after the reload the rig slid %v a tick, want 3", d)
	}
	if d := slid(scene); d != 1 {
		t.Fatalf("after the reload the scene's slider slid %v a tick, want 1 (its props are the scene's)", d)
	}
	if _, props := s.Behavior(tag); props["label"] != "new" {
		t.Fatalf("the store holds the child's props as %v", props)
	}
}

package scripting

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"vkm/internal/entity"
)

const reloadV1 = `
local Runner = import("scripts/runner.lua")
function vkmRegisterBehaviors(r) r.runner = Runner end
function vkmSetupNetwork(net)
	net.component("Health", { {"hp", net.int(0, 100)} })
end
`

const runnerV1 = `
local Runner = {}
function Runner:on_start() self.steps = 0 end
function Runner:on_fixed_update(dt)
	self.steps = self.steps + 1
	self:emit("step", { speed = 1, steps = self.steps })
end
return Runner
`

const runnerV2 = `
local Runner = {}
function Runner:on_start() self.steps = 0 end
function Runner:on_fixed_update(dt)
	self.steps = self.steps + 1
	self:emit("step", { speed = 2, steps = self.steps })
end
function Runner:on_reload() self:emit("reloaded", { steps = self.steps }) end
return Runner
`

func reloadFS(entry, runner string) fstest.MapFS {
	return fstest.MapFS{
		"scripts/main.lua":   {Data: []byte(entry)},
		"scripts/runner.lua": {Data: []byte(runner)},
	}
}

// TestReloadRepointsInstances reloads a changed behavior: the live
// instance runs the new code with its fields kept, on_reload runs once,
// and the schema is rebuilt (unchanged here).
func TestReloadRepointsInstances(t *testing.T) {
	r, w := newTest(t, reloadV1, "scripts/runner.lua", runnerV1)
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	id := w.add("a")
	attach(t, r, id, "runner")
	r.FixedUpdate(1.0/64, false)
	r.FixedUpdate(1.0/64, false)
	got, err := r.Reload(reloadFS(reloadV1, runnerV2))
	if err != nil {
		t.Fatal(err)
	}
	if got.SchemaChanged || got.Instances != 1 {
		t.Fatalf("reload reported %+v", got)
	}
	r.FixedUpdate(1.0/64, false)
	steps := w.eventsNamed("step")
	if len(steps) != 3 || steps[1]["speed"] != float64(1) || steps[2]["speed"] != float64(2) || steps[2]["steps"] != float64(3) {
		t.Fatalf("steps %v: want two at speed 1, then one at speed 2 that kept counting", steps)
	}
	if rl := w.eventsNamed("reloaded"); len(rl) != 1 || rl[0]["steps"] != float64(2) {
		t.Fatalf("on_reload events %v", rl)
	}
}

// TestReloadFailuresChangeNothing tries scripts that fail in each way a
// reload can fail: each leaves the old code running and the globals as
// they were, and the error names where.
func TestReloadFailuresChangeNothing(t *testing.T) {
	cases := []struct {
		name, entry, runner, want string
	}{
		{"syntax error", reloadV1, "local Runner = {\nfunction", "scripts/runner.lua:"},
		{"error at load", reloadV1, "Leaked = true\nerror('no')\n", "scripts/runner.lua:2"},
		{"field without a codec", strings.Replace(reloadV1, `net.int(0, 100)`, `nil`, 1), runnerV2, "Health"},
		{"behavior gone", "Leaked = true\nfunction vkmRegisterBehaviors(r) end", runnerV2, `"runner"`},
		{"lifecycle not a function", reloadV1, "return { on_fixed_update = 3 }", "on_fixed_update"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, w := newTest(t, reloadV1, "scripts/runner.lua", runnerV1)
			if _, err := r.SetupNetwork(); err != nil {
				t.Fatal(err)
			}
			id := w.add("a")
			attach(t, r, id, "runner")
			r.FixedUpdate(1.0/64, false)
			before := r.Schema().Fingerprint()
			_, err := r.Reload(reloadFS(tc.entry, tc.runner))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("reload error %v, want one naming %q", err, tc.want)
			}
			t.Logf("%s: %v", tc.name, err)
			r.FixedUpdate(1.0/64, false)
			steps := w.eventsNamed("step")
			if len(steps) != 2 || steps[1]["speed"] != float64(1) || steps[1]["steps"] != float64(2) {
				t.Fatalf("after a failed reload the old code did not keep running: %v", steps)
			}
			if r.ls.G.Global.RawGetString("Leaked").String() != "nil" {
				t.Error("a failed reload left a global behind")
			}
			if r.Schema().Fingerprint() != before {
				t.Error("a failed reload changed the schema")
			}
			// Fixing the file reloads it.
			if _, err := r.Reload(reloadFS(reloadV1, runnerV2)); err != nil {
				t.Fatalf("the fixed scripts: %v", err)
			}
			r.FixedUpdate(1.0/64, false)
			if s := w.eventsNamed("step"); s[len(s)-1]["speed"] != float64(2) {
				t.Fatalf("after the fix: %v", s)
			}
		})
	}
}

// TestReloadRebuildsTheSchema adds a field: the new schema has it and says
// it changed.
func TestReloadRebuildsTheSchema(t *testing.T) {
	r, _ := newTest(t, reloadV1, "scripts/runner.lua", runnerV1)
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	entry := strings.Replace(reloadV1, `{"hp", net.int(0, 100)} `, `{"hp", net.int(0, 100)}, {"armor", net.int(0, 50)} `, 1)
	got, err := r.Reload(reloadFS(entry, runnerV1))
	if err != nil {
		t.Fatal(err)
	}
	if !got.SchemaChanged || len(got.Schema.Types) != 1 || len(got.Schema.Types[0].Fields) != 2 {
		t.Fatalf("schema after adding a field: %+v", got)
	}
}

// TestReloadReenablesAFixedBehavior: a behavior an error disabled runs
// again once the fixed script is loaded.
func TestReloadReenablesAFixedBehavior(t *testing.T) {
	broken := strings.Replace(runnerV1, "self.steps = self.steps + 1", "self.steps = self.steps + nil", 1)
	r, w := newTest(t, reloadV1, "scripts/runner.lua", broken)
	id := w.add("a")
	attach(t, r, id, "runner")
	r.FixedUpdate(1.0/64, false)
	if _, err := r.Reload(reloadFS(reloadV1, runnerV2)); err != nil {
		t.Fatal(err)
	}
	r.FixedUpdate(1.0/64, false)
	if s := w.eventsNamed("step"); len(s) != 1 || s[0]["speed"] != float64(2) {
		t.Fatalf("steps after fixing %v", s)
	}
}

// TestUseOldCodeForReplays switches a reloaded instance back to the code
// it ran before the reload and on again, as a client replaying ticks from
// before a reload does; its fields are the same either way.
func TestUseOldCodeForReplays(t *testing.T) {
	r, w := newTest(t, reloadV1, "scripts/runner.lua", runnerV1)
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	id := w.add("a")
	attach(t, r, id, "runner")
	r.FixedUpdate(1.0/64, false)
	if _, err := r.Reload(reloadFS(reloadV1, runnerV2)); err != nil {
		t.Fatal(err)
	}
	r.UseOldCode(true)
	r.FixedUpdate(1.0/64, true)
	r.UseOldCode(false)
	r.FixedUpdate(1.0/64, false)
	r.ForgetOldCode()
	r.UseOldCode(true) // nothing left to switch to
	r.FixedUpdate(1.0/64, false)
	var speeds []any
	for _, s := range w.eventsNamed("step") {
		speeds = append(speeds, s["speed"])
	}
	if want := []any{float64(1), float64(1), float64(2), float64(2)}; !slices.Equal(speeds, want) {
		t.Fatalf("speeds %v, want %v", speeds, want)
	}
	if s := w.eventsNamed("step"); s[3]["steps"] != float64(4) {
		t.Fatalf("the instance lost count across the switches: %v", s)
	}
}

const propsEntry = `
local Mover = import("scripts/mover.lua")
function vkmRegisterBehaviors(r) r.mover = Mover end
`

const moverSrc = `
local Mover = {}
function Mover:on_start() self.double = self.speed * 2 end
function Mover:on_fixed_update(dt)
	self.hp = self.hp - 1
	self:emit("move", { speed = self.speed, double = self.double, hp = self.hp,
		gone = self.gone ~= nil, added = self.added or -1 })
end
function Mover:on_reload(old)
	if old.speed ~= self.speed then self.double = self.speed * 2 end
	self:emit("reloaded", { old_speed = old.speed, speed = self.speed, old_gone = old.gone ~= nil,
		old_waypoints = #old.waypoints, hp = self.hp })
	old.speed = 99 -- the table is the callback's own
end
function Mover:later() end
return Mover
`

// TestReloadGivesNewProps reloads with new props for one of two instances:
// its changed props are written, a removed one cleared and a new one
// added, while a prop that did not change keeps the value the behavior
// gave it; on_reload receives the old props on both and recomputes what it
// derived. UseOldCode switches the changed props with the code.
func TestReloadGivesNewProps(t *testing.T) {
	r, w := newTest(t, propsEntry, "scripts/mover.lua", moverSrc)
	props := func(speed float64, extra string) map[string]any {
		p := map[string]any{"speed": speed, "hp": int64(10), "waypoints": []any{int64(1), int64(2)}}
		switch extra {
		case "gone":
			p["gone"] = true
		case "added":
			p["added"] = int64(5)
		}
		return p
	}
	a, b := w.add("a"), w.add("b")
	if err := r.Attach(a, "mover", props(1, "gone")); err != nil {
		t.Fatal(err)
	}
	if err := r.Attach(b, "mover", props(1, "gone")); err != nil {
		t.Fatal(err)
	}
	r.FixedUpdate(1.0/64, false)
	fsys := reloadFS(propsEntry, "")
	fsys["scripts/mover.lua"] = &fstest.MapFile{Data: []byte(moverSrc)}
	got, err := r.ReloadWithProps(fsys, func(id entity.ID, behavior string) (map[string]any, bool) {
		if id != a || behavior != "mover" {
			return nil, false
		}
		return props(3, "added"), true
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Instances != 2 || got.Props != 1 {
		t.Fatalf("reload reported %+v, want 2 instances, 1 with new props", got)
	}
	rl := w.eventsNamed("reloaded")
	if len(rl) != 2 {
		t.Fatalf("on_reload events %v", rl)
	}
	if rl[0]["old_speed"] != 1.0 || rl[0]["speed"] != 3.0 || rl[0]["old_gone"] != true || rl[0]["old_waypoints"] != 2.0 || rl[0]["hp"] != 9.0 {
		t.Fatalf("on_reload of the changed instance saw %v", rl[0])
	}
	if rl[1]["old_speed"] != 1.0 || rl[1]["speed"] != 1.0 || rl[1]["old_gone"] != true {
		t.Fatalf("on_reload of the unchanged instance saw %v", rl[1])
	}
	r.FixedUpdate(1.0/64, false)
	mv := w.eventsNamed("move")
	want := map[string]any{"speed": 3.0, "double": 6.0, "hp": 8.0, "gone": false, "added": 5.0}
	if fmt.Sprint(mv[2]) != fmt.Sprint(want) {
		t.Fatalf("after the reload a moved with %v, want %v", mv[2], want)
	}
	if mv[3]["speed"] != 1.0 || mv[3]["gone"] != true || mv[3]["hp"] != 8.0 {
		t.Fatalf("after the reload b moved with %v", mv[3])
	}

	r.UseOldCode(true)
	r.FixedUpdate(1.0/64, true)
	r.UseOldCode(false)
	r.FixedUpdate(1.0/64, false)
	mv = w.eventsNamed("move")
	if mv[4]["speed"] != 1.0 || mv[4]["gone"] != true || mv[4]["added"] != -1.0 {
		t.Fatalf("replaying before the reload, a moved with %v: want its old props", mv[4])
	}
	if mv[6]["speed"] != 3.0 || mv[6]["gone"] != false || mv[6]["added"] != 5.0 || mv[6]["hp"] != 6.0 {
		t.Fatalf("after the replay, a moved with %v: want its new props and its hp counting on", mv[6])
	}

	// New props that would hide a method fail the reload whole.
	_, err = r.ReloadWithProps(fsys, func(id entity.ID, _ string) (map[string]any, bool) {
		p := props(7, "")
		if id == b {
			p["later"] = true
		}
		return p, true
	})
	if err == nil || !strings.Contains(err.Error(), `prop "later"`) || !strings.Contains(err.Error(), "b") {
		t.Fatalf("a prop hiding a method: err %v", err)
	}
	r.FixedUpdate(1.0/64, false)
	mv = w.eventsNamed("move")
	if mv[len(mv)-2]["speed"] != 3.0 || mv[len(mv)-1]["speed"] != 1.0 {
		t.Fatalf("a failed reload changed props: %v", mv[len(mv)-2:])
	}
}

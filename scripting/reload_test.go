package scripting

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
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

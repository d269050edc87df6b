package scripting

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"vkm/internal/entity"
	"vkm/prediction"
)

func TestSandbox(t *testing.T) {
	src := `
function vkmRegisterBehaviors(r) end
results = {}
for _, name in ipairs({"os", "io", "require", "dofile", "loadfile", "load", "loadstring",
		"debug", "package", "collectgarbage", "module", "getfenv", "setfenv", "newproxy",
		"_printregs", "coroutine", "channel"}) do
	if _G[name] ~= nil then results[#results + 1] = name end
end
if string.dump ~= nil then results[#results + 1] = "string.dump" end
rep_ok = pcall(string.rep, "x", 1e7)
small_rep = ("ab"):rep(3)
local big = {}
for i = 1, 64 do big[i] = string.rep("x", 1048575) end
concat_ok = pcall(table.concat, big)
small_concat = table.concat({"a", 1, "b"}, "-")
bad_concat = pcall(table.concat, {"a", {}})
print("hello", 1, true)
`
	r, w := newTest(t, src)
	g := r.ls.G.Global
	if left := g.RawGetString("results").(*lua.LTable); left.Len() != 0 {
		var names []string
		for i := 1; i <= left.Len(); i++ {
			names = append(names, left.RawGetInt(i).String())
		}
		t.Errorf("reachable: %v", names)
	}
	if g.RawGetString("rep_ok") != lua.LFalse {
		t.Error("string.rep of 10 MB was allowed")
	}
	if g.RawGetString("concat_ok") != lua.LFalse || g.RawGetString("bad_concat") != lua.LFalse {
		t.Error("table.concat of 64 MB, or of a table, was allowed")
	}
	if g.RawGetString("small_concat").String() != "a-1-b" {
		t.Errorf("table.concat broken: %v", g.RawGetString("small_concat"))
	}
	if g.RawGetString("small_rep").String() != "ababab" {
		t.Errorf("string.rep broken: %v", g.RawGetString("small_rep"))
	}
	if len(w.logs) != 1 || w.logs[0] != "0:hello\t1\ttrue" {
		t.Errorf("print went to %q, want World.Log", w.logs)
	}
	for _, keep := range []string{"string", "table", "math", "pairs", "pcall", "setmetatable", "import", "vkm"} {
		if g.RawGetString(keep) == lua.LNil {
			t.Errorf("%s missing", keep)
		}
	}
}

func TestPrelude(t *testing.T) {
	src := `
function vkmRegisterBehaviors(r) end
out = { vkm.clamp(5, 0, 3), vkm.lerp(0, 10, 0.25), vkm.sign(-2), vkm.approach(1, 5, 3),
	vkm.approach(4, 5, 3), vkm.length(3, 4) }
`
	r, _ := newTest(t, src)
	out := r.ls.G.Global.RawGetString("out").(*lua.LTable)
	want := []float64{3, 2.5, -1, 4, 5, 5}
	for i, w := range want {
		if got := float64(out.RawGetInt(i + 1).(lua.LNumber)); got != w {
			t.Errorf("helper %d = %v, want %v", i+1, got, w)
		}
	}
}

const runawaySrc = `
Spin = {}
function Spin:on_fixed_update(dt)
	while true do end -- RUNAWAY
end
Trap = {}
function Trap:on_fixed_update(dt)
	while true do pcall(function() while true do end end) end
end
Count = {}
function Count:on_fixed_update(dt)
	self.n = (self.n or 0) + 1
	self:set_position(self.n, 0)
end
function vkmRegisterBehaviors(r)
	r.spin = Spin
	r.trap = Trap
	r.count = Count
end
`

func TestRunawayStopped(t *testing.T) {
	const budget = 20 * time.Millisecond
	var got []ScriptError
	r, w, err := tryNew(t, Config{CallBudget: budget, OnError: func(e ScriptError) { got = append(got, e) }}, runawaySrc)
	if err != nil {
		t.Fatal(err)
	}
	before := w.add("before")
	spin := w.add("spinner")
	trap := w.add("trapper")
	after := w.add("after")
	attach(t, r, before, "count")
	attach(t, r, spin, "spin")
	attach(t, r, trap, "trap")
	attach(t, r, after, "count")

	start := time.Now()
	r.FixedUpdate(1.0/64, false)
	took := time.Since(start)
	t.Logf("two runaways stopped in %v with a %v budget", took, budget)
	// Each runaway stops about one budget in (the figure is logged above);
	// the bound only proves they were stopped, not the timing, which a
	// loaded machine can stretch.
	if took > 2*time.Second {
		t.Errorf("runaways took %v to stop", took)
	}
	if len(got) != 2 || r.Errors() != 2 {
		t.Fatalf("reported %d errors (%d counted), want 2: %v", len(got), r.Errors(), got)
	}
	line := lineOf(t, runawaySrc, "RUNAWAY")
	if !got[0].Runaway || got[0].Where != fmt.Sprintf("scripts/main.lua:%d", line) || got[0].Entity != spin {
		t.Errorf("first report %+v, want a runaway at line %d on %v", got[0], line, spin)
	}
	if !got[1].Runaway || got[1].Entity != trap {
		t.Errorf("pcall trap not stopped as a runaway: %+v", got[1])
	}
	for i := 0; i < 3; i++ {
		r.FixedUpdate(1.0/64, false)
	}
	if len(got) != 2 {
		t.Errorf("disabled behaviors ran again: %d reports", len(got))
	}
	for _, id := range []entity.ID{before, after} {
		if x := w.Transform(id).X; x != 4 {
			t.Errorf("%v ticked %v times, want 4", id, x)
		}
	}
}

const errorSrc = `
Broken = {}
function Broken:on_fixed_update(dt)
	self.ticks = (self.ticks or 0) + 1
	local t = nil
	return t.field -- BOOM
end
Bad = {}
function Bad:on_fixed_update(dt)
	self:set_velocity("fast", 1) -- BADARG
end
Thrower = {}
function Thrower:on_fixed_update(dt)
	error({code = 7}) -- TABLE
end
function vkmRegisterBehaviors(r)
	r:register("broken", Broken)
	r.bad = Bad
	r.thrower = Thrower
end
`

func TestErrorReportedOnceWithLine(t *testing.T) {
	var got []ScriptError
	r, w, err := tryNew(t, Config{OnError: func(e ScriptError) { got = append(got, e) }}, errorSrc)
	if err != nil {
		t.Fatal(err)
	}
	w.add("filler")
	hero := w.add("hero")
	bad := w.add("bad")
	thrower := w.add("thrower")
	attach(t, r, hero, "broken")
	attach(t, r, bad, "bad")
	attach(t, r, thrower, "thrower")
	for i := 0; i < 5; i++ {
		r.FixedUpdate(1.0/64, false)
	}
	if len(got) != 3 {
		t.Fatalf("got %d reports over 5 ticks, want 3 (one each): %v", len(got), got)
	}
	want := []struct {
		id     entity.ID
		name   string
		beh    string
		marker string
		msg    string
	}{
		{hero, "hero", "broken", "BOOM", "attempt to index"},
		{bad, "bad", "bad", "BADARG", "bad argument #2 to set_velocity"},
		{thrower, "thrower", "thrower", "TABLE", "table"},
	}
	for i, w := range want {
		e := got[i]
		where := fmt.Sprintf("scripts/main.lua:%d", lineOf(t, errorSrc, w.marker))
		if e.Entity != w.id || e.EntityName != w.name || e.Behavior != w.beh ||
			e.Callback != "on_fixed_update" || e.Where != where || !strings.Contains(e.Message, w.msg) || e.Runaway {
			t.Errorf("report %d = %+v, want %s on %v at %s", i, e, w.beh, w.id, where)
		}
		if !strings.HasPrefix(e.Error(), "scripting: ") || !strings.Contains(e.Error(), where) ||
			!strings.Contains(e.Error(), fmt.Sprintf("slot %d", w.id.Slot)) {
			t.Errorf("Error() = %q", e.Error())
		}
	}
	if n := lookupNumber(r, hero, "ticks"); n != 1 {
		t.Errorf("broken behavior ran %v times, want 1", n)
	}
}

// lookupNumber reads a number field of id's handle table.
func lookupNumber(r *Runtime, id entity.ID, field string) float64 {
	e := r.entities[id]
	if e == nil {
		return -1
	}
	n, _ := e.handle.RawGetString(field).(lua.LNumber)
	return float64(n)
}

func TestSyntaxErrorNamesLine(t *testing.T) {
	src := "function vkmRegisterBehaviors(r) end\nlocal x = = 3\n"
	_, _, err := tryNew(t, Config{}, src)
	var se *ScriptError
	if !errors.As(err, &se) || se.Where != "scripts/main.lua:2" {
		t.Fatalf("err = %v, want a ScriptError at scripts/main.lua:2", err)
	}
	if !strings.HasPrefix(err.Error(), "scripting: scripts/main.lua:2: ") {
		t.Errorf("Error() = %q", err)
	}
	_, _, err = tryNew(t, Config{}, `import("scripts/util.lua")`, "scripts/util.lua", "\n\nreturn {")
	if err == nil || !strings.Contains(err.Error(), "scripts/util.lua") {
		t.Errorf("syntax error in an import: %v", err)
	}
	_, _, err = tryNew(t, Config{}, "\nerror('nope') -- top level\n")
	if err == nil || !strings.Contains(err.Error(), "scripts/main.lua:2: nope") {
		t.Errorf("run-time error at load: %v", err)
	}
}

func TestImport(t *testing.T) {
	src := `
local util = import("scripts/util.lua")
local again = import("scripts/../scripts/util.lua")
`
	_, _, err := tryNew(t, Config{}, src, "scripts/util.lua", "return {}")
	if err == nil || !strings.Contains(err.Error(), "leaves the project folder") {
		t.Errorf(`".." allowed: %v`, err)
	}
	src = `
local util = import("scripts/util.lua")
local again = import("./scripts/util.lua")
same = util == again
answer = util.answer
loads = util_loads
ok_abs = pcall(import, "/etc/passwd.lua")
ok_missing = pcall(import, "scripts/missing.lua")
ok_cycle, cycle_err = pcall(import, "scripts/main.lua")
`
	r, _ := newTest(t, src, "scripts/util.lua", "util_loads = (util_loads or 0) + 1\nreturn {answer = 42}")
	g := r.ls.G.Global
	if g.RawGetString("same") != lua.LTrue || g.RawGetString("answer") != lua.LNumber(42) || g.RawGetString("loads") != lua.LNumber(1) {
		t.Errorf("import: same=%v answer=%v loads=%v", g.RawGetString("same"), g.RawGetString("answer"), g.RawGetString("loads"))
	}
	for _, name := range []string{"ok_abs", "ok_missing", "ok_cycle"} {
		if g.RawGetString(name) != lua.LFalse {
			t.Errorf("%s succeeded", name)
		}
	}
	if !strings.Contains(g.RawGetString("cycle_err").String(), "cycle") {
		t.Errorf("cycle error: %v", g.RawGetString("cycle_err"))
	}
}

func TestFourQuestions(t *testing.T) {
	src := `
Ask = {}
function Ask:on_fixed_update(dt)
	local c = self:command()
	self:emit("answers", {
		simulated = self:is_simulated(), mine = self:is_mine(), replaying = self:is_replaying(),
		move = c.axis.move, aim = c.axis.aim_x, jump = c.held.jump, fire = c.held.fire,
		jump_pressed = c.pressed.jump, fire_pressed = c.pressed.fire,
	})
end
function vkmRegisterBehaviors(r) r.ask = Ask end
`
	r, w := newTest(t, src)
	id := w.add("hero")
	attach(t, r, id, "ask")

	// Offline: simulated, mine, the local command, not replaying.
	w.command = &prediction.Command{Axes: [prediction.MaxAxes]float64{0.5, -3}, Held: 0b01, Pressed: 0b01}
	r.FixedUpdate(1.0/64, false)
	// A server: simulates everything, owns nothing, no player for this one.
	w.command, w.mine = nil, func(entity.ID) bool { return false }
	r.FixedUpdate(1.0/64, false)
	// A client replaying its own character.
	w.mine, w.replaying = nil, true
	w.command = &prediction.Command{Held: 0b10}
	r.FixedUpdate(1.0/64, true)

	got := w.eventsNamed("answers")
	want := []map[string]any{
		{"simulated": true, "mine": true, "replaying": false, "move": 0.5, "aim": -1.0, "jump": true, "fire": false, "jump_pressed": true, "fire_pressed": false},
		{"simulated": true, "mine": false, "replaying": false, "move": 0.0, "aim": 0.0, "jump": false, "fire": false, "jump_pressed": false, "fire_pressed": false},
		{"simulated": true, "mine": true, "replaying": true, "move": 0.0, "aim": 0.0, "jump": false, "fire": true, "jump_pressed": false, "fire_pressed": false},
	}
	if len(got) != len(want) {
		t.Fatalf("%d answers, want %d", len(got), len(want))
	}
	for i := range want {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
			t.Errorf("answers %d:\n got %v\nwant %v", i, got[i], want[i])
		}
	}
	if ev := w.events[0]; ev.Entity != id || ev.Tick != w.tick {
		t.Errorf("event from %v at %d", ev.Entity, ev.Tick)
	}
}

func TestReplayTicksOnlySimulated(t *testing.T) {
	src := `
Count = {}
function Count:on_fixed_update(dt) self.n = (self.n or 0) + 1 end
function vkmRegisterBehaviors(r) r.count = Count end
`
	r, w := newTest(t, src)
	mine, other := w.add("mine"), w.add("other")
	attach(t, r, mine, "count")
	attach(t, r, other, "count")
	w.simulates = func(id entity.ID) bool { return id == mine }
	r.FixedUpdate(1.0/64, true)
	r.FixedUpdate(1.0/64, false)
	if a, b := lookupNumber(r, mine, "n"), lookupNumber(r, other, "n"); a != 2 || b != 1 {
		t.Errorf("ticks: mine %v, other %v; want 2, 1", a, b)
	}
}

func TestMovesBody(t *testing.T) {
	src := `
Mover = {}
function Mover:on_start() self:set_position(self.x0, 2) end
function Mover:on_fixed_update(dt)
	local vx, vy = self:velocity()
	self:set_velocity(vx + 1, vy - 10 * dt)
	self:set_angle(self:angle() + 0.5)
	self:set_angular_velocity(3)
	self:apply_impulse(1, 2)
	self:move(5)
	self:jump()
	local x, y = self:position()
	self:set_position(x + 0.25, y)
end
function vkmRegisterBehaviors(r) r.mover = Mover end
`
	r, w := newTest(t, src)
	id := w.add("box")
	w.ents[id.Slot].cc = &entity.CharacterController{}
	if err := r.Attach(id, "mover", map[string]any{"x0": int64(7)}); err != nil {
		t.Fatal(err)
	}
	r.Start(id)
	r.FixedUpdate(0.5, false)
	e := w.ents[id.Slot]
	if e.tr.X != 7.25 || e.tr.Y != 2 || e.tr.Angle != 0.5 {
		t.Errorf("transform %+v", e.tr)
	}
	if e.rb.VX != 1 || e.rb.VY != -5 || e.rb.AngularVelocity != 3 || !e.rb.Awake {
		t.Errorf("body %+v", *e.rb)
	}
	if e.cc.MoveX != 1 || !e.cc.Jump || w.impulse != [2]float64{1, 2} {
		t.Errorf("controller %+v impulse %v", *e.cc, w.impulse)
	}
}

func TestSpawnDestroyAndHandles(t *testing.T) {
	src := `
Spawner = {}
function Spawner:on_fixed_update(dt)
	if vkm.tick() == 1 then
		local a = self:spawn("prefabs/crate.toml", 3, 4, 0.5)
		local b = vkm.find("crate")
		local x, y = a:position()
		self:emit("spawned", {same = (a == b), x = x, y = y, angle = a:angle(), name = a:name(),
			me = (vkm.find("spawner") == self), slot = a:id(), alive = a:alive()})
		self.crate = a
		local list = self:query(2, 3, 4, 5)
		self:emit("query", {n = #list, first = (list[1] == a)})
	elseif vkm.tick() == 2 then
		self.crate:destroy()
		local x = self.crate:position()
		self:emit("destroyed", {alive = self.crate:alive(), pos_nil = (x == nil),
			name_nil = (self.crate:name() == nil), found = (vkm.find("crate") ~= nil)})
		self.crate:set_velocity(1, 1) -- no-op on a dead entity
	elseif vkm.tick() == 3 then
		self:destroy()
		self:emit("after self destroy", {alive = self:alive()})
	end
end
function Spawner:on_destroy() self:emit("spawner destroyed", {}) end
Crate = {}
function Crate:on_start() self:emit("crate started", {}) end
function Crate:on_fixed_update(dt) self:emit("crate ticked", {tick = vkm.tick()}) end
function Crate:on_destroy() self:emit("crate destroyed", {alive = self:alive()}) end
function vkmRegisterBehaviors(r) r.spawner = Spawner; r.crate = Crate end
`
	r, w := newTest(t, src)
	w.prefabs["prefabs/crate.toml"] = "crate"
	sp := w.add("spawner")
	attach(t, r, sp, "spawner")
	for w.tick = 1; w.tick <= 4; w.tick++ {
		r.FixedUpdate(1.0/64, false)
	}
	spawned := w.eventsNamed("spawned")
	if len(spawned) != 1 || fmt.Sprint(spawned[0]) != fmt.Sprint(map[string]any{
		"same": true, "x": 3.0, "y": 4.0, "angle": 0.5, "name": "crate", "me": true, "slot": 2.0, "alive": true}) {
		t.Errorf("spawned: %v", spawned)
	}
	if q := w.eventsNamed("query"); len(q) != 1 || q[0]["n"] != 1.0 || q[0]["first"] != true {
		t.Errorf("query: %v", q)
	}
	// The crate was attached during tick 1's pass: started at once by the
	// prefab's spawn, first ticked at tick 2, then destroyed in tick 2.
	if n := len(w.eventsNamed("crate started")); n != 1 {
		t.Errorf("crate started %d times", n)
	}
	ticked := w.eventsNamed("crate ticked")
	if len(ticked) != 0 {
		t.Errorf("crate ticked %v; the spawner (slot 1) destroys it before its turn at tick 2", ticked)
	}
	if d := w.eventsNamed("crate destroyed"); len(d) != 1 || d[0]["alive"] != true {
		t.Errorf("crate on_destroy: %v", d)
	}
	if d := w.eventsNamed("destroyed"); len(d) != 1 || fmt.Sprint(d[0]) != fmt.Sprint(map[string]any{
		"alive": false, "pos_nil": true, "name_nil": true, "found": false}) {
		t.Errorf("after destroy: %v", d)
	}
	if n := len(w.eventsNamed("spawner destroyed")); n != 1 {
		t.Errorf("spawner on_destroy ran %d times", n)
	}
	if n := len(w.eventsNamed("after self destroy")); n != 0 {
		t.Errorf("emit on a destroyed self recorded %d events", n)
	}
	if r.Errors() != 0 {
		t.Errorf("%d errors", r.Errors())
	}
	if len(r.order) != 0 || len(r.entities) != 0 {
		t.Errorf("left %d instances, %d entities", len(r.order), len(r.entities))
	}
}

func TestAttachDuringPassNotTicked(t *testing.T) {
	src := `
Maker = {}
function Maker:on_fixed_update(dt)
	if not self.made then self.made = self:spawn("prefabs/late.toml", 0, 0) end
end
Late = {}
function Late:on_fixed_update(dt) self:emit("late", {}) end
function vkmRegisterBehaviors(r) r.maker = Maker; r.late = Late end
`
	r, w := newTest(t, src)
	w.prefabs["prefabs/late.toml"] = "late"
	attach(t, r, w.add("maker"), "maker")
	r.FixedUpdate(1.0/64, false)
	if n := len(w.eventsNamed("late")); n != 0 {
		t.Fatalf("instance attached during the pass ticked %d times in it", n)
	}
	r.FixedUpdate(1.0/64, false)
	if n := len(w.eventsNamed("late")); n != 1 {
		t.Errorf("late instance ticked %d times in the next pass, want 1", n)
	}
}

func TestHandlesAndInheritance(t *testing.T) {
	src := `
Base = {}
function Base:greet() return "base " .. self:name() end
Derived = setmetatable({}, {__index = Base})
function Derived:on_fixed_update(dt)
	local other = vkm.find("plain")
	local hit = self:raycast(0, 0, 10, 0)
	self:emit("r", {greet = self:greet(), other_same = (other == vkm.find("plain")),
		hit_same = (hit.entity == other), fraction = hit.fraction, str = tostring(other),
		touching = #self:touching(), parent_nil = (self:parent() == nil)})
end
function vkmRegisterBehaviors(r) r.derived = Derived end
`
	r, w := newTest(t, src)
	id := w.add("hero")
	plain := w.add("plain")
	w.hit = &Hit{Entity: plain, X: 5, Fraction: 0.5, NX: -1}
	attach(t, r, id, "derived")
	r.FixedUpdate(1.0/64, false)
	got := w.eventsNamed("r")
	want := map[string]any{"greet": "base hero", "other_same": true, "hit_same": true, "fraction": 0.5,
		"str": `entity 2#1 "plain"`, "touching": 1.0, "parent_nil": true}
	if len(got) != 1 || fmt.Sprint(got[0]) != fmt.Sprint(want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if r.Errors() != 0 {
		t.Error("errors")
	}
}

func TestAttachRefuses(t *testing.T) {
	src := `
Odd = {on_update = 5}
Ok = {}
function Ok:respawn() end
function vkmRegisterBehaviors(r) r.odd = Odd; r.ok = Ok end
`
	r, w := newTest(t, src)
	id := w.add("a")
	for _, tc := range []struct {
		id    entity.ID
		name  string
		props map[string]any
		want  string
	}{
		{id, "nope", nil, "unknown behavior"},
		{entity.ID{Slot: 9, Gen: 1}, "ok", nil, "not alive"},
		{id, "odd", nil, "on_update is a number"},
		{id, "ok", map[string]any{"_e": 1.0}, "reserved"},
		{id, "ok", map[string]any{"f": func() {}}, "unsupported"},
		{id, "ok", map[string]any{"respawn": 2.0}, `prop "respawn" would hide the method respawn`},
		{id, "ok", map[string]any{"position": 2.0}, `prop "position" would hide the method position`},
	} {
		if err := r.Attach(tc.id, tc.name, tc.props); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "scripting: ") {
			t.Errorf("Attach(%v, %q) = %v, want %q", tc.id, tc.name, err, tc.want)
		}
	}
	attach(t, r, id, "ok")
	if err := r.Attach(id, "ok", nil); err == nil {
		t.Error("attached the same behavior twice")
	}
	if !r.HasBehavior("ok") || r.HasBehavior("nope") || fmt.Sprint(r.BehaviorNames()) != "[odd ok]" {
		t.Errorf("registry: %v", r.BehaviorNames())
	}
}

func TestPropsNestedAndOrdered(t *testing.T) {
	src := `
P = {}
function P:on_start()
	local keys = {}
	for k in pairs(self.cfg) do keys[#keys + 1] = k end
	self:emit("p", {keys = table.concat(keys, ","), speed = self.speed, name = self.label,
		on = self.on, second = self.list[2], deep = self.cfg.b.c})
end
function vkmRegisterBehaviors(r) r.p = P end
`
	r, w := newTest(t, src)
	id := w.add("a")
	props := map[string]any{
		"speed": 2.5, "label": "x", "on": true, "list": []any{int64(1), "two"},
		"cfg": map[string]any{"z": 1, "a": 2, "m": 3, "b": map[string]any{"c": "deep"}},
	}
	if err := r.Attach(id, "p", props); err != nil {
		t.Fatal(err)
	}
	r.Start(id)
	want := map[string]any{"keys": "a,b,m,z", "speed": 2.5, "name": "x", "on": true, "second": "two", "deep": "deep"}
	if got := w.eventsNamed("p"); len(got) != 1 || fmt.Sprint(got[0]) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestRandomDeterministic(t *testing.T) {
	src := `
Roll = {}
function Roll:on_fixed_update(dt)
	self:emit("roll", {a = math.random(), b = math.random(6), c = math.random(-3, 3)})
end
function vkmRegisterBehaviors(r) r.roll = Roll end
rolls = {}
for i = 1, 5 do rolls[i] = math.random(1000000) end
`
	run := func(seed uint64, extraFirst bool) []string {
		r, w, err := tryNew(t, Config{Seed: seed}, src)
		if err != nil {
			t.Fatal(err)
		}
		if extraFirst { // another entity ticked first must not change this one's rolls
			attach(t, r, w.add("first"), "roll")
		} else {
			w.add("first")
		}
		attach(t, r, w.add("roller"), "roll")
		for w.tick = 0; w.tick < 4; w.tick++ {
			r.FixedUpdate(1.0/64, false)
		}
		var out []string
		for _, ev := range w.events {
			if ev.Entity.Slot == 2 {
				out = append(out, fmt.Sprint(ev.Fields))
			}
		}
		return append(out, r.ls.G.Global.RawGetString("rolls").(*lua.LTable).RawGetInt(1).String())
	}
	a, b := run(42, false), run(42, true)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("same seed differs:\n%v\n%v", a, b)
	}
	if c := run(43, false); fmt.Sprint(a) == fmt.Sprint(c) {
		t.Error("different seeds agree")
	}
	if a[0] == a[1] {
		t.Error("two ticks drew the same numbers")
	}
	t.Logf("seed 42: %v", a)
}

func TestRandomRanges(t *testing.T) {
	var g splitmix
	g.rekey(1, 2, 3, 4)
	for i := 0; i < 10000; i++ {
		if f := g.float(); f < 0 || f >= 1 {
			t.Fatalf("float %v", f)
		}
		if n := g.below(6); n >= 6 {
			t.Fatalf("below(6) = %d", n)
		}
	}
	src := `
ok_empty = pcall(math.random, 5, 1)
ok_zero = pcall(math.random, 0)
math.randomseed(7); local a = math.random(1e9)
math.randomseed(7); local b = math.random(1e9)
reseed_same = (a == b)
`
	r, _ := newTest(t, src)
	g2 := r.ls.G.Global
	if g2.RawGetString("ok_empty") != lua.LFalse || g2.RawGetString("ok_zero") != lua.LFalse || g2.RawGetString("reseed_same") != lua.LTrue {
		t.Error("math.random edge cases")
	}
}

func TestUpdateAndStartOrder(t *testing.T) {
	src := `
B = {}
function B:on_start() self:log("start") end
function B:on_update(dt) self:log("update", dt) end
function B:on_fixed_update(dt) self:log("fixed") end
function vkmRegisterBehaviors(r) r.b = B end
`
	r, w := newTest(t, src)
	id := w.add("a")
	attach(t, r, id, "b")
	r.Update(0.25) // not started yet: started first
	r.FixedUpdate(0.5, false)
	r.Start(id) // already started: nothing
	want := "[1:start 1:update 0.25 1:fixed]"
	if fmt.Sprint(w.logs) != want {
		t.Errorf("logs %v, want %v", w.logs, want)
	}
}

func TestOnUpdateCannotChangeTheWorld(t *testing.T) {
	src := `
Drawn = {}
function Drawn:on_update(dt)
	self:set_velocity(1, 0)
end
function vkmRegisterBehaviors(r) r.drawn = Drawn end
`
	r, w := newTest(t, src)
	id := w.add("a")
	attach(t, r, id, "drawn")
	var errs []ScriptError
	r.cfg.OnError = func(e ScriptError) { errs = append(errs, e) }
	r.Update(1.0 / 144)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "on_update is for presentation only") {
		t.Fatalf("errors %v, want set_velocity refused in on_update", errs)
	}
	if rb := w.Rigidbody(id); rb != nil && rb.VX != 0 {
		t.Fatalf("on_update moved the body: %+v", *rb)
	}
}

// TestCallbackNames pins the lifecycle methods' names: scripts define
// them, and errors name the one that failed.
func TestCallbackNames(t *testing.T) {
	want := []string{"on_start", "on_fixed_update", "on_update", "on_destroy", "on_reload", "on_contact"}
	for cb := range numCallbacks {
		if cb.String() != want[cb] {
			t.Errorf("callback %d is %q, want %q", cb, cb.String(), want[cb])
		}
	}
}

// TestMoveInEachMode drives a side-view and a top-down controller with the
// same self:move calls: side view takes x clamped and ignores y; top-down
// takes both, a diagonal scaled to length 1. jump and grounded do not
// fail top-down (the controller ignores the jump and is never grounded),
// and get/set reach move_y and friction.
func TestMoveInEachMode(t *testing.T) {
	src := `
Mover = {}
function Mover:on_fixed_update(dt)
	local m = self.stick
	self:move(m[1], m[2])
	self:jump()
	self:emit("moved", {grounded = self:grounded(), x = self:get("CharacterController", "move_x"),
		y = self:get("CharacterController", "move_y"), friction = self:get("CharacterController", "friction")})
	self:set("CharacterController", "friction", 7)
end
function vkmRegisterBehaviors(r) r.mover = Mover end
`
	tests := []struct {
		name       string
		mode       entity.ControllerMode
		move       []any
		wantX      float64
		wantY      float64
		wantFrict0 float64
	}{
		{"side", entity.SideView, []any{0.5, 1.0}, 0.5, 0, 0},
		{"side clamped", entity.SideView, []any{-3.0, 0.0}, -1, 0, 0},
		{"top-down", entity.TopDown, []any{0.6, -0.8}, 0.6, -0.8, 3},
		{"top-down diagonal", entity.TopDown, []any{1.0, 1.0}, math.Sqrt(0.5), math.Sqrt(0.5), 3},
		{"top-down past the circle", entity.TopDown, []any{-3.0, 4.0}, -0.6, 0.8, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, w := newTest(t, src)
			id := w.add("hero")
			w.ents[id.Slot].cc = &entity.CharacterController{Mode: tc.mode, Friction: tc.wantFrict0}
			if err := r.Attach(id, "mover", map[string]any{"stick": tc.move}); err != nil {
				t.Fatal(err)
			}
			r.Start(id)
			r.FixedUpdate(1.0/64, false)
			c := w.ents[id.Slot].cc
			if math.Abs(c.MoveX-tc.wantX) > 1e-15 || math.Abs(c.MoveY-tc.wantY) > 1e-15 || !c.Jump {
				t.Errorf("intent (%g, %g) jump %v, want (%g, %g) jump true", c.MoveX, c.MoveY, c.Jump, tc.wantX, tc.wantY)
			}
			if c.Friction != 7 {
				t.Errorf("friction %g after set, want 7", c.Friction)
			}
			got := w.eventsNamed("moved")
			if len(got) != 1 || got[0]["grounded"] != false || got[0]["x"] != c.MoveX || got[0]["y"] != c.MoveY || got[0]["friction"] != tc.wantFrict0 {
				t.Errorf("moved %v", got)
			}
		})
	}
}

// TestBudgetFollowsItsClock: with a budget clock, a call is stopped only
// once it has spent its budget on the wall and on that clock too. An
// honest loop that overruns a tiny budget on the wall (its thread, say,
// waited for a core) runs on while the clock says it did no work; a
// runaway is stopped once the clock, advancing with its work, says so.
func TestBudgetFollowsItsClock(t *testing.T) {
	const src = `
Busy = {}
function Busy:on_fixed_update(dt)
	local x = 0
	for i = 1, 20000 do x = x + i end
	self:set_position(x, 0)
end
Spin = {}
function Spin:on_fixed_update(dt)
	while true do end
end
function vkmRegisterBehaviors(r) r.busy = Busy r.spin = Spin end
`
	// A microsecond on the wall is spent at the first check after the
	// first look; the clock below stands still, so nothing is stopped.
	r, w, err := tryNew(t, Config{CallBudget: time.Microsecond, BudgetClock: func() time.Duration { return 0 }}, src)
	if err != nil {
		t.Fatal(err)
	}
	busy := w.add("busy")
	attach(t, r, busy, "busy")
	r.FixedUpdate(1.0/64, false)
	if r.Errors() != 0 || w.ent(busy).tr.X != 200010000 {
		t.Fatalf("an honest call past the wall's budget was stopped: %d errors, x %v", r.Errors(), w.ent(busy).tr.X)
	}

	// The clock gains 10 µs at every look it is asked for: the runaway
	// reaches a 50 ms budget on it; the honest loop, over in a few looks,
	// does not reach it on the wall.
	var work time.Duration
	r, w, err = tryNew(t, Config{CallBudget: 50 * time.Millisecond, BudgetClock: func() time.Duration {
		work += 10 * time.Microsecond
		return work
	}}, src)
	if err != nil {
		t.Fatal(err)
	}
	busy, spin := w.add("busy"), w.add("spin")
	attach(t, r, busy, "busy")
	attach(t, r, spin, "spin")
	r.FixedUpdate(1.0/64, false)
	if r.Errors() != 1 {
		t.Fatalf("%d errors, want only the runaway's", r.Errors())
	}
	if x := w.ent(busy).tr.X; x != 200010000 {
		t.Fatalf("the honest call did not finish: x %v", x)
	}
}

// TestOwnMethodsWinOverTheEngines checks what a behavior finds for a name
// the engine also answers to, now that a registered class holds the
// engine's methods itself: its own method, an inherited one and one it
// defines after registration win; a class whose chain ends in an __index
// function keeps asking that function; a class registered twice (kept
// across a reload) asks its chain again.
func TestOwnMethodsWinOverTheEngines(t *testing.T) {
	src := `
Own = {}
function Own:name() return "own" end
Base = {}
function Base:name() return "base" end
Heir = setmetatable({}, {__index = Base})
Late = {}
Asked = setmetatable({}, {__index = function(t, k)
	if k == "name" then return function() return "asked" end end
	return Own[k]
end})
Moved = {}
local function report(self) self:emit("n", {name = self:name()}) end
for _, c in ipairs({Own, Heir, Late, Asked, Moved}) do c.on_fixed_update = report end
function vkmRegisterBehaviors(r)
	r.own, r.heir, r.late, r.asked, r.moved = Own, Heir, Late, Asked, Moved
	function Late:name() return "late" end
	setmetatable(Moved, {__index = Base}) -- after its first registration
	r:register("moved_again", Moved)
end
`
	r, w := newTest(t, src)
	for _, b := range []string{"own", "heir", "late", "asked", "moved_again"} {
		attach(t, r, w.add(b), b)
	}
	r.FixedUpdate(1.0/64, false)
	var got []string
	for _, ev := range w.eventsNamed("n") {
		got = append(got, fmt.Sprint(ev["name"]))
	}
	if want := "[own base late asked base]"; fmt.Sprint(got) != want {
		t.Errorf("names %v, want %s", got, want)
	}
	if r.Errors() != 0 {
		t.Error("errors")
	}
}

// TestSelfAfterANestedCallback checks that a method called on self after
// a callback of another entity ran inside this one (on_destroy, from
// other:destroy()) acts on self, and one called on the other's handle on
// the other.
func TestSelfAfterANestedCallback(t *testing.T) {
	src := `
Victim = {}
function Victim:on_destroy() self:emit("gone", {id = self:id()}) end
Killer = {}
function Killer:on_fixed_update(dt)
	local v = vkm.find("victim")
	local before = v:id()
	v:destroy()
	self:emit("after", {own = self:id(), other = before, name = self:name()})
end
function vkmRegisterBehaviors(r) r.victim, r.killer = Victim, Killer end
`
	r, w := newTest(t, src)
	victim, killer := w.add("victim"), w.add("killer")
	attach(t, r, victim, "victim")
	attach(t, r, killer, "killer")
	r.Start(victim)
	r.FixedUpdate(1.0/64, false)
	gone, after := w.eventsNamed("gone"), w.eventsNamed("after")
	if len(gone) != 1 || gone[0]["id"] != float64(victim.Slot) {
		t.Errorf("on_destroy saw %v, want id %d", gone, victim.Slot)
	}
	if len(after) != 1 || after[0]["own"] != float64(killer.Slot) || after[0]["name"] != "killer" || after[0]["other"] != float64(victim.Slot) {
		t.Errorf("after the nested call: %v, want own %d, other %d", after, killer.Slot, victim.Slot)
	}
}

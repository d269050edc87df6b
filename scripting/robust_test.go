package scripting

import (
	"strings"
	"testing"
	"time"
)

func TestDeadEntityMethodsAreNil(t *testing.T) {
	src := `
T = {}
function T:on_fixed_update(dt)
	local crate = self:spawn("prefabs/crate.toml", 0, 0)
	crate:destroy()
	local api = getmetatable(T).__index
	local bad, n = {}, 0
	for name, fn in pairs(api) do
		n = n + 1
		local a, b = fn(crate, 1, 2, 3, 4)
		if name == "alive" then
			if a ~= false then bad[#bad + 1] = name end
		elseif a ~= nil or b ~= nil then
			bad[#bad + 1] = name
		end
	end
	self:emit("dead", {bad = table.concat(bad, ","), n = n})
end
function vkmRegisterBehaviors(r) r.t = T end
`
	r, w := newTest(t, src)
	w.prefabs["prefabs/crate.toml"] = ""
	attach(t, r, w.add("t"), "t")
	r.FixedUpdate(1.0/64, false)
	got := w.eventsNamed("dead")
	if r.Errors() != 0 || len(got) != 1 || got[0]["bad"] != "" {
		t.Fatalf("errors %d, events %v", r.Errors(), got)
	}
	if n := got[0]["n"].(float64); n != 58 {
		t.Errorf("api has %v methods, want 58", n)
	}
}

func TestInstanceOfVanishedEntityDropped(t *testing.T) {
	src := `
C = {}
function C:on_fixed_update(dt) self:log("tick") end
function C:on_destroy() self:log("destroy") end
function vkmRegisterBehaviors(r) r.c = C end
`
	r, w := newTest(t, src)
	id := w.add("a")
	attach(t, r, id, "c")
	r.FixedUpdate(1.0/64, false)
	w.ents[id.Slot] = nil // gone without Detach
	r.FixedUpdate(1.0/64, false)
	r.FixedUpdate(1.0/64, false)
	if len(w.logs) != 1 || len(r.order) != 0 || len(r.entities) != 0 {
		t.Errorf("logs %v, %d instances, %d entities left", w.logs, len(r.order), len(r.entities))
	}
}

func TestSetupRunawayStopped(t *testing.T) {
	src := "function vkmBuildScene(scene)\n\twhile true do end\nend\n"
	r, _, err := tryNew(t, Config{SetupBudget: 20 * time.Millisecond}, src)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = r.BuildScene()
	var se *ScriptError
	if err == nil || !strings.Contains(err.Error(), "scripts/main.lua:2") || !asScriptError(err, &se) || !se.Runaway {
		t.Fatalf("err = %v", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("took %v", took)
	}
	// The state is usable again.
	if _, err := r.SetupNetwork(); err != nil {
		t.Errorf("after a runaway: %v", err)
	}
}

func asScriptError(err error, se **ScriptError) bool {
	s, ok := err.(*ScriptError)
	*se = s
	return ok
}

// FuzzNew loads arbitrary text as the entry script: whatever it is, New
// returns a runtime or an error, and never panics or hangs.
func FuzzNew(f *testing.F) {
	for _, seed := range []string{
		"", "x =", "function vkmRegisterBehaviors(r) r.a = {} end",
		"while true do end", "error({})", "return string.rep('x', 1e9)",
		"local t = setmetatable({}, {__index = function() error('x') end}) function vkmRegisterBehaviors(r) r.a = t end",
		"goto nowhere", "function vkmRegisterBehaviors(r) r[1] = 2 end", "import('../x.lua')",
		"local function f() return f() end f()", "local function f() f() end f()",
		"setmetatable(_G, {__index = function() error('boom') end})",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		r, w, err := tryNew(t, Config{SetupBudget: 20 * time.Millisecond, CallBudget: 5 * time.Millisecond}, src)
		if err != nil {
			return
		}
		r.SetupNetwork()
		r.BuildScene()
		for _, name := range r.BehaviorNames() {
			id := w.add(name)
			if r.Attach(id, name, nil) == nil {
				r.Start(id)
			}
		}
		r.FixedUpdate(1.0/64, false)
		r.Update(1.0 / 60)
	})
}

package scripting

import (
	"fmt"
	"testing"
	"time"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// TestRunawaysOfEveryKindStopped: the VM looks at the budget only at its
// checkpoints (checkpoints.go), so every way Lua code can run without end
// must meet one: a backward jump of each loop statement, a for loop's
// rounds, a tail call that never returns, and a call tree that grows
// without bound while its depth stays small. Each is stopped as a runaway
// from the line it spins on, and the behaviors around it run.
func TestRunawaysOfEveryKindStopped(t *testing.T) {
	cases := []struct{ name, body string }{
		{"while", "while true do end -- RUNAWAY"},
		{"repeat", "local n = 0\n\trepeat n = n + 1 until false -- RUNAWAY"},
		{"numeric for", "local n = 0\n\tfor i = 1, math.huge do n = n + i end -- RUNAWAY"},
		{"generic for", "for i in function(_, i) return i + 1 end, nil, 0 do end -- RUNAWAY"},
		{"goto", "::again:: goto again -- RUNAWAY"},
		{"tail call", "local function f(n) return f(n + 1) end -- RUNAWAY\n\tf(0)"},
		{"call tree", "local function f(n) if n > 0 then f(n - 1) f(n - 1) end end -- RUNAWAY\n\tf(100)"},
		{"pcall trap", "while true do pcall(function() while true do end end) end -- RUNAWAY"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf(`
Spin = {}
function Spin:on_fixed_update(dt)
	%s
end
Count = {}
function Count:on_fixed_update(dt)
	self.n = (self.n or 0) + 1
	self:set_position(self.n, 0)
end
function vkmRegisterBehaviors(r) r.spin = Spin r.count = Count end
`, tc.body)
			var got []ScriptError
			r, w, err := tryNew(t, Config{CallBudget: 20 * time.Millisecond, OnError: func(e ScriptError) { got = append(got, e) }}, src)
			if err != nil {
				t.Fatal(err)
			}
			before, spin, after := w.add("before"), w.add("spinner"), w.add("after")
			attach(t, r, before, "count")
			attach(t, r, spin, "spin")
			attach(t, r, after, "count")
			r.FixedUpdate(1.0/64, false)
			if len(got) != 1 || !got[0].Runaway || got[0].Entity != spin {
				t.Fatalf("reports %+v, want one runaway of %v", got, spin)
			}
			if want := fmt.Sprintf("scripts/main.lua:%d", lineOf(t, src, "RUNAWAY")); got[0].Where != want {
				t.Errorf("stopped at %s, want %s", got[0].Where, want)
			}
			if x, y := w.ent(before).tr.X, w.ent(after).tr.X; x != 1 || y != 1 {
				t.Errorf("the behaviors around it moved to %v and %v, want 1", x, y)
			}
		})
	}
}

// TestACallbackGoMakesIsStopped: a function string.gsub calls for each
// match neither loops nor calls, and Go, not a call instruction, runs it; a
// megabyte's worth of matches runs far past the budget. It is stopped in
// the middle of the gsub, by the look at its returns, rather than when the
// gsub is done.
func TestACallbackGoMakesIsStopped(t *testing.T) {
	const size = 1 << 20
	src := fmt.Sprintf(`
N = 0
Spin = {}
function Spin:on_fixed_update(dt)
	local s = string.rep("a", %d)
	s:gsub(".", function(c) N = N + 1 end)
end
function vkmRegisterBehaviors(r) r.spin = Spin end
`, size)
	var got []ScriptError
	r, w, err := tryNew(t, Config{CallBudget: 20 * time.Millisecond, OnError: func(e ScriptError) { got = append(got, e) }}, src)
	if err != nil {
		t.Fatal(err)
	}
	spin := w.add("spinner")
	attach(t, r, spin, "spin")
	r.FixedUpdate(1.0/64, false)
	if len(got) != 1 || !got[0].Runaway {
		t.Fatalf("reports %+v, want one runaway", got)
	}
	if n := int(r.ls.GetGlobal("N").(lua.LNumber)); n >= size {
		t.Errorf("the gsub ran all its %d callbacks before it was stopped", n)
	}
}

// TestStatesRunWithoutTheLookPerInstruction: a runtime's Lua state keeps
// its watchdog as its context but runs the VM's loop that does not ask it
// before every instruction.
func TestStatesRunWithoutTheLookPerInstruction(t *testing.T) {
	r, _ := newTest(t, "")
	off, plain := loopField()
	if plain == nil {
		t.Fatal("gopher-lua's LState has no mainLoop field of the expected type")
	}
	if r.ls.Context() != r.dog {
		t.Errorf("the state's context is %v, want its watchdog", r.ls.Context())
	}
	if loop := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(r.ls), off)); loop != plain {
		t.Error("the state runs the VM's loop that looks at its context before every instruction")
	}
	for op, run := range luaJumpTable {
		if run == nil {
			t.Fatalf("gopher-lua's handler table, linked here, has no handler for op %d", op)
		}
	}
}

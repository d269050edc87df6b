package scripting

import (
	"fmt"
	"testing"
)

const missingSrc = `
Probe = {}
function Probe:respawn() end
function Probe:on_fixed_update(dt)
	self:emit("fields", {unset = (self.target == nil), branch = (function()
		if self.target then return "taken" end
		return "skipped"
	end)(), mt = tostring(getmetatable(nil))})
	local step = vkm.tick()
	if step == 1 then self:comand() end -- TYPO
	if step == 2 then self:respwan() end -- OWN
	if step == 3 then vkm.find("plain"):velocty() end -- HANDLE
	if step == 4 then self:xyzzy() end -- FAR
	if step == 5 then nofunc() end -- GLOBAL
	if step == 6 then local t = {} t:go() end -- TABLE
	if step == 7 then local ok, err = pcall(self.comand, self) error(err, 0) end -- PCALL
end
function vkmRegisterBehaviors(r) r.probe = Probe end
`

// TestCallingAMissingMethodNamesIt calls, one tick each, a method with a
// typo in an engine name, in a behavior's own name, on a plain handle, a
// name nothing is near, a nil global and a missing method of a plain table.
// Each fails at its line, naming what was called; reading an unset field
// still gives nil and getmetatable(nil) gives nothing away.
func TestCallingAMissingMethodNamesIt(t *testing.T) {
	cases := []struct{ marker, msg string }{
		{"TYPO", "entity has no method `comand`; did you mean `command`?"},
		{"OWN", "entity has no method `respwan`; did you mean `respawn`?"},
		{"HANDLE", "entity has no method `velocty`; did you mean `velocity`?"},
		{"FAR", "entity has no method `xyzzy`"},
		{"GLOBAL", "attempt to call nofunc, which is nil"},
		{"TABLE", "attempt to call go, which is nil"},
		{"PCALL", "attempt to call a nil value"},
	}
	for i, c := range cases {
		t.Run(c.marker, func(t *testing.T) {
			var got []ScriptError
			r, w, err := tryNew(t, Config{OnError: func(e ScriptError) { got = append(got, e) }}, missingSrc)
			if err != nil {
				t.Fatal(err)
			}
			attach(t, r, w.add("probe"), "probe")
			w.add("plain")
			w.tick = uint32(i + 1)
			r.FixedUpdate(1.0/64, false)
			where := fmt.Sprintf("scripts/main.lua:%d", lineOf(t, missingSrc, c.marker))
			if len(got) != 1 || got[0].Where != where || got[0].Message != c.msg {
				t.Fatalf("reports %+v\nwant one at %s: %s", got, where, c.msg)
			}
			want := map[string]any{"unset": true, "branch": "skipped", "mt": "false"}
			if ev := w.eventsNamed("fields"); len(ev) != 1 || fmt.Sprint(ev[0]) != fmt.Sprint(want) {
				t.Errorf("fields %v, want %v", ev, want)
			}
		})
	}
}

func TestNearestName(t *testing.T) {
	names := []string{"command", "comment", "id", "position", "set_position"}
	for name, want := range map[string]string{
		"comand": "command", "positon": "position", "set_positon": "set_position",
		"ix": "id", "zzz": "", "commen": "comment", "commend": "command",
	} {
		if got := nearestName(name, names); got != want {
			t.Errorf("nearestName(%q) = %q, want %q", name, got, want)
		}
	}
}

package scripting

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

const freshSrc = `
function vkmSetupNetwork(net)
	net.component("Shot", { {"tick", net.int(0, 4294967295)}, {"on", net.bool} })
end
-- Show presents each shot whose cause it has not shown yet.
Show = {}
function Show:on_update(dt)
	local t = self:fresh("Shot", "tick")
	if t then self:emit("shown", {tick = t}) end
	if self:fresh("Shot", "on") then self:emit("on") end
end
Misuse = {}
function Misuse:on_update(dt)
	local step = misuse_step or 0
	misuse_step = step + 1
	if step == 0 then self:fresh("Transform", "x") end -- ENGINE
	if step == 1 then self:fresh("Shot", "nope") end -- FIELD
end
function vkmRegisterBehaviors(r) r.show = Show r.misuse = Misuse end
`

// TestFreshPresentsEachCauseOnce sets a shot's tick as snapshots and
// replays would: forward, back (a prediction the server took back), the
// same again (a correction that agreed), and on. Each tick above the ones
// seen is shown once; what stood in the field when the entity was first
// looked at is not shown at all.
func TestFreshPresentsEachCauseOnce(t *testing.T) {
	r, w, err := tryNew(t, Config{}, freshSrc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	typ := r.Schema().Index("Shot")
	id := w.add("walker")
	w.AddComponent(id, typ)[0] = 7 // fired before this end looked
	attach(t, r, id, "show")
	for _, v := range []float64{7, 7, 12, 12, 9, 12, 30, 30, 31} {
		w.Component(id, typ)[0] = v
		r.Update(1.0 / 60)
	}
	var got []float64
	for _, ev := range w.eventsNamed("shown") {
		got = append(got, ev["tick"].(float64))
	}
	if want := []float64{12, 30, 31}; !slices.Equal(got, want) || r.Errors() != 0 {
		t.Errorf("shown %v (%d errors), want %v", got, r.Errors(), want)
	}
	// A boolean is news when it turns true, once.
	for _, on := range []float64{1, 0, 1} {
		w.Component(id, typ)[1] = on
		r.Update(1.0 / 60)
	}
	if n := len(w.eventsNamed("on")); n != 1 {
		t.Errorf("on shown %d times, want 1", n)
	}
}

// TestFreshMemoryIsPerEntity: a new entity in a slot an old one had, and a
// second entity, each start from what they hold.
func TestFreshMemoryIsPerEntity(t *testing.T) {
	r, w, err := tryNew(t, Config{}, freshSrc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	typ := r.Schema().Index("Shot")
	a, b := w.add("a"), w.add("b")
	w.AddComponent(a, typ)
	w.AddComponent(b, typ)
	attach(t, r, a, "show")
	attach(t, r, b, "show")
	r.Update(1.0 / 60)
	w.Component(a, typ)[0] = 5
	r.Update(1.0 / 60)
	if got := w.eventsNamed("shown"); len(got) != 1 || fmt.Sprint(got[0]["tick"]) != "5" {
		t.Errorf("shown %v, want one shot at 5 (a's)", got)
	}
}

func TestFreshRefusesWhatItCannotWatch(t *testing.T) {
	var errs []ScriptError
	r, w, err := tryNew(t, Config{OnError: func(e ScriptError) { errs = append(errs, e) }}, freshSrc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		id := w.add("m")
		w.AddComponent(id, r.Schema().Index("Shot"))
		attach(t, r, id, "misuse")
	}
	r.Update(1.0 / 60)
	r.Update(1.0 / 60)
	if len(errs) != 2 {
		t.Fatalf("errors %v, want 2", errs)
	}
	for i, want := range []string{"engine component", "has no field nope"} {
		if !strings.Contains(errs[i].Error(), want) {
			t.Errorf("error %d %q does not say %q", i, errs[i].Error(), want)
		}
	}
}

package scripting

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/replication"
)

const timersSrc = `
function vkmSetupNetwork(net)
	net.component("Gun", { {"next", net.int(0, 4294967295)}, {"shots", net.int(0, 1000)} })
	net.component("Coin", {})
end
Clock = {}
function Clock:on_fixed_update(dt)
	self:emit("clock", {after = vkm.after(0.3), zero = vkm.after(0), tick = vkm.after(0.1),
		seconds = vkm.seconds(3)})
end
-- Gun fires while fire is held, at most once every 0.25 s: its deadline is
-- in a component field. Local keeps the same rule in a field of self.
Gun = {}
function Gun:on_fixed_update(dt)
	if self:command().held.fire and self:cooldown("Gun", "next", 0.25) then
		self:set("Gun", "shots", self:get("Gun", "shots") + 1)
		self:emit("shot", {tick = vkm.tick(), left = self:remaining("Gun", "next")})
	end
end
Local = {}
function Local:on_fixed_update(dt)
	if self:command().held.fire and vkm.tick() >= (self.ready_at or 0) then
		self.ready_at = vkm.after(0.25)
		self:emit("local shot", {tick = vkm.tick()})
	end
end
Misuse = {}
function Misuse:on_fixed_update(dt)
	local step = vkm.tick()
	if step == 1 then self:cooldown("Gun", "shots", 1) end -- NARROW
	if step == 2 then self:cooldown("Transform", "x", 1) end -- ENGINE
	if step == 3 then self:cooldown("Gun", "next", 1) end -- ABSENT
	if step == 4 then self:cooldown("Gun", "next", -1) end -- NEGATIVE
end
function Misuse:on_update(dt) self:cooldown("Gun", "next", 1) end -- UPDATE
function vkmRegisterBehaviors(r) r.clock = Clock r.gun = Gun r["local"] = Local r.misuse = Misuse end
`

func timersTest(t *testing.T, rate int) (*Runtime, *fakeWorld, *[]ScriptError) {
	t.Helper()
	var errs []ScriptError
	r, w, err := tryNew(t, Config{TickRate: rate, OnError: func(e ScriptError) { errs = append(errs, e) }}, timersSrc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	return r, w, &errs
}

func TestAfterAndSeconds(t *testing.T) {
	r, w, _ := timersTest(t, 10)
	attach(t, r, w.add("c"), "clock")
	w.tick = 5
	r.FixedUpdate(0.1, false)
	// 0.3 s at 10 Hz is 3 ticks, though 0.3 × 10 is a hair above 3.
	want := map[string]any{"after": 8.0, "zero": 5.0, "tick": 6.0, "seconds": 0.3}
	if got := w.eventsNamed("clock"); r.Errors() != 0 || len(got) != 1 || fmt.Sprint(got[0]) != fmt.Sprint(want) {
		t.Errorf("got %v (%d errors), want %v", got, r.Errors(), want)
	}
}

// TestCooldownLimitsTheRate holds fire for a second at 64 Hz: a 0.25 s
// cooldown lets a shot through every 16 ticks, the first at once.
func TestCooldownLimitsTheRate(t *testing.T) {
	r, w, errs := timersTest(t, 64)
	id := w.add("gun")
	w.AddComponent(id, r.Schema().Index("Gun"))
	attach(t, r, id, "gun")
	w.command = &prediction.Command{Held: 1 << 1} // fire is button 2
	for range 64 {
		w.tick++
		r.FixedUpdate(1.0/64, false)
	}
	var ticks []float64
	for _, ev := range w.eventsNamed("shot") {
		ticks = append(ticks, ev["tick"].(float64))
		if ev["left"] != 0.25 {
			t.Errorf("remaining right after a shot = %v, want 0.25", ev["left"])
		}
	}
	if len(*errs) != 0 || !slices.Equal(ticks, []float64{1, 17, 33, 49}) {
		t.Errorf("shots at ticks %v (errors %v), want 1, 17, 33, 49", ticks, *errs)
	}
}

// TestCooldownReplaysExactly runs a gun on a varying fire button for 80
// ticks, then does what a client does after a correction: it puts the
// components back as they were after tick 20 and runs ticks 21..80 again
// on the same commands. The gun whose deadline lives in a component fires
// at the same ticks and ends with the same fields; the one that keeps its
// deadline in a field of self remembers the first run and does not.
func TestCooldownReplaysExactly(t *testing.T) {
	r, w, errs := timersTest(t, 64)
	gun, local := w.add("gun"), w.add("local")
	typ := r.Schema().Index("Gun")
	w.AddComponent(gun, typ)
	attach(t, r, gun, "gun")
	attach(t, r, local, "local")
	fire := func(tick uint32) *prediction.Command {
		if (tick*7)%5 < 3 { // held three ticks in five, in a pattern
			return &prediction.Command{Held: 1 << 1}
		}
		return &prediction.Command{}
	}
	shotsFrom := func(name string, from float64) []float64 {
		var out []float64
		for _, ev := range w.eventsNamed(name) {
			if tk := ev["tick"].(float64); tk >= from {
				out = append(out, tk)
			}
		}
		return out
	}
	run := func(from, to uint32, replaying bool) {
		for tk := from; tk <= to; tk++ {
			w.tick, w.command, w.replaying = tk, fire(tk), replaying
			r.FixedUpdate(1.0/64, replaying)
		}
	}
	run(1, 20, false)
	saved := slices.Clone(w.Component(gun, typ))
	run(21, 80, false)
	first, firstLocal := shotsFrom("shot", 21), shotsFrom("local shot", 21)
	end := slices.Clone(w.Component(gun, typ))

	w.events = nil
	copy(w.Component(gun, typ), saved) // the component state after tick 20
	run(21, 80, true)
	again, againLocal := shotsFrom("shot", 21), shotsFrom("local shot", 21)
	t.Logf("component gun: first run %v, replay %v; self-field gun: first run %v, replay %v",
		first, again, firstLocal, againLocal)
	if len(*errs) != 0 || len(first) < 3 || !slices.Equal(first, again) || !slices.Equal(end, w.Component(gun, typ)) {
		t.Fatalf("replay fired at %v ending with %v, first run at %v ending with %v (errors %v)",
			again, w.Component(gun, typ), first, end, *errs)
	}
	if slices.Equal(firstLocal, againLocal) {
		t.Errorf("the self-field gun replayed exactly (%v): the test no longer shows why a field of self is not replay-safe", againLocal)
	}
}

// TestDeadlinesCountOnTheEntitysClock gives one entity a clock of its own,
// as a server does for a player's character (the client ticks of its
// commands): its deadline is counted on that clock, not on the server's.
func TestDeadlinesCountOnTheEntitysClock(t *testing.T) {
	r, w, _ := timersTest(t, 64)
	driven, plain := w.add("driven"), w.add("plain")
	typ := r.Schema().Index("Gun")
	w.AddComponent(driven, typ)
	w.AddComponent(plain, typ)
	attach(t, r, driven, "gun")
	attach(t, r, plain, "gun")
	w.roll = map[entity.ID]uint32{driven: 1000}
	w.tick = 5
	w.command = &prediction.Command{Held: 1 << 1}
	r.FixedUpdate(1.0/64, false)
	if d, p := w.Component(driven, typ)[0], w.Component(plain, typ)[0]; d != 1016 || p != 21 {
		t.Errorf("deadlines %v (driven) and %v (plain), want 1016 and 21", d, p)
	}
}

func TestCooldownRefuses(t *testing.T) {
	cases := []struct{ marker, msg string }{
		{"NARROW", "cooldown Gun.shots cannot hold a tick number exactly (declare it net.int(0, 4294967295))"},
		{"ENGINE", "Transform is an engine component"},
		{"ABSENT", "has no Gun (add it first with self:add)"},
		{"NEGATIVE", "seconds must be zero or more"},
	}
	for i, c := range cases {
		t.Run(c.marker, func(t *testing.T) {
			r, w, errs := timersTest(t, 64)
			id := w.add("m")
			if c.marker != "ABSENT" {
				w.AddComponent(id, r.Schema().Index("Gun"))
			}
			attach(t, r, id, "misuse")
			w.tick = uint32(i + 1)
			r.FixedUpdate(1.0/64, false)
			where := fmt.Sprintf("scripts/main.lua:%d", lineOf(t, timersSrc, c.marker))
			if len(*errs) != 1 || (*errs)[0].Where != where || !strings.Contains((*errs)[0].Message, c.msg) {
				t.Fatalf("reports %+v\nwant one at %s: %s", *errs, where, c.msg)
			}
		})
	}
	t.Run("UPDATE", func(t *testing.T) {
		r, w, errs := timersTest(t, 64)
		id := w.add("m")
		w.AddComponent(id, r.Schema().Index("Gun"))
		attach(t, r, id, "misuse")
		r.Update(0.016)
		if len(*errs) != 1 || !strings.Contains((*errs)[0].Message, "on_update is for presentation only") {
			t.Fatalf("reports %+v, want cooldown refused in on_update", *errs)
		}
	})
}

// TestDeadlineCrossesTheWire writes a Gun whose deadline is the largest
// tick, and a Coin tag, into a snapshot and reads them back: the deadline
// arrives exact and the tag arrives as presence.
func TestDeadlineCrossesTheWire(t *testing.T) {
	r, _, _ := timersTest(t, 64)
	s := r.Schema()
	gun, coin := s.Index("Gun"), s.Index("Coin")
	id := entity.ID{Slot: 5, Gen: 2}
	for _, deadline := range []float64{math.MaxUint32, 1 << 31, 123457, 1} {
		round := replication.NewRound(s)
		round.Begin(9)
		round.Entity(id, replication.Described)
		round.Transform(entity.Identity)
		if err := round.Project(gun, entity.Values{deadline, 3}); err != nil {
			t.Fatal(err)
		}
		if err := round.Project(coin, entity.Values{}); err != nil {
			t.Fatal(err)
		}
		payload := replication.NewPeer(s).Write(nil, round, entity.None, 1178)
		var sn replication.Snapshot
		if err := sn.Decode(s, payload, replication.Refs{}); err != nil {
			t.Fatal(err)
		}
		if len(sn.Entries) != 1 || sn.Entries[0].ID != id {
			t.Fatalf("entries %+v", sn.Entries)
		}
		e := &sn.Entries[0]
		var got entity.Values
		for _, ch := range e.Changes {
			if ch.Type == replication.EngineTypes+gun {
				got = ch.Values
			}
		}
		if len(got) != 2 || got[0] != deadline || got[1] != 3 || !e.Has(replication.EngineTypes+coin) {
			t.Errorf("deadline %v came back as %v; coin carried %v", deadline, got, e.Has(replication.EngineTypes+coin))
		}
	}
}

package scripting

import (
	"fmt"
	"strings"
	"testing"

	"vkm/internal/entity"
)

const kindsSrc = `
function vkmSetupNetwork(net)
	net.component("Coin", {})
	net.component("Health", { {"hp", net.int(0, 100)} })
end
Counter = {}
function Counter:on_fixed_update(dt)
	local coins, named = {}, {}
	for e in vkm.each("Coin") do coins[#coins + 1] = e:id() end
	for e in vkm.named("gem") do named[#named + 1] = e:id() end
	local bodies = 0
	for e in vkm.each("Rigidbody") do bodies = bodies + 1 end
	self:emit("walk", {coins = table.concat(coins, ","), named = table.concat(named, ","),
		count = vkm.count("Coin"), all = vkm.count("Transform"), bodies = bodies,
		health = vkm.count("Health"), tagged = vkm.find("bare"):has("Coin")})
end
Churn = {}
function Churn:on_fixed_update(dt)
	local seen = {}
	for e in vkm.each("Coin") do
		seen[#seen + 1] = e:id()
		if e:id() == 4 then
			vkm.find("late"):destroy()             -- ahead of the walk: not visited
			local made = self:spawn("prefabs/coin.toml", 0, 0)
			made:add("Coin")                       -- a slot above the walk: visited
			e:destroy()                            -- the current one: the walk goes on
		end
	end
	self:emit("churn", {seen = table.concat(seen, ",")})
end
Bad = {}
function Bad:on_fixed_update(dt)
	for e in vkm.each("Coins") do end -- TYPO
end
function vkmRegisterBehaviors(r) r.counter = Counter r.churn = Churn r.bad = Bad end
`

// kindsWorld builds slots 1..6: counter, a gem coin without a body, a
// plain gem, a coin named bare (a tag, no fields), a coin with Health, and
// one called late with a coin.
func kindsWorld(t *testing.T, driver string) (*Runtime, *fakeWorld, []entity.ID) {
	t.Helper()
	r, w := newTest(t, kindsSrc)
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	coin, health := r.Schema().Index("Coin"), r.Schema().Index("Health")
	ids := []entity.ID{w.add("counter"), w.add("gem"), w.add("gem"), w.add("bare"), w.add("gem"), w.add("late")}
	w.ent(ids[1]).rb = nil
	for _, i := range []int{1, 3, 4, 5} {
		w.AddComponent(ids[i], coin)
	}
	w.AddComponent(ids[4], health)
	w.prefabs["prefabs/coin.toml"] = ""
	attach(t, r, ids[0], driver)
	return r, w, ids
}

func TestEachNamedAndCountWalkInSlotOrder(t *testing.T) {
	r, w, _ := kindsWorld(t, "counter")
	r.FixedUpdate(1.0/64, false)
	if r.Errors() != 0 {
		t.Fatalf("%d script errors", r.Errors())
	}
	want := map[string]any{"coins": "2,4,5,6", "named": "2,3,5", "count": 4.0, "all": 6.0,
		"bodies": 5.0, "health": 1.0, "tagged": true}
	if got := w.eventsNamed("walk"); len(got) != 1 || fmt.Sprint(got[0]) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// TestEachWhileTheWorldChanges destroys and spawns from inside a walk: it
// goes on from the slot after the last entity it returned, so one removed
// ahead of it is skipped, one made in a slot ahead of it is visited, and
// destroying the current one does not stop it.
func TestEachWhileTheWorldChanges(t *testing.T) {
	r, w, _ := kindsWorld(t, "churn")
	r.FixedUpdate(1.0/64, false)
	if r.Errors() != 0 {
		t.Fatalf("%d script errors", r.Errors())
	}
	if got := w.eventsNamed("churn"); len(got) != 1 || got[0]["seen"] != "2,4,5,7" {
		t.Errorf("visited %v, want 2,4,5,7 (6 destroyed ahead of the walk, 7 spawned ahead of it)", got)
	}
}

func TestEachUnknownTypeNamesLine(t *testing.T) {
	var got []ScriptError
	r, w, err := tryNew(t, Config{OnError: func(e ScriptError) { got = append(got, e) }}, kindsSrc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	attach(t, r, w.add("bad"), "bad")
	r.FixedUpdate(1.0/64, false)
	where := fmt.Sprintf("scripts/main.lua:%d", lineOf(t, kindsSrc, "TYPO"))
	if len(got) != 1 || got[0].Where != where || !strings.Contains(got[0].Message, "unknown component type Coins") {
		t.Fatalf("reports %+v, want one at %s naming Coins", got, where)
	}
}

// TestEmptyComponentIsATag checks that a type with no fields is carried
// as presence alone: added, asked about, counted and removed like any.
func TestEmptyComponentIsATag(t *testing.T) {
	src := `
function vkmSetupNetwork(net) net.component("Coin", {}) end
T = {}
function T:on_fixed_update(dt)
	local before = self:has("Coin")
	self:add("Coin")
	local after, n = self:has("Coin"), vkm.count("Coin")
	local copy = self:component("Coin")
	self:remove("Coin")
	self:emit("tag", {before = before, after = after, n = n, copy = type(copy), gone = not self:has("Coin")})
end
function vkmRegisterBehaviors(r) r.t = T end
`
	r, w := newTest(t, src)
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	attach(t, r, w.add("a"), "t")
	r.FixedUpdate(1.0/64, false)
	want := map[string]any{"before": false, "after": true, "n": 1.0, "copy": "table", "gone": true}
	if got := w.eventsNamed("tag"); r.Errors() != 0 || len(got) != 1 || fmt.Sprint(got[0]) != fmt.Sprint(want) {
		t.Errorf("got %v (%d errors), want %v", got, r.Errors(), want)
	}
}

const eachBenchSrc = `
function vkmSetupNetwork(net) net.component("Coin", {}) end
Walker = {}
function Walker:on_fixed_update(dt)
	local last
	for e in vkm.each("Coin") do last = e end
	for e in vkm.named("coin") do last = e end
	self.last = last
	self.n = vkm.count("Coin")
end
function vkmRegisterBehaviors(r) r.walker = Walker end
`

// BenchmarkEach runs one behavior that walks a world of 1000 entities, a
// tenth of them coins, with vkm.each, vkm.named and vkm.count, and reports
// what one walk costs. The loop bodies do no arithmetic: gopher-lua boxes
// the result of n = n + 1 on the heap (in slabs), which is the script's
// cost, not the walk's.
func BenchmarkEach(b *testing.B) {
	const n, coins = 1000, 100
	r, w := newTest(b, eachBenchSrc)
	if _, err := r.SetupNetwork(); err != nil {
		b.Fatal(err)
	}
	coin := r.Schema().Index("Coin")
	attach(b, r, w.add("walker"), "walker")
	for i := range n - 1 {
		name := "rock"
		if i%(n/coins) == 0 {
			name = "coin"
		}
		id := w.add(name)
		if name == "coin" {
			w.AddComponent(id, coin)
		}
	}
	r.FixedUpdate(1.0/64, false) // start it, and name every coin once
	b.ReportAllocs()
	for b.Loop() {
		r.FixedUpdate(1.0/64, false)
	}
	if n := lookupNumber(r, w.Find("walker"), "n"); r.Errors() != 0 || n != coins {
		b.Fatalf("%d script errors; counted %v coins, want %d", r.Errors(), n, coins)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/3, "ns/walk")
	b.ReportMetric(testing.AllocsPerRun(10, func() { r.FixedUpdate(1.0/64, false) })/3, "allocs/walk")
}

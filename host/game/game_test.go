package game

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"vkm/host/bot"
	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/prediction"
)

func loadArena(t testing.TB) *project.Project {
	t.Helper()
	p, err := project.LoadProject("../../projects/arena")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newGame(t testing.TB, p *project.Project) *Game {
	t.Helper()
	g, err := New(Config{Project: p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g
}

// miniProject builds a project in memory from a scene, a prefab set and Lua
// files; the entry script is scripts/main.lua.
func miniProject(t testing.TB, files map[string]string) *project.Project {
	t.Helper()
	const toml = `name = "mini"
players = 2
entryScene = "scene.toml"
entryScript = "scripts/main.lua"
[[axis]]
name = "run"
negative = ["KeyA"]
positive = ["KeyD"]
[[button]]
name = "jump"
keys = ["Space"]
`
	p, err := project.ParseProject("mini/project.toml", []byte(toml))
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for name, body := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(body)}
	}
	p.Dir = "mini"
	p.FS = fsys
	return p
}

func TestArenaRestoresSceneSlotsAndJoinsTheLocalPlayer(t *testing.T) {
	g := newGame(t, loadArena(t))
	s := g.Store()
	for slot, name := range map[uint32]string{1: "hall", 10: "spawn1", 20: "pickups", 30: "crate1", 44: "crate15"} {
		id := s.At(slot)
		if !s.Alive(id) || s.Name(id) != name {
			t.Errorf("slot %d holds %q (alive %v), want %q", slot, s.Name(id), s.Alive(id), name)
		}
	}
	own := g.Own()
	if !s.Alive(own) || s.Name(own) != "player" {
		t.Fatalf("the local player was not spawned by the join handler: %v %q", own, s.Name(own))
	}
	if hp := s.Component(own, g.Schema().Index("Health")); len(hp) != 1 || hp[0] != 100 {
		t.Fatalf("player Health = %v, want [100]", hp)
	}
	tr := s.Transform(own)
	spawn := s.Transform(s.At(10))
	if tr.X != spawn.X || tr.Y != spawn.Y {
		t.Fatalf("player at (%v,%v), want spawn1 (%v,%v)", tr.X, tr.Y, spawn.X, spawn.Y)
	}
}

// tally counts a game's presentation events by name and how far its local
// player's character travelled, a respawn's jump left out.
type tally struct {
	Events   map[string]int
	Distance float64
	last     *entity.Transform
}

func (t *tally) Observe(g *Game) {
	if t.Events == nil {
		t.Events = map[string]int{}
	}
	for _, ev := range g.DrainEvents() {
		t.Events[ev.Name]++
	}
	tr := g.Store().Transform(g.Own())
	if tr == nil {
		t.last = nil
		return
	}
	if t.last != nil {
		if d := math.Hypot(tr.X-t.last.X, tr.Y-t.last.Y); d < 2 {
			t.Distance += d
		}
	}
	here := *tr
	t.last = &here
}

// runBot runs n ticks of g with a wander bot and tallies what happened.
func runBot(t testing.TB, g *Game, seed uint64, n int) *tally {
	t.Helper()
	p := g.project
	bot, err := bot.New("wander", seed, len(p.Axes), len(p.Buttons))
	if err != nil {
		t.Fatal(err)
	}
	var tally tally
	for range n {
		g.SetCommand(bot.Next())
		g.RunTick()
		tally.Observe(g)
	}
	return &tally
}

type pose struct {
	alive bool
	t     entity.Transform
	rb    entity.Rigidbody
}

func poses(g *Game) map[entity.ID]pose {
	out := map[entity.ID]pose{}
	g.Store().Each(func(id entity.ID) bool {
		p := pose{alive: true, t: *g.Store().Transform(id)}
		if rb := g.Store().Rigidbody(id); rb != nil {
			p.rb = *rb
		}
		out[id] = p
		return true
	})
	return out
}

func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

func TestArenaReplaysBitForBitFromTheSameSeed(t *testing.T) {
	const ticks = 2000
	p := loadArena(t)
	a, b := newGame(t, p), newGame(t, p)
	ta := runBot(t, a, 7, ticks)
	runBot(t, b, 7, ticks)
	pa, pb := poses(a), poses(b)
	if len(pa) != len(pb) {
		t.Fatalf("%d entities against %d", len(pa), len(pb))
	}
	moving := 0
	for id, x := range pa {
		y, ok := pb[id]
		if !ok {
			t.Fatalf("entity %v alive in one run only", id)
		}
		fa := []float64{x.t.X, x.t.Y, x.t.Angle, x.t.Scale, x.rb.VX, x.rb.VY, x.rb.AngularVelocity}
		fb := []float64{y.t.X, y.t.Y, y.t.Angle, y.t.Scale, y.rb.VX, y.rb.VY, y.rb.AngularVelocity}
		for i := range fa {
			if !sameBits(fa[i], fb[i]) {
				t.Fatalf("entity %v (%s) field %d: %v against %v", id, a.Store().Name(id), i, fa[i], fb[i])
			}
		}
		if x.rb.Awake != y.rb.Awake {
			t.Fatalf("entity %v awake differs", id)
		}
		if x.rb.VX != 0 || x.rb.VY != 0 {
			moving++
		}
	}
	t.Logf("%d ticks, %d entities identical (%d moving), events %v, %.1f m travelled", ticks, len(pa), moving, ta.Events, ta.Distance)
	if ta.Events["shot"] == 0 {
		t.Fatal("the bot never fired: the run proves little")
	}
}

func TestArenaBotShootsAndCollects(t *testing.T) {
	g := newGame(t, loadArena(t))
	tally := runBot(t, g, 1, 640)
	t.Logf("events %v, distance %.2f m, errors %d", tally.Events, tally.Distance, len(g.ScriptErrors()))
	for _, e := range g.ScriptErrors() {
		t.Error(e)
	}
	if tally.Events["shot"] == 0 || tally.Events["pickup"] == 0 {
		t.Fatalf("want at least one shot and one pickup in 10 s, got %v", tally.Events)
	}
	if tally.Distance <= 0 {
		t.Fatal("the character never moved")
	}
}

const probeScene = `
[[entity]]
id = 5
name = "floor"
[entity.body]
type = "static"
[[entity.body.shape]]
box = [20.0, 1.0]

[[entity]]
id = 7
name = "probe"
behavior = "probe"
transform = { x = 0.0, y = 3.0 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [1.0, 1.0]
`

func TestOfflineAnswersTheFourQuestions(t *testing.T) {
	p := miniProject(t, map[string]string{
		"scene.toml": probeScene,
		"scripts/main.lua": `
local Probe = {}
function Probe:on_fixed_update(dt)
  local c = self:command()
  self:emit("answers", { sim = self:is_simulated(), mine = self:is_mine(),
    run = c.axis.run, jump = c.pressed.jump, replaying = self:is_replaying() })
  self:set_velocity(3, 0) -- a behavior moving its body
end
function vkmRegisterBehaviors(r) r.probe = Probe end
`,
	})
	g := newGame(t, p)
	var cmd prediction.Command
	cmd.Axes[0] = 0.5
	cmd = prediction.Next(prediction.Command{}, cmd.Axes, 1)
	g.SetCommand(cmd)
	g.RunTick()
	ev := g.DrainEvents()
	if len(ev) != 1 {
		t.Fatalf("events %v", ev)
	}
	f := ev[0].Fields
	if f["sim"] != true || f["mine"] != true || f["run"] != 0.5 || f["jump"] != true || f["replaying"] != false {
		t.Fatalf("offline answers %v, want simulated, mine, the local command, not replaying", f)
	}
	probe := g.Store().At(7)
	before := g.Store().Transform(probe).X
	for range 10 {
		g.RunTick()
	}
	if x := g.Store().Transform(probe).X; x <= before+0.1 {
		t.Fatalf("the behavior did not move its body: x %v → %v", before, x)
	}
}

func TestARunawayBehaviorIsStoppedAndTheWorldGoesOn(t *testing.T) {
	p := miniProject(t, map[string]string{
		"scene.toml": probeScene + `
[[entity]]
id = 8
name = "crate"
transform = { x = 5.0, y = 6.0 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [1.0, 1.0]
`,
		"scripts/main.lua": `
local Probe = {}
function Probe:on_fixed_update(dt)
  while true do end
end
function vkmRegisterBehaviors(r) r.probe = Probe end
`,
	})
	g := newGame(t, p)
	crate := g.Store().At(8)
	y0 := g.Store().Transform(crate).Y
	for range 30 {
		g.RunTick()
	}
	errs := g.ScriptErrors()
	if len(errs) != 1 {
		t.Fatalf("want the runaway reported once, got %d: %v", len(errs), errs)
	}
	if !strings.Contains(errs[0].Error(), "main.lua:4") {
		t.Fatalf("report %q does not name main.lua:4", errs[0].Error())
	}
	if y := g.Store().Transform(crate).Y; y >= y0-0.5 {
		t.Fatalf("the world stopped: crate y %v → %v", y0, y)
	}
}

func TestLuaSpawnsIntoFreeSlotsAndDestroyFreesThem(t *testing.T) {
	p := miniProject(t, map[string]string{
		"scene.toml": probeScene,
		"prefabs/pair.toml": `
[[entity]]
uid = 10
name = "pair"
[entity.body]
type = "dynamic"
[[entity.body.shape]]
circle = 0.5
[[entity]]
uid = 11
name = "pair-child"
parent = 10
transform = { x = 1.0 }
`,
		"scripts/main.lua": `
local Probe = {}
function Probe:on_fixed_update(dt)
  if vkm.tick() == 1 then
    self.made = self:spawn("prefabs/pair.toml", 2, 5)
  elseif vkm.tick() == 2 then
    self.made:destroy()
  elseif vkm.tick() == 3 then
    self.again = self:spawn("prefabs/pair.toml", 2, 5)
  end
end
function vkmRegisterBehaviors(r) r.probe = Probe end
`,
	})
	g := newGame(t, p)
	s := g.Store()
	g.RunTick()
	root := s.At(0)
	child := s.At(1)
	if s.Name(root) != "pair" || s.Name(child) != "pair-child" || s.Parent(child) != root {
		t.Fatalf("prefab not in the lowest free slots: slot 0 %q, slot 1 %q", s.Name(root), s.Name(child))
	}
	// The root has fallen for one tick since it was spawned at (2, 5); the
	// child stays one metre to its right.
	r, w := s.Transform(root), s.WorldTransform(child)
	if r.X != 2 || r.Y >= 5 || r.Y < 4.9 || w.X != 3 || w.Y != r.Y {
		t.Fatalf("root at (%v,%v), child at (%v,%v); want the child 1 m right of a root spawned at (2,5)", r.X, r.Y, w.X, w.Y)
	}
	g.RunTick()
	if s.Alive(root) || s.Alive(child) {
		t.Fatal("destroy left part of the subtree alive")
	}
	g.RunTick()
	again := s.At(0)
	if again.Gen != root.Gen+1 {
		t.Fatalf("slot 0 refilled with generation %d, want %d", again.Gen, root.Gen+1)
	}
}

func TestASleepingBodyTeleportedByLuaFalls(t *testing.T) {
	p := miniProject(t, map[string]string{
		"scene.toml": probeScene,
		"scripts/main.lua": `
local Probe = {}
function Probe:on_fixed_update(dt)
  if vkm.tick() == 300 then self:set_position(0, 6) end
end
function vkmRegisterBehaviors(r) r.probe = Probe end
`,
	})
	g := newGame(t, p)
	probe := g.Store().At(7)
	for range 299 {
		g.RunTick()
	}
	if g.Store().Rigidbody(probe).Awake {
		t.Fatal("the probe never fell asleep on the floor: the test proves nothing")
	}
	for range 31 {
		g.RunTick()
	}
	if y := g.Store().Transform(probe).Y; y > 5.5 {
		t.Fatalf("teleported to y=6 while asleep, it hangs at y=%v", y)
	}
}

func TestArenaShotsKillAndTheDeadRespawn(t *testing.T) {
	g := newGame(t, loadArena(t))
	s := g.Store()
	victim, err := g.Join(2)
	if err != nil || !s.Alive(victim) {
		t.Fatalf("second player not seated: %v %v", victim, err)
	}
	health, score := g.Schema().Index("Health"), g.Schema().Index("Score")
	// Stand the victim on the floor three metres right of the shooter, who
	// aims right and fires every 20 ticks (the cooldown is 16).
	shooter := g.Own()
	st := s.Transform(shooter)
	for range 30 { // let both land
		g.RunTick()
	}
	vt := s.Transform(victim)
	vt.X, vt.Y = st.X+3, st.Y
	var fire prediction.Command
	fire.Axes[g.project.AxisIndex("aim_x")] = 1
	var tally tally
	deathTick := uint32(0)
	for i := range 200 {
		c := fire
		if i%20 == 0 {
			c.Held = 1 << g.project.ButtonIndex("fire")
			c.Pressed = c.Held
		}
		g.SetCommand(c)
		g.RunTick()
		tally.Observe(g)
		if deathTick == 0 && s.Component(victim, health)[0] == 0 {
			deathTick = g.Tick()
			break
		}
	}
	if deathTick == 0 {
		t.Fatalf("four shots did not kill: hp %v, events %v", s.Component(victim, health), tally.Events)
	}
	if tally.Events["hit"] != 4 || tally.Events["death"] != 1 {
		t.Fatalf("events %v, want 4 hits and a death", tally.Events)
	}
	if k, d := s.Component(shooter, score)[0], s.Component(victim, score)[1]; k != 1 || d != 1 {
		t.Fatalf("shooter kills %v, victim deaths %v; want 1 and 1", k, d)
	}
	g.SetCommand(prediction.Command{})
	for range 2*64 + 1 { // respawn_time is 2 s
		g.RunTick()
	}
	if hp := s.Component(victim, health)[0]; hp != 100 {
		t.Fatalf("the victim did not come back: hp %v", hp)
	}
	for _, e := range g.ScriptErrors() {
		t.Error(e)
	}
}

// TestSceneTagsAndTimers builds a scene whose coins carry an empty
// component, written as a table with no fields (one coin without a body),
// and a round timer on the scene entity: the walk finds the coins in slot
// order and the round ends after its seconds at the project's tick rate.
func TestSceneTagsAndTimers(t *testing.T) {
	p := miniProject(t, map[string]string{
		"scene.toml": probeScene + `
[[entity]]
id = 9
name = "coin"
[entity.components.Coin]

[[entity]]
id = 12
name = "coin"
[entity.components.Coin]
[entity.body]
type = "static"
[[entity.body.shape]]
circle = 0.5

[[entity]]
id = 20
name = "round"
behavior = "round"
[entity.components.Round]
`,
		"scripts/main.lua": `
function vkmSetupNetwork(net)
  net.component("Coin", {})
  net.component("Round", { {"ends", net.int(0, 4294967295)} })
end
local Probe = {}
function Probe:on_fixed_update(dt)
  if vkm.tick() ~= 1 then return end
  local slots = {}
  for e in vkm.each("Coin") do slots[#slots + 1] = e:id() end
  self:emit("coins", { slots = table.concat(slots, ","), n = vkm.count("Coin") })
end
local Round = {}
function Round:on_fixed_update(dt)
  if self:get("Round", "ends") == 0 then
    self:set("Round", "ends", vkm.after(0.5))
  elseif self:remaining("Round", "ends") == 0 then
    self:emit("round over", { tick = vkm.tick() })
    self:set("Round", "ends", vkm.after(0.5))
  end
end
function vkmRegisterBehaviors(r) r.probe = Probe r.round = Round end
`,
	})
	g := newGame(t, p)
	var coins []string
	var overs []float64
	for range 70 {
		g.RunTick()
		for _, ev := range g.DrainEvents() {
			switch ev.Name {
			case "coins":
				coins = append(coins, fmt.Sprint(ev.Fields["slots"], " ", ev.Fields["n"]))
			case "round over":
				overs = append(overs, ev.Fields["tick"].(float64))
			}
		}
	}
	if len(g.ScriptErrors()) != 0 {
		t.Fatal(g.ScriptErrors())
	}
	// 0.5 s at 64 Hz is 32 ticks: set at tick 1, over at 33 and 65.
	if !slices.Equal(coins, []string{"9,12 2"}) || !slices.Equal(overs, []float64{33, 65}) {
		t.Errorf("coins %v, rounds over at %v; want [9,12 2] and [33 65]", coins, overs)
	}
}

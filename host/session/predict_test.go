package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"vkm/host/game"
	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/transport"
	"vkm/transport/memnet"
)

// gunnerProject is a floor and a character whose gun fires at most once
// every 0.1 s while fire is held, its deadline in Gun.next; each shot
// counts in Gun.shots and shows as a "shot" event carrying the deadline it
// set. A character whose Health.hp reaches 0 respawns 10 m to the right
// with full health.
func gunnerProject(t testing.TB) *project.Project {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"project.toml": `name = "gunner"
players = 2
tickRate = 64
entryScene = "scene.toml"
entryScript = "main.lua"
[[button]]
name = "fire"
keys = ["KeyF"]
`,
		"scene.toml": `[physics]
gravity = [0.0, -20.0]

[[entity]]
id = 1
name = "floor"
[entity.body]
type = "static"
[[entity.body.shape]]
box = [60.0, 1.0]
friction = 0.8
`,
		"gunner.toml": `[[entity]]
uid = 1
name = "gunner"
behavior = "gunner"
[entity.body]
type = "dynamic"
fixedRotation = true
[[entity.body.shape]]
box = [0.8, 1.6]
density = 1.0
friction = 0.0
[entity.controller]
speed = 8.0
[entity.components.Gun]
next = 0
shots = 0
[entity.components.Health]
hp = 100
`,
		"main.lua": `
local Gunner = {}
function Gunner:on_fixed_update(dt)
  if not self:is_simulated() then return end
  if self:get("Health", "hp") == 0 then
    local x, y = self:position()
    self:set_position(x + 10, y)
    self:set("Health", "hp", 100)
  end
  local c = self:command()
  if c.held.fire and self:cooldown("Gun", "next", 0.1) then
    self:set("Gun", "shots", self:get("Gun", "shots") + 1)
    if not self:is_replaying() then
      self:emit("shot", { next = self:get("Gun", "next") })
    end
  end
end
function vkmRegisterBehaviors(r) r.gunner = Gunner end
function vkmSetupNetwork(net)
  net.component("Gun", { {"next", net.int(0, 4294967295)}, {"shots", net.int(0, 65535)} })
  net.component("Health", { {"hp", net.int(0, 100)} })
  net.on_join(function(player)
    return vkm.find("floor"):spawn("gunner.toml", (player - 1) * 3, 1.5)
  end)
end
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// holdFire is input with the first button (fire) held every tick.
type holdFire struct{}

func (holdFire) Next() prediction.Command { return prediction.Command{Held: 1} }

// gunnerSeated joins a client of the gunner project over profile and runs
// until its character is built and simulated.
func gunnerSeated(t *testing.T, h *harness, profile memnet.Profile, seed uint64) *peer {
	t.Helper()
	a := h.join(gunnerProject(t), profile, seed)
	h.runUntil(5*time.Second, "the join", func() bool {
		own := a.c.Game().Own()
		return a.c.Playing() && !own.IsNone() && a.c.Game().Store().Alive(own) && a.c.rec.wordOK
	})
	h.run(time.Second) // the character lands on the floor
	return a
}

// field returns id's component field in g, by names.
func field(t *testing.T, g *game.Game, id entity.ID, typ, name string) *float64 {
	t.Helper()
	for ti, ty := range g.Schema().Types {
		if ty.Name != typ {
			continue
		}
		for fi, f := range ty.Fields {
			if f.Name == name {
				v := g.Store().Component(id, ti)
				if v == nil {
					t.Fatalf("%s has no %s", id, typ)
				}
				return &v[fi]
			}
		}
	}
	t.Fatalf("no field %s.%s", typ, name)
	return nil
}

// serverShots follows the server's Gun.next on a character: each new
// deadline is a shot the server fired.
type serverShots map[float64]bool

func (s serverShots) sample(t *testing.T, h *harness, id entity.ID) {
	if v := *field(t, h.server.Game(), id, "Gun", "next"); v != 0 {
		s[v] = true
	}
}

// TestAClientShowsOnlyTheShotsTheServerFires holds fire over a mobile
// link (a 120 ms round trip, 3 % of commands and 1.5 % of snapshots lost):
// every shot the client shows, by the deadline it set, is one the server
// fired, and the two count the same shots. Then the server alone moves the
// deadline a second on: the client takes that as a correction of the
// component, fires nothing it did not fire, and agrees again after.
func TestAClientShowsOnlyTheShotsTheServerFires(t *testing.T) {
	for _, seed := range []uint64{3, 11, 29} {
		h := newHarness(t, gunnerProject(t))
		a := gunnerSeated(t, h, memnet.Mobile, seed)
		g, own := a.c.Game(), a.c.Game().Own()
		fired := serverShots{}
		var shown []float64
		a.afterTick = func(g *game.Game) {
			for _, ev := range g.DrainEvents() {
				if ev.Name == "shot" {
					shown = append(shown, ev.Fields["next"].(float64))
				}
			}
		}
		a.input = holdFire{}
		step := func(d time.Duration) {
			for end := h.now + transport.Time(d); h.now < end; {
				h.step()
				fired.sample(t, h, own)
			}
		}
		step(5 * time.Second)
		a.input = nil
		step(time.Second) // every shot judged
		var ghosts int
		for _, n := range shown {
			if !fired[n] {
				ghosts++
			}
		}
		cs := a.c.Stats(h.now)
		serverCount := *field(t, h.server.Game(), own, "Gun", "shots")
		clientCount := *field(t, g, own, "Gun", "shots")
		t.Logf("seed %d: %d shots shown, %d fired by the server (Gun.shots: client %v, server %v); %d shown the server never fired; %d corrections %v",
			seed, len(shown), len(fired), clientCount, serverCount, ghosts, cs.Corrections, cs.ByCause)
		if ghosts != 0 || len(shown) == 0 || clientCount != serverCount {
			t.Errorf("seed %d: %d shots shown that the server never fired, of %d; shots client %v server %v", seed, ghosts, len(shown), clientCount, serverCount)
		}

		// The server alone puts the deadline a second on.
		before := cs
		a.input = holdFire{}
		step(time.Second)
		*field(t, h.server.Game(), own, "Gun", "next") += 64
		h.runUntil(2*time.Second, "the deadline's correction", func() bool {
			fired.sample(t, h, own)
			return a.c.rec.byCause[CauseComponent].Count > before.ByCause[CauseComponent].Count
		})
		settled := a.c.Stats(h.now)
		step(3 * time.Second)
		a.input = nil
		step(time.Second)
		after := a.c.Stats(h.now)
		sc, cc := *field(t, h.server.Game(), own, "Gun", "shots"), *field(t, g, own, "Gun", "shots")
		sn, cn := *field(t, h.server.Game(), own, "Gun", "next"), *field(t, g, own, "Gun", "next")
		t.Logf("seed %d: after the server moved the deadline: %d corrections (%v), then %d more; shots client %v server %v, next client %v server %v",
			seed, settled.Corrections-before.Corrections, settled.ByCause, after.Corrections-settled.Corrections, cc, sc, cn, sn)
		if cc != sc || cn != sn {
			t.Errorf("seed %d: the client did not converge: shots %v/%v, next %v/%v", seed, cc, sc, cn, sn)
		}
		if n := after.ByCause[CauseComponent].Count - settled.ByCause[CauseComponent].Count; n != 0 {
			t.Errorf("seed %d: %d more component corrections once converged", seed, n)
		}
	}
}

// TestDamageFromTheServerSurvivesAReplay: the server alone takes 40 off
// the character's health. No tick the client ran wrote health, so the
// client takes the server's word without a replay (adopted, not a
// correction) and holds 60; a knock on the server then makes a pose
// correction whose replay starts from the server's word, health included,
// so the client still holds 60 and nothing more is corrected.
func TestDamageFromTheServerSurvivesAReplay(t *testing.T) {
	const seed = 5
	h := newHarness(t, gunnerProject(t))
	a := gunnerSeated(t, h, memnet.Broadband, seed)
	srv, g, own := h.server.Game(), a.c.Game(), a.c.Game().Own()
	before := a.c.Stats(h.now)
	*field(t, srv, own, "Health", "hp") = 60
	h.runUntil(2*time.Second, "the damage's word", func() bool { return a.c.rec.adopted > before.Adopted })
	damaged := a.c.Stats(h.now)
	if got := *field(t, g, own, "Health", "hp"); got != 60 {
		t.Fatalf("seed %d: the client holds hp %v after the damage's word, want 60", seed, got)
	}
	srv.World().ApplyImpulse(entity.None, own, 0, 8)
	h.runUntil(2*time.Second, "the knock's correction", func() bool { return a.c.rec.corrections > damaged.Corrections })
	knocked := a.c.Stats(h.now)
	h.run(2 * time.Second)
	after := a.c.Stats(h.now)
	t.Logf("seed %d: damage: %v; knock: %v; then %d more corrections; recent %+v", seed, damaged.ByCause, knocked.ByCause, after.Corrections-knocked.Corrections, after.Recent)
	if n := damaged.Corrections - before.Corrections; n != 0 || damaged.ReplayedTicks != before.ReplayedTicks || damaged.Adopted-before.Adopted != 1 {
		t.Errorf("the damage made %d corrections and %d replayed ticks, and was adopted %d times; want 0, 0, 1",
			n, damaged.ReplayedTicks-before.ReplayedTicks, damaged.Adopted-before.Adopted)
	}
	if got := *field(t, g, own, "Health", "hp"); got != 60 {
		t.Errorf("the client holds hp %v after the knock's replay, want 60", got)
	}
	if n := after.Corrections - knocked.Corrections; n != 0 {
		t.Errorf("%d more corrections after the knock's", n)
	}
}

// TestARespawnSnaps kills the character on the server alone: it respawns
// 10 m away there. The client's correction is a teleport: drawn where it
// lands (no eased offset), counted as a teleport and left out of the
// largest eased correction.
func TestARespawnSnaps(t *testing.T) {
	const seed = 9
	h := newHarness(t, gunnerProject(t))
	a := gunnerSeated(t, h, memnet.Broadband, seed)
	srv, g, own := h.server.Game(), a.c.Game(), a.c.Game().Own()
	before := a.c.Stats(h.now)
	x0 := g.Store().Transform(own).X
	*field(t, srv, own, "Health", "hp") = 0
	h.runUntil(2*time.Second, "the respawn's correction", func() bool { return a.c.rec.corrections > before.Corrections })
	cs := a.c.Stats(h.now)
	dx, dy, _ := a.c.smooth.Offset(own)
	x1 := g.Store().Transform(own).X
	t.Logf("seed %d: x %.2f -> %.2f; corrections %v; max eased %.1f mm; offset (%.3f, %.3f); recent %+v",
		seed, x0, x1, cs.ByCause, cs.MaxCorrection*1000, dx, dy, cs.Recent)
	if x1-x0 < 9 {
		t.Fatalf("the client's character is at x %.2f, not respawned 10 m on from %.2f", x1, x0)
	}
	if n := cs.ByCause[CauseTeleport].Count - before.ByCause[CauseTeleport].Count; n != 1 {
		t.Errorf("%d teleports counted, want 1", n)
	}
	if cs.MaxCorrection > 0.5 {
		t.Errorf("the largest eased correction is %.2f m: the teleport was counted in it", cs.MaxCorrection)
	}
	if dx != 0 || dy != 0 {
		t.Errorf("the respawn is eased by an offset (%g, %g): want a snap", dx, dy)
	}
	if r := cs.Recent[len(cs.Recent)-1]; r.Cause != CauseTeleport || r.What != "pose" || r.Distance < 9 {
		t.Errorf("the respawn is recorded as %+v", r)
	}
}

package session

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vkm/host/game"
	"vkm/host/project"
	"vkm/transport/handshake"
	"vkm/transport/memnet"
)

// pingProject is a project whose players' characters send "ping" messages
// numbered from 1: every `every` ticks, `each` at a time, until `total`
// are sent. The server's handler counts them on the sender's Tally (got,
// bad: one out of order, last) and answers the sender with "note" when
// told to (a ping whose seq is a multiple of noteEvery). extra is more of
// vkmSetupNetwork's body (another message, for a foreign client).
func pingProject(t testing.TB, total, every, each, noteEvery int, extra string) *project.Project {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"project.toml": `name = "ping"
players = 4
entryScene = "scene.toml"
entryScript = "main.lua"
[[axis]]
name = "run"
negative = ["KeyA"]
positive = ["KeyD"]
`,
		"scene.toml": `[physics]
gravity = [0.0, -20.0]

[[entity]]
id = 1
name = "floor"
[entity.body]
type = "static"
[[entity.body.shape]]
chain = [[-20.0, 0.0], [20.0, 0.0]]
`,
		"pinger.toml": `[[entity]]
uid = 1
name = "pinger"
behavior = "pinger"
[entity.body]
type = "dynamic"
fixedRotation = true
[[entity.body.shape]]
box = [0.8, 1.6]
density = 1.0
[entity.controller]
speed = 6.0
accel = 50.0
airAccel = 20.0
jumpSpeed = 10.0
`,
		"main.lua": fmt.Sprintf(`
local total, every, each, note_every = %d, %d, %d, %d
local ents = {}
notes = 0
local Pinger = {}
function Pinger:on_start() self.sent, self.n = 0, 0 end
function Pinger:on_fixed_update(dt)
  if not self:is_simulated() then return end
  self:move(self:command().axis.run)
  if not self:is_mine() then return end
  self.n = self.n + 1
  if self.n %% every ~= 0 then return end
  for i = 1, each do
    if self.sent < total and net.send("ping", {seq = self.sent + 1}) then self.sent = self.sent + 1 end
  end
end
function vkmRegisterBehaviors(r) r.pinger = Pinger end
function vkmSetupNetwork(net)
  net.component("Tally", { {"got", net.int(0, 65535)}, {"bad", net.int(0, 65535)}, {"last", net.int(0, 65535)}, {"notes", net.int(0, 65535)} })
  net.message("ping", { {"seq", net.int(0, 65535)} })
  net.message("note", { {"v", net.int(0, 255)} })
  net.message("noted", { {"v", net.int(0, 255)} })
  %s
  net.on_join(function(player)
    local e = vkm.find("floor"):spawn("pinger.toml", player * 3 - 8, 1)
    e:add("Tally")
    ents[player] = e
    return e
  end)
  net.on_message("ping", function(player, m)
    local e = ents[player]
    e:set("Tally", "got", e:get("Tally", "got") + 1)
    if m.seq ~= e:get("Tally", "last") + 1 then e:set("Tally", "bad", e:get("Tally", "bad") + 1) end
    e:set("Tally", "last", m.seq)
    if note_every > 0 and m.seq %% note_every == 0 then net.send_to(player, "note", {v = 7}) end
  end)
  -- A client's answer to a note, counted by the server on the sender.
  net.on_message("note", function(player, m) net.send("noted", {v = m.v}) end)
  net.on_message("noted", function(player, m)
    local e = ents[player]
    e:set("Tally", "notes", e:get("Tally", "notes") + 1)
  end)
end
`, total, every, each, noteEvery, extra),
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

// tally reads the Tally of player's character on g: got, bad, last, notes.
func tally(t testing.TB, g *game.Game, player uint16) [4]int {
	t.Helper()
	typ := g.Schema().Index("Tally")
	for _, p := range g.Players() {
		if p.Number == player {
			v := g.Store().Component(p.Entity, typ)
			if len(v) != 4 {
				t.Fatalf("player %d's character has no Tally", player)
			}
			return [4]int{int(v[0]), int(v[1]), int(v[2]), int(v[3])}
		}
	}
	t.Fatalf("no player %d", player)
	return [4]int{}
}

func TestThousandMessagesArriveOnceInOrder(t *testing.T) {
	const total = 1000
	for _, profile := range []memnet.Profile{memnet.Broadband, memnet.Awful} {
		for _, seed := range []uint64{11, 12, 13} {
			t.Run(fmt.Sprintf("%s/%d", profile.Name, seed), func(t *testing.T) {
				if testing.Short() && seed != 11 {
					t.Skip("one seed under -short")
				}
				t.Logf("seed %d, profile %s", seed, profile.Name)
				// Three messages every six ticks: 32 a second, the bound.
				h := newHarness(t, pingProject(t, total, 6, 3, 0, ""))
				a := h.join(pingProject(t, total, 6, 3, 0, ""), profile, seed)
				h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
				player := a.c.Net().Player()
				h.runUntil(60*time.Second, "1000 messages", func() bool { return tally(t, h.server.Game(), player)[0] >= total })
				h.run(2 * time.Second)
				got := tally(t, h.server.Game(), player)
				tot := h.server.Totals()
				cs := a.c.Stats(h.now)
				t.Logf("after %v: got %d, out of order %d, last %d; server took %d, dropped %d; client sent %d, replayed %d ticks",
					time.Duration(h.now), got[0], got[1], got[2], tot.Messages.In, tot.Messages.Dropped, cs.MessagesSent, cs.ReplayedTicks)
				if got[0] != total || got[1] != 0 || got[2] != total || tot.Messages.In != total || tot.Messages.Dropped != 0 || cs.MessagesSent != total {
					t.Fatalf("want each of %d once, in order, none dropped", total)
				}
				if profile.Name == memnet.Awful.Name && cs.ReplayedTicks == 0 {
					t.Fatal("no tick was replayed over the awful link: the test shows nothing of replays")
				}
			})
		}
	}
}

func TestMessagesOverTheBoundThrottledThenEnded(t *testing.T) {
	for i, seed := range []uint64{21, 22, 23, 24, 25, 26} {
		profile := []memnet.Profile{memnet.Broadband, memnet.Awful}[i/3]
		t.Logf("seed %d, profile %s", seed, profile.Name)
		// Four messages a tick: 256 a second, eight times the bound.
		h := newHarness(t, pingProject(t, 60000, 1, 4, 0, ""))
		a := h.join(pingProject(t, 60000, 1, 4, 0, ""), profile, seed)
		h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() })
		player := a.c.Net().Player()
		var took [4]int
		h.runUntil(10*time.Second, "the flood's end", func() bool {
			if _, ok := h.server.seats[player]; ok {
				took = tally(t, h.server.Game(), player)
				return false
			}
			return true
		})
		h.runUntil(2*time.Second, "the client to learn of it", func() bool { return !a.c.Playing() })
		tot := h.server.Totals()
		why := a.c.why
		t.Logf("took %d (the last numbered %d), dropped %d, floods %d; client told %q", took[0], took[2], tot.Messages.Dropped, tot.Floods, why)
		// Those dropped leave gaps in what was taken.
		if tot.Floods != 1 || tot.Messages.Dropped == 0 || took[2] <= took[0] {
			t.Fatal("want one flood ended and messages dropped")
		}
		// Within the bound: the burst and the rate over the seconds before
		// the end, no more.
		if limit := MessageBurst + (MessageFloodSeconds+2)*MessagesPerSecond; took[0] > limit || took[0] < MessagesPerSecond {
			t.Fatalf("took %d, want %d..%d", took[0], MessagesPerSecond, limit)
		}
		if why != handshake.GoodbyeFlood.Sentence() {
			t.Fatalf("client told %q, want %q", why, handshake.GoodbyeFlood.Sentence())
		}
	}
}

func TestMessageToOnePlayerReachesOnlyThem(t *testing.T) {
	for _, profile := range []memnet.Profile{memnet.Broadband, memnet.Awful} {
		for _, seed := range []uint64{31, 32, 33} {
			t.Logf("seed %d, profile %s", seed, profile.Name)
			// a sends 40 pings, one every 4 ticks; every 4th is answered
			// with a note to a alone. b sends nothing.
			h := newHarness(t, pingProject(t, 40, 4, 1, 4, ""))
			a := h.join(pingProject(t, 40, 4, 1, 4, ""), profile, seed)
			b := h.join(pingProject(t, 0, 4, 1, 4, ""), profile, seed+100)
			h.runUntil(5*time.Second, "the joins", func() bool { return a.c.Playing() && b.c.Playing() })
			pa, pb := a.c.Net().Player(), b.c.Net().Player()
			h.runUntil(20*time.Second, "the notes", func() bool { return tally(t, h.server.Game(), pa)[3] >= 10 })
			h.run(time.Second)
			ta, tb := tally(t, h.server.Game(), pa), tally(t, h.server.Game(), pb)
			as, bs := a.c.Stats(h.now), b.c.Stats(h.now)
			t.Logf("a: got %d, noted %d, took %d messages; b: got %d, noted %d, took %d", ta[0], ta[3], as.MessagesIn, tb[0], tb[3], bs.MessagesIn)
			if ta[0] != 40 || ta[3] != 10 || as.MessagesIn != 10 || tb[0] != 0 || tb[3] != 0 || bs.MessagesIn != 0 {
				t.Fatal("want a's 10 notes at a alone, each handled once")
			}
		}
	}
}

func TestPeerWithOtherMessagesRefused(t *testing.T) {
	h := newHarness(t, pingProject(t, 0, 4, 1, 0, ""))
	for i, extra := range []string{`net.message("extra")`, `net.message("extra", { {"x", net.bool} })`} {
		seed := uint64(41 + i)
		t.Logf("seed %d: the client also declares %s", seed, extra)
		a := h.join(pingProject(t, 0, 4, 1, 0, extra), memnet.Broadband, seed)
		h.runUntil(5*time.Second, "the refusal", func() bool { return a.c.ended })
		t.Logf("client told %q", a.c.why)
		if a.c.Net().Player() != 0 || a.c.why != handshake.ReasonMismatch.Sentence() {
			t.Fatalf("a client with another message set: player %d, told %q", a.c.Net().Player(), a.c.why)
		}
	}
	// The same set joins.
	b := h.join(pingProject(t, 0, 4, 1, 0, ""), memnet.Broadband, 49)
	h.runUntil(5*time.Second, "the join", func() bool { return b.c.Playing() })
}

func TestMessagesLoopBackOffline(t *testing.T) {
	g, err := game.New(game.Config{Project: pingProject(t, 30, 2, 1, 3, ""), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	for range 100 {
		g.RunTick()
	}
	got := tally(t, g, 1)
	t.Logf("offline after 100 ticks: got %d, out of order %d, last %d, noted %d", got[0], got[1], got[2], got[3])
	if got != [4]int{30, 0, 30, 10} {
		t.Fatal("want 30 pings looped back in order and 10 notes answered")
	}
}

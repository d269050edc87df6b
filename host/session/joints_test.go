package session

import (
	"fmt"
	"math"
	"testing"
	"time"

	"vkm/host/bot"
	"vkm/host/game"
	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/physics"
	"vkm/prediction"
	"vkm/transport/memnet"
)

// loadChain loads the chain project with scene as its entry scene.
func loadChain(t testing.TB, scene string) *project.Project {
	t.Helper()
	p, err := project.LoadProject("testdata/chain")
	if err != nil {
		t.Fatal(err)
	}
	p.EntryScene = scene
	return p
}

// pusher runs right for three seconds and back left for one, over and
// over: into what lies ahead of the character, shoving it along the floor,
// and away again.
type pusher struct{ n int }

func (p *pusher) Next() prediction.Command {
	var c prediction.Command
	c.Axes[0] = 1
	if p.n%(4*64) >= 3*64 {
		c.Axes[0] = -1
	}
	p.n++
	return c
}

// TestAPushedChainIsPredictedAsALooseBoxIs has a client's character push
// one end of a chain of six links pinned end to end, and, in another run,
// a loose box of the chain's mass and length, over the broadband link for
// thirty seconds, three seeds each. The client leases what it pushes: the
// whole chain, joined into one island by its joints, as the one box. A
// replay restores the joints' carried impulses with the rest of the
// physics, so the chain is corrected no more often than the box.
func TestAPushedChainIsPredictedAsALooseBoxIs(t *testing.T) {
	corrections := map[string]uint64{}
	for _, scene := range []string{"scenes/chain.toml", "scenes/box.toml"} {
		for _, seed := range []uint64{1, 2, 3} {
			p := loadChain(t, scene)
			h := newHarness(t, p)
			a := h.join(loadChain(t, scene), memnet.Broadband, seed)
			a.input = &pusher{}
			h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
			first := h.server.Game().World().Find("link1")
			if first.IsNone() {
				first = h.server.Game().World().Find("box")
			}
			x0 := h.server.Game().Store().Transform(first).X
			before := a.c.rec
			leased := 0
			a.afterTick = func(g *game.Game) {
				if a.c.leases.Leased(first, g.Tick()) {
					leased++
				}
			}
			h.run(30 * time.Second)
			r := a.c.rec
			n := r.corrections - before.corrections
			corrections[scene] += n
			moved := h.server.Game().Store().Transform(first).X - x0
			t.Logf("%s, seed %d: %d corrections (%d ticks replayed, largest error %.1f mm) in 30 s; the pushed end leased %d ticks, moved %.1f m on the server",
				scene, seed, n, r.replayed-before.replayed, r.maxError*1000, leased, moved)
			if leased == 0 || moved < 1 {
				t.Errorf("%s, seed %d: the client never leased what it pushed (%d ticks) or it did not move (%.1f m)", scene, seed, leased, moved)
			}
		}
	}
	t.Logf("corrections over three seeds: chain %d, loose box %d", corrections["scenes/chain.toml"], corrections["scenes/box.toml"])
	if corrections["scenes/chain.toml"] > corrections["scenes/box.toml"] {
		t.Errorf("the chain was corrected %d times, the loose box %d", corrections["scenes/chain.toml"], corrections["scenes/box.toml"])
	}
}

// TestOnContactOncePerTouchOnEachEnd counts, on the server and on the
// client of the character pushing the chain over broadband, the touches
// on_contact tells the character of: on each end every touch of the
// character with another body is told it began, and then that it ended,
// once each (a touch may still be on at the end), none during a replay,
// though the client replayed.
func TestOnContactOncePerTouchOnEachEnd(t *testing.T) {
	p := loadChain(t, "scenes/chain.toml")
	h := newHarness(t, p)
	a := h.join(loadChain(t, "scenes/chain.toml"), memnet.Broadband, 5)
	a.input = &pusher{}
	type key struct {
		end   string
		other string
	}
	open := map[key]int{}
	begins := map[key]int{}
	watch := func(end string, g *game.Game) {
		g.WatchEvents(func(name string, id entity.ID, f map[string]any) {
			if name != "contact" || g.Store().Name(id) != "player" {
				return
			}
			k := key{end, f["other"].(string)}
			if f["replaying"] == true {
				t.Errorf("%s: told of a touch of %s during a replay", end, k.other)
			}
			if f["begin"] == true {
				begins[k]++
				open[k]++
				if open[k] > 1 {
					t.Errorf("%s: the touch of %s began twice without ending", end, k.other)
				}
			} else {
				open[k]--
				if open[k] < 0 {
					t.Errorf("%s: the touch of %s ended without beginning", end, k.other)
				}
			}
		})
	}
	watch("server", h.server.Game())
	watch("client", a.c.Game())
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
	h.run(30 * time.Second)
	t.Logf("touches begun: %v; still on: %v; the client replayed %d ticks in %d corrections", begins, open, a.c.rec.replayed, a.c.rec.corrections)
	for _, end := range []string{"server", "client"} {
		if begins[key{end, "floor"}] == 0 || begins[key{end, "link1"}] == 0 {
			t.Errorf("%s: the character was never told it touched the floor and the chain's first link", end)
		}
	}
	if a.c.rec.replayed == 0 {
		t.Error("the client never replayed: the test shows nothing of replays")
	}
}

// TestHaulServedWithFourBots serves the haul, the co-op example, to four
// wandering bots over the broadband link for a minute: nobody's scripts
// fail on any end, and each client's corrections are counted by cause.
func TestHaulServedWithFourBots(t *testing.T) {
	load := func() *project.Project {
		p, err := project.LoadProject("../../projects/haul")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	h := newHarness(t, load())
	var peers []*peer
	for i := range 4 {
		seed := uint64(11 + i)
		a := h.join(load(), memnet.Broadband, seed)
		p := load()
		b, err := bot.New("wander", seed, len(p.Axes), len(p.Buttons))
		if err != nil {
			t.Fatal(err)
		}
		a.input = b
		peers = append(peers, a)
	}
	h.runUntil(5*time.Second, "four joins", func() bool {
		for _, a := range peers {
			if !a.c.Playing() || a.c.Game().Own().IsNone() {
				return false
			}
		}
		return true
	})
	h.run(60 * time.Second)
	var total [NumCauses]uint64
	for i, a := range peers {
		r := a.c.rec
		line := ""
		for c := range NumCauses {
			total[c] += r.byCause[c].Count
			line += fmt.Sprintf(" %s %d", c, r.byCause[c].Count)
		}
		t.Logf("bot %d (seed %d): %d corrections in the minute:%s; %d ticks replayed", i+1, 11+i, r.corrections, line, r.replayed)
		for _, e := range a.c.Game().ScriptErrors() {
			t.Errorf("bot %d: %v", i+1, e)
		}
	}
	for _, e := range h.server.Game().ScriptErrors() {
		t.Errorf("server: %v", e)
	}
	line := ""
	for c := range NumCauses {
		line += fmt.Sprintf(" %s %d", c, total[c])
	}
	t.Logf("all four, corrections per minute by cause:%s", line)
}

// BenchmarkReplay20TicksJointed is BenchmarkReplay20Ticks in a scene of
// fifty joints: a chain of 26 links the client's character pushes (so it
// leases and replays them) under a curtain of five hanging chains.
func BenchmarkReplay20TicksJointed(b *testing.B) {
	h := newHarness(b, loadChain(b, "scenes/joints50.toml"))
	a := h.join(loadChain(b, "scenes/joints50.toml"), memnet.Perfect, 1)
	a.input = &pusher{}
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
	h.run(2 * time.Second)
	g := a.c.Game()
	if n := g.Physics().JointCount(); n != 50 {
		b.Fatalf("%d joints, want 50", n)
	}
	leased := 0
	a.c.leases.Each(g.Tick(), func(entity.ID) bool { leased++; return true })
	to := g.Tick()
	from := to - 19
	b.ReportAllocs()
	for b.Loop() {
		if n := g.Replay(from, to, a.c.rec.command, a.c.recordPrediction); n != 20 {
			b.Fatalf("replayed %d ticks, want 20", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/20, "µs/replayed-tick")
	b.ReportMetric(float64(leased), "leased")
}

// cartParts names the three bodies of prefabs/cart.toml.
var cartParts = []string{"cart", "wheel-back", "wheel-front"}

// TestASpawnedCartArrivesWhole has the server spawn a cart on two wheels
// (three bodies of one prefab, each wheel on a wheel joint to the cart) in
// front of a client's character mid-match, over the broadband link, three
// seeds. The client builds it whole: each body at the server's name (slot
// and generation), with its body and both joints, and the prefab's static
// part where the spawn put it, to the bit (not where the wire's rounding
// of it would); then the character
// pushes it for ten seconds, leasing it (the joints join it into one
// island) and replaying it, and on both ends every wheel stays on its axle.
func TestASpawnedCartArrivesWhole(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		p := loadChain(t, "scenes/box.toml")
		h := newHarness(t, p)
		a := h.join(loadChain(t, "scenes/box.toml"), memnet.Broadband, seed)
		a.input = &pusher{}
		h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
		sg, cg := h.server.Game(), a.c.Game()
		root, err := sg.Spawn("prefabs/cart.toml", entity.Transform{X: -8.5, Y: 0.7})
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]entity.ID{}
		for _, id := range sg.Store().Members(root) {
			ids[sg.Store().Name(id)] = id
		}
		h.runUntil(2*time.Second, "the cart's build", func() bool {
			for _, name := range cartParts {
				if !cg.Physics().Has(ids[name]) {
					return false
				}
			}
			return true
		})
		joints := 0
		cg.Physics().JointsOf(ids["cart"], func(physics.JointID) bool { joints++; return true })
		for _, name := range cartParts {
			if id := ids[name]; cg.Store().Name(id) != name || !cg.Store().Alive(id) {
				t.Fatalf("seed %d: the client holds %q at %v as %q", seed, name, id, cg.Store().Name(id))
			}
		}
		if joints != 2 {
			t.Fatalf("seed %d: the client's cart has %d joints, want 2", seed, joints)
		}
		h.runUntil(time.Second, "the stone's build", func() bool { return cg.Physics().Has(ids["stone"]) })
		if c, s := *cg.Store().Transform(ids["stone"]), *sg.Store().Transform(ids["stone"]); c != s {
			t.Errorf("seed %d: the static stone stands at %+v on the client, %+v on the server", seed, c, s)
		}
		// On its axle: a wheel stays within its suspension's travel of
		// where the cart holds it.
		axle := func(g *game.Game, wheel string) float64 {
			c, w := g.Store().Transform(ids["cart"]), g.Store().Transform(ids[wheel])
			return math.Hypot(w.X-c.X, w.Y-c.Y)
		}
		rest := math.Hypot(0.6, 0.35)
		worst := 0.0
		check := func(g *game.Game) {
			for _, wheel := range cartParts[1:] {
				worst = math.Max(worst, math.Abs(axle(g, wheel)-rest))
			}
		}
		leased := 0
		a.afterTick = func(g *game.Game) {
			check(g)
			if a.c.leases.Leased(ids["wheel-front"], g.Tick()) {
				leased++
			}
		}
		before := a.c.rec
		x0 := sg.Store().Transform(root).X
		for range 10 * 500 {
			h.step()
			check(sg)
		}
		r := a.c.rec
		moved := sg.Store().Transform(root).X - x0
		t.Logf("seed %d: built whole at the server's names with %d joints; pushed 10 s: moved %.1f m on the server, a wheel leased %d ticks, %d corrections (%d ticks replayed); a wheel strayed at most %.1f mm from its axle's rest on either end",
			seed, joints, moved, leased, r.corrections-before.corrections, r.replayed-before.replayed, worst*1000)
		if leased == 0 || moved < 1 {
			t.Errorf("seed %d: the cart was not pushed along (moved %.1f m) or its wheel never leased (%d ticks)", seed, moved, leased)
		}
		if worst > 0.15 {
			t.Errorf("seed %d: a wheel strayed %.3f m from its axle", seed, worst)
		}
		for _, e := range cg.ScriptErrors() {
			t.Errorf("seed %d: client: %v", seed, e)
		}
	}
}

// TestALateJoinerBuildsTheCartAsItIs has the server spawn the cart and
// knock a wheel off (destroyed alone) before a client joins: the client
// builds the cart with the one wheel left, at the server's names, with
// its one joint, and nothing where the lost wheel was.
func TestALateJoinerBuildsTheCartAsItIs(t *testing.T) {
	p := loadChain(t, "scenes/box.toml")
	h := newHarness(t, p)
	sg := h.server.Game()
	root, err := sg.Spawn("prefabs/cart.toml", entity.Transform{X: 5, Y: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]entity.ID{}
	for _, id := range sg.Store().Members(root) {
		ids[sg.Store().Name(id)] = id
	}
	sg.Destroy(ids["wheel-back"])
	a := h.join(loadChain(t, "scenes/box.toml"), memnet.Broadband, 7)
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
	cg := a.c.Game()
	h.runUntil(2*time.Second, "the cart's build", func() bool { return cg.Physics().Has(ids["cart"]) })
	joints := 0
	cg.Physics().JointsOf(ids["cart"], func(physics.JointID) bool { joints++; return true })
	back := cg.Store().At(ids["wheel-back"].Slot)
	t.Logf("the client holds the cart %v, its front wheel %v, %d joint; the lost wheel's slot holds %v (%q)",
		cg.Physics().Has(ids["cart"]), cg.Physics().Has(ids["wheel-front"]), joints, back, cg.Store().Name(back))
	if !cg.Physics().Has(ids["wheel-front"]) || joints != 1 || len(cg.Store().Members(ids["cart"])) != 3 {
		t.Errorf("the cart arrived with %d members and %d joints, want 3 (the cart, its front wheel, the stone) and 1", len(cg.Store().Members(ids["cart"])), joints)
	}
	if cg.Store().Name(back) == "wheel-back" {
		t.Error("the client built the wheel the server lost")
	}
}

// TestALateJoinerPushesASettledChain lets the chain (and, in another run,
// the loose box) settle on the server for ten seconds before a client
// joins, over the broadband link, three seeds; the client's character then
// pushes it for ten seconds. A chain at rest is asleep, and a sleeping
// joint carries no impulse on any end (physics clears it, as it clears a
// sleeping body's contacts), so the late joiner, whose joints were made
// from the file, starts the first touch from what the server starts it
// from: it is corrected no more than for the box.
func TestALateJoinerPushesASettledChain(t *testing.T) {
	corrections := map[string]uint64{}
	for _, scene := range []string{"scenes/hanging.toml", "scenes/chain.toml", "scenes/box.toml"} {
		for _, seed := range []uint64{1, 2, 3} {
			h := newHarness(t, loadChain(t, scene))
			h.run(10 * time.Second)
			sg := h.server.Game()
			first := sg.World().Find("link1")
			if first.IsNone() {
				first = sg.World().Find("box")
			}
			sleeping := !sg.Store().Rigidbody(first).Awake
			a := h.join(loadChain(t, scene), memnet.Broadband, seed)
			a.input = &pusher{}
			h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
			x0 := sg.Store().Transform(first).X
			before := a.c.rec
			h.run(10 * time.Second)
			r := a.c.rec
			n := r.corrections - before.corrections
			corrections[scene] += n
			t.Logf("%s, seed %d: asleep when the client joined %v; %d corrections (%d ticks replayed, largest error %.1f mm) in 10 s of pushing; it moved %.1f m",
				scene, seed, sleeping, n, r.replayed-before.replayed, r.maxError*1000, sg.Store().Transform(first).X-x0)
		}
	}
	t.Logf("a late joiner's corrections over three seeds: hanging chain %d, chain on the floor %d, loose box %d", corrections["scenes/hanging.toml"], corrections["scenes/chain.toml"], corrections["scenes/box.toml"])
	if corrections["scenes/chain.toml"] > corrections["scenes/box.toml"] {
		t.Errorf("the settled chain was corrected %d times, the loose box %d", corrections["scenes/chain.toml"], corrections["scenes/box.toml"])
	}
}

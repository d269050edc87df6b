package session

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"vkm/host/game"
	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/replication"
	"vkm/transport"
	"vkm/transport/memnet"
	"vkm/wire"
)

// lossyDown loses a third of what the server sends, and duplicates and
// reorders some of it; the way up is an ordinary broadband link.
var lossyDown = memnet.Profile{
	Name: "lossy",
	Up:   memnet.Broadband.Up,
	Down: memnet.LinkConfig{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 1.0 / 3, Duplicate: 0.05, Reorder: 0.05},
}

// mismatches lists every replicated value the client holds differently
// from what the server's wire would say, for every entity the server
// describes. The client's own entity is its prediction: its pose need only
// agree within the 3 mm that decides a correction.
func mismatches(srv, cl *game.Game) []string {
	var out []string
	add := func(id entity.ID, what string, s, c any) {
		out = append(out, id.String()+" "+srv.Store().Name(id)+" "+what+": server "+fmtAny(s)+", client "+fmtAny(c))
	}
	srv.Store().Each(func(id entity.ID) bool {
		if srv.Store().Instanced(id) {
			return true
		}
		if !cl.Store().Alive(id) {
			add(id, "alive", true, false)
			return true
		}
		if b := srv.Store().Body(id); b != nil && b.Type == entity.Static {
			return true
		}
		st, ct := srv.Store().Transform(id), cl.Store().Transform(id)
		want := entity.Transform{X: wire.Position.Quantize(st.X), Y: wire.Position.Quantize(st.Y), Angle: wire.Angle.Quantize(st.Angle), Scale: st.Scale}
		if id == cl.Own() {
			if !prediction.Agrees(*ct, *st) {
				add(id, "predicted transform", *st, *ct)
			}
		} else if *ct != want {
			add(id, "transform", want, *ct)
		}
		if sr := srv.Store().Rigidbody(id); sr != nil && id != cl.Own() {
			want := entity.Rigidbody{VX: wire.Velocity.Quantize(sr.VX), VY: wire.Velocity.Quantize(sr.VY), AngularVelocity: wire.AngularVelocity.Quantize(sr.AngularVelocity), Awake: sr.Awake}
			if cr := cl.Store().Rigidbody(id); cr == nil || *cr != want {
				add(id, "rigidbody", want, cr)
			}
		}
		if sc := srv.Store().Controller(id); sc != nil {
			if cc := cl.Store().Controller(id); cc == nil || cc.Grounded != sc.Grounded {
				add(id, "grounded", sc.Grounded, cc)
			}
		}
		srv.Store().EachComponent(id, func(typ int, v entity.Values) {
			c := cl.Store().Component(id, typ)
			if len(c) != len(v) {
				add(id, srv.Schema().Types[typ].Name, v, c)
				return
			}
			for i := range v {
				if c[i] != v[i] {
					add(id, srv.Schema().Types[typ].Name, v, c)
					return
				}
			}
		})
		return true
	})
	return out
}

func fmtAny(v any) string { return fmt.Sprintf("%+v", v) }

// asleep reports whether every body of g's world has come to rest.
func asleep(g *game.Game) bool {
	still := true
	g.Store().Each(func(id entity.ID) bool {
		if rb := g.Store().Rigidbody(id); rb != nil && rb.Awake {
			still = false
		}
		return still
	})
	return still
}

// countNamed counts the live entities called name.
func countNamed(g *game.Game, name string) int {
	n := 0
	g.Store().Each(func(id entity.ID) bool {
		if g.Store().Name(id) == name {
			n++
		}
		return true
	})
	return n
}

// tumble throws every crate of the server's world into the air.
func tumble(g *game.Game, rng *rand.Rand) int {
	n := 0
	g.Store().Each(func(id entity.ID) bool {
		if name := g.Store().Name(id); len(name) > 5 && name[:5] == "crate" {
			rb := g.Store().Rigidbody(id)
			rb.VX, rb.VY, rb.AngularVelocity, rb.Awake = rng.Float64()*16-8, 6+rng.Float64()*8, rng.Float64()*10-5, true
			n++
		}
		return true
	})
	return n
}

func TestAWorldConvergesThroughALossyLink(t *testing.T) {
	const seed = 1729
	h := newHarness(t, loadArena(t))
	a := h.join(loadArena(t), lossyDown, seed)
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() })
	crates := tumble(h.server.Game(), rand.New(rand.NewPCG(seed, 1)))
	// The crates tumble and settle; the spawner puts pickups out meanwhile.
	start := h.now
	// Settled: every body at rest and the spawner done (it keeps three
	// pickups out, and nobody collects them).
	h.runUntil(30*time.Second, "the world settling", func() bool {
		return asleep(h.server.Game()) && countNamed(h.server.Game(), "pickup") == 3
	})
	settled := time.Duration(h.now - start)
	h.run(time.Second) // the last news reaches the client and is confirmed
	st := h.server.seats[a.c.Net().Player()]
	t.Logf("seed %d: %d crates thrown, asleep after %v; server to client: %+v", seed, crates, settled, a.pipe.BtoA.Counts())
	if bad := mismatches(h.server.Game(), a.c.Game()); len(bad) > 0 {
		for _, b := range bad {
			t.Error(b)
		}
		t.Fatalf("%d values differ after the world settled", len(bad))
	}
	// Settled and confirmed: each snapshot is its header and the own
	// entity, nothing else.
	quiet := 0
	for range 64 {
		h.run(time.Second / 64)
		s := st.peer.Stats()
		if s.Entries != 1 || !s.OwnWritten || s.Removals != 0 {
			for _, e := range a.c.snap.Entries {
				t.Logf("  entry %v %s changes %v", e.ID, a.c.Game().Store().Name(e.ID), e.Changes)
			}
			t.Fatalf("a settled world's snapshot still says %+v", s)
		}
		quiet = s.Bytes
	}
	t.Logf("settled snapshot: %d bytes (header + own entity)", quiet)
}

func TestABodyMovedThroughTotalLossEndsWhereTheServerLeftIt(t *testing.T) {
	const seed = 99
	h := newHarness(t, loadArena(t))
	a := h.join(loadArena(t), memnet.Lan, seed)
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() })
	h.run(time.Second)
	srv := h.server.Game()
	crate := srv.Store().At(30)
	// Everything the server sends is lost while the crate is moved across
	// the hall and comes to rest there.
	a.cut = true
	for i := range 20 {
		tr := srv.Store().Transform(crate)
		tr.X = -10 + float64(i)
		h.run(time.Second / 64)
	}
	h.run(2 * time.Second)
	a.cut = false
	h.run(time.Second)
	want := wire.Position.Quantize(srv.Store().Transform(crate).X)
	got := a.c.Game().Store().Transform(crate).X
	t.Logf("crate at x=%.3f on the server, %.3f on the client after the burst", want, got)
	if got != want {
		t.Fatalf("the client holds x=%v, the server %v: a claim lost in the burst was taken as confirmed", got, want)
	}
}

func TestAReusedSlotLeavesNothingOfItsOldOccupant(t *testing.T) {
	h := newHarness(t, loadArena(t))
	a := h.join(loadArena(t), memnet.Lan, 3)
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() })
	srv, cl := h.server.Game(), a.c.Game()
	old, err := srv.Spawn("prefabs/player.toml", entity.Transform{X: 0, Y: 2, Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	h.run(500 * time.Millisecond)
	health := srv.Schema().Index("Health")
	if cl.Store().Component(old, health) == nil {
		t.Fatal("the spawned character never reached the client with its Health")
	}
	// Between two sends: the character goes, a pickup takes its slot.
	srv.Destroy(old)
	fresh, err := srv.Spawn("prefabs/pickup.toml", entity.Transform{X: 5, Y: 1, Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Slot != old.Slot {
		t.Fatalf("the pickup took slot %d, not the freed %d: the test proves nothing", fresh.Slot, old.Slot)
	}
	h.run(500 * time.Millisecond)
	got := cl.Store().At(old.Slot)
	if got != fresh || cl.Store().Name(got) != "pickup" {
		t.Fatalf("slot %d holds %v %q on the client, want the pickup %v", old.Slot, got, cl.Store().Name(got), fresh)
	}
	if cl.Store().Component(got, health) != nil || cl.Store().Controller(got) != nil || cl.Store().Rigidbody(got) != nil {
		t.Fatal("the pickup kept components of the character that held its slot before")
	}
	if tr := cl.Store().Transform(got); tr.X != 5 || tr.Y != 1 {
		t.Fatalf("the pickup stands at (%v,%v), want its spawn pose (5,1)", tr.X, tr.Y)
	}
}

// TestArenaBandwidthPerPeer measures what one peer is sent, headers
// included, with four players running about the arena and then with the
// world settled. It asserts only that the settled world costs less; the
// figures are for BENCHMARKS.md.
func TestArenaBandwidthPerPeer(t *testing.T) {
	t.Parallel() // its own sessions, game and link; nothing shared
	h := newHarness(t, loadArena(t))
	var peers []*peer
	for i := range 4 {
		peers = append(peers, h.join(loadArena(t), memnet.Lan, uint64(10+i)))
	}
	h.runUntil(5*time.Second, "four joins", func() bool {
		for _, p := range peers {
			if !p.c.Playing() {
				return false
			}
		}
		return true
	})
	h.runUntil(30*time.Second, "the world settling", func() bool {
		return asleep(h.server.Game()) && countNamed(h.server.Game(), "pickup") == 3
	})
	h.run(time.Second)
	srv := h.server.Game()
	sent := func() uint64 {
		for _, p := range h.server.Net().Players(nil, h.now) {
			if p.Player == peers[0].c.Net().Player() {
				return p.BytesOut
			}
		}
		return 0
	}
	measure := func(d time.Duration, move func(step int)) float64 {
		before, start := sent(), h.now
		for step := 0; h.now < start+transport.Time(d); step++ {
			if move != nil {
				move(step)
			}
			h.step()
		}
		return float64(sent()-before) / time.Duration(h.now-start).Seconds()
	}
	// Each player runs back and forth along the floor, as the server's
	// physics would move it.
	running := measure(4*time.Second, func(step int) {
		for i, st := range h.server.seats {
			tr, rb := srv.Store().Transform(st.entity), srv.Store().Rigidbody(st.entity)
			phase := float64(step)*0.01 + float64(i)
			tr.X, rb.VX, rb.Awake = 8*math.Sin(phase), 8*math.Cos(phase), true
		}
	})
	h.run(2 * time.Second)
	settled := measure(2*time.Second, nil)
	t.Logf("one peer's downstream at %d snapshots/s, datagram headers included: %.0f B/s with 4 players running, %.0f B/s settled",
		SnapshotRate, running, settled)
	if settled >= running {
		t.Fatalf("a settled world (%.0f B/s) costs no less than a busy one (%.0f B/s)", settled, running)
	}
}

func TestADestroyedStaticBodyLeavesTheClientAndALateJoinerSeesTheWorldAsItIs(t *testing.T) {
	h := newHarness(t, loadArena(t))
	a := h.join(loadArena(t), memnet.Lan, 21)
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() })
	h.run(2 * time.Second) // the character lands: grounded
	srv := h.server.Game()
	ledge := srv.Store().At(2)
	if srv.Store().Name(ledge) != "ledge_left" {
		t.Fatalf("slot 2 holds %q", srv.Store().Name(ledge))
	}
	// A static body is never described, but its going is.
	srv.Destroy(ledge)
	b := h.join(loadArena(t), memnet.Lan, 22)
	h.runUntil(5*time.Second, "the late join", func() bool { return b.c.Playing() })
	h.run(2 * time.Second)
	for _, p := range []*peer{a, b} {
		if p.c.Game().Store().Alive(ledge) {
			t.Fatalf("client %d still holds the destroyed ledge", p.c.Net().Player())
		}
		if bad := mismatches(srv, p.c.Game()); len(bad) > 0 {
			t.Fatalf("client %d differs: %v", p.c.Net().Player(), bad)
		}
	}
}

func TestABotsCommandsDriveItsCharacterOnTheServer(t *testing.T) {
	const seed = 64
	h := newHarness(t, loadArena(t))
	a := h.seated(memnet.Broadband, seed, true)
	st := h.server.seats[a.c.Net().Player()]
	start := *h.server.Game().Store().Transform(st.entity)
	var travelled float64
	last := start
	for range 10 * 64 {
		h.run(time.Second / 64)
		tr := *h.server.Game().Store().Transform(st.entity)
		travelled += math.Hypot(tr.X-last.X, tr.Y-last.Y)
		last = tr
	}
	q := st.queue.Stats()
	t.Logf("seed %d: over 10 s the server ran %d of the client's commands, %d repeats, %d skips, %d discarded; the character travelled %.1f m; pace %.3f",
		seed, q.Real, q.Repeats, q.Skips, q.Discarded, travelled, a.c.Game().Clock().Pace())
	if q.Real < 600 || travelled < 5 {
		t.Fatalf("the bot's commands did not drive its character: %+v, %.1f m", q, travelled)
	}
}

// TestPredictionHoldsInTheSteadyState plays a seeded bot for a minute of
// synthetic time on a perfect, a broadband and a mobile link, once the
// client has its character and a second has passed (the first snapshot
// that names it is a correction by construction), and measures every tick
// a snapshot judges: how far the client's prediction of its character was
// from the server's answer, and how many corrections that caused. On the
// perfect and the broadband link the prediction is exact, bit for bit,
// pushes and all: the server rounds what it simulates to what its
// snapshots carry and the client rounds its prediction the same way, and
// box2d's state depends on where the bodies are rather than on how each
// end came to hold them. What can still cost a correction is news the
// client has not had: a crate it does not lease that the server moved (the
// character's own shot knocked it, say) and that the character meets before
// the snapshot saying so arrives. On the mobile link losses can also make
// the server run a command dry, which is a correction; it is printed, not
// bounded.
func TestPredictionHoldsInTheSteadyState(t *testing.T) {
	t.Parallel() // its own sessions, game and link; nothing shared
	for _, profile := range []memnet.Profile{memnet.Perfect, memnet.Broadband, memnet.Mobile} {
		t.Run(profile.Name, func(t *testing.T) {
			const seed = 77
			h := newHarness(t, loadArena(t))
			a := h.seated(profile, seed, true)
			h.run(time.Second)
			before := a.c.rec
			a.c.rec.maxError = 0
			h.run(60 * time.Second)
			r := a.c.rec
			n, replayed := r.corrections-before.corrections, r.replayed-before.replayed
			t.Logf("seed %d, %s: %d corrections, %d ticks replayed, largest prediction error %.1f mm in a minute (%d corrections before it)",
				seed, profile.Name, n, replayed, r.maxError*1000, before.corrections)
			if profile.Name == memnet.Mobile.Name {
				return
			}
			if n != 0 || replayed != 0 {
				t.Errorf("%d corrections and %d ticks replayed in a minute of 3,840 ticks; want none", n, replayed)
			}
			if r.maxError != 0 {
				t.Errorf("largest prediction error %g mm; want 0.0", r.maxError*1000)
			}
		})
	}
}

// TestReplaysPresentNothingTwice counts the shots a client's character
// fires, as presentation events, against the server's count: a replayed
// tick runs the walker again but must not fire its effects again.
func TestReplaysPresentNothingTwice(t *testing.T) {
	const seed = 5
	h := newHarness(t, loadArena(t))
	a := h.seated(memnet.Broadband, seed, true)
	a.c.Game().DrainEvents()
	h.server.Game().DrainEvents()
	clientShots, serverShots := 0, 0
	count := func() {
		clientShots += countEvents(a.c.Game(), "shot")
		serverShots += countEvents(h.server.Game(), "shot")
	}
	before := a.c.rec.replayed
	for range 20 * 64 {
		h.run(time.Second / 64)
		count()
	}
	a.input = nil      // the player lets go
	h.run(time.Second) // and the server runs the last commands
	count()
	replayed := a.c.rec.replayed - before
	t.Logf("seed %d: %d shots on the client, %d on the server, %d ticks replayed meanwhile", seed, clientShots, serverShots, replayed)
	if replayed == 0 {
		t.Fatal("nothing was replayed: the test proves nothing")
	}
	if clientShots != serverShots {
		t.Fatalf("the client presented %d shots, the server fired %d", clientShots, serverShots)
	}
}

// steady is an Input that holds the same axes and buttons every tick.
type steady struct{ cmd prediction.Command }

func (s *steady) Next() prediction.Command { return s.cmd }

func TestAPushedCrateMovesAtOnceAndEndsWhereTheServerHasIt(t *testing.T) {
	h := newHarness(t, loadArena(t))
	a := h.seated(memnet.Broadband, 8, false)
	h.run(time.Second) // land
	g, srv := a.c.Game(), h.server.Game()
	crate := g.Store().At(30) // crate1, on the floor at x = -10, right of spawn 1
	if g.Store().Name(crate) != "crate1" {
		t.Fatalf("slot 30 is %q", g.Store().Name(crate))
	}
	run := &steady{}
	run.cmd.Axes[g.Project().AxisIndex("run")] = 1
	a.input = run
	x0 := g.Store().Transform(crate).X
	contact, moved := uint32(0), uint32(0)
	for range 3 * 64 {
		h.run(time.Second / 64)
		if contact == 0 && a.c.leases.Leased(crate, g.Tick()) {
			contact = g.Tick()
		}
		if moved == 0 && g.Store().Transform(crate).X > x0+0.001 {
			moved = g.Tick()
		}
	}
	a.input = nil
	h.runUntil(20*time.Second, "the world settling", func() bool { return asleep(srv) })
	h.run(time.Second)
	sx, cx := wire.Position.Quantize(srv.Store().Transform(crate).X), g.Store().Transform(crate).X
	t.Logf("leased at client tick %d, seen moving at tick %d; crate at x=%.3f on the server, %.3f on the client", contact, moved, sx, cx)
	if contact == 0 || moved == 0 || moved > contact+2 {
		t.Fatalf("the client saw the crate leased at tick %d and moving at tick %d", contact, moved)
	}
	if math.Abs(cx-sx) > 0.003 {
		t.Fatalf("after the push the client's crate is at %.4f, the server's at %.4f", cx, sx)
	}
}

func TestAWallOnlyTheServerHasIsReplayedAway(t *testing.T) {
	h := newHarness(t, loadArena(t))
	a := h.seated(memnet.Broadband, 13, false)
	h.run(time.Second)
	g, srv := a.c.Game(), h.server.Game()
	// A wall on the server alone, 3 m right of the character.
	own := srv.Store().Transform(g.Own())
	wall := srv.Store().Create()
	*srv.Store().Transform(wall) = entity.Transform{X: own.X + 3, Y: 1.5, Scale: 1}
	def := &entity.BodyDef{Type: entity.Static, GravityScale: 1, Shapes: []entity.Shape{{Kind: entity.Box, W: 0.5, H: 3, Friction: 0.6}}}
	srv.Store().SetBody(wall, def)
	if err := srv.Physics().Add(wall, def, *srv.Store().Transform(wall), entity.Rigidbody{}); err != nil {
		t.Fatal(err)
	}
	run := &steady{}
	run.cmd.Axes[g.Project().AxisIndex("run")] = 1
	a.input = run
	before := a.c.rec
	eased := 0
	for range 2 * 64 {
		h.run(time.Second / 64)
		eased = max(eased, a.c.smooth.Len())
	}
	a.input = nil
	h.run(time.Second)
	r := a.c.rec
	if eased == 0 {
		t.Fatal("no correction was eased in the picture")
	}
	sx := wire.Position.Quantize(srv.Store().Transform(g.Own()).X)
	cx := wire.Position.Quantize(g.Store().Transform(g.Own()).X)
	t.Logf("%d corrections, %d ticks replayed, largest %.1f mm; at rest the character is at x=%.3f on the server and %.3f on the client",
		r.corrections-before.corrections, r.replayed-before.replayed, r.maxCorrection*1000, sx, cx)
	if r.corrections == before.corrections {
		t.Fatal("the unseen wall caused no correction: the test proves nothing")
	}
	if sx != cx {
		t.Fatalf("the client's character rests at %v, the server's at %v", cx, sx)
	}
	// The corrections were eased in the picture, and the easing is over.
	if n := a.c.smooth.Len(); n != 0 {
		t.Fatalf("%d smoothing offsets still standing a second after the last correction", n)
	}
	drawnAt := 0.0
	a.c.Drawn(func() { drawnAt = g.Store().Transform(g.Own()).X })
	if drawnAt != g.Store().Transform(g.Own()).X {
		t.Fatalf("drawn at %v with no offset left, simulated at %v", drawnAt, g.Store().Transform(g.Own()).X)
	}
}

func TestTwoClientsPushingConvergeOnTheServersAnswer(t *testing.T) {
	t.Parallel() // its own sessions, game and link; nothing shared
	h := newHarness(t, loadArena(t))
	a := h.join(loadArena(t), memnet.Broadband, 31)
	b := h.join(loadArena(t), memnet.Broadband, 32)
	h.runUntil(5*time.Second, "both joins", func() bool {
		return a.c.Playing() && b.c.Playing() && !a.c.Game().Own().IsNone() && !b.c.Game().Own().IsNone()
	})
	h.run(time.Second)
	// Spawned at either end of the hall, they run at each other through
	// the crates between them.
	for _, p := range []*peer{a, b} {
		g := p.c.Game()
		run := &steady{}
		dir := 1.0
		if g.Store().Transform(g.Own()).X > 0 {
			dir = -1
		}
		run.cmd.Axes[g.Project().AxisIndex("run")] = dir
		p.input = run
	}
	leased := 0
	for range 4 * 64 {
		h.run(time.Second / 64)
		a.c.leases.Each(a.c.Game().Tick(), func(entity.ID) bool { leased++; return true })
	}
	// Both turn and walk back for a second, then stand: the leases lapse
	// and the crates are the server's again.
	for _, p := range []*peer{a, b} {
		r := p.input.(*steady)
		r.cmd.Axes[p.c.Game().Project().AxisIndex("run")] *= -1
	}
	h.run(time.Second)
	a.input, b.input = nil, nil
	srv := h.server.Game()
	h.run(5 * time.Second)
	t.Logf("client a leased bodies on %d ticks of the push; corrections: a %d, b %d", leased, a.c.rec.corrections, b.c.rec.corrections)
	if leased == 0 {
		t.Fatal("nobody pushed anything: the test proves nothing")
	}
	for _, p := range []*peer{a, b} {
		if bad := mismatches(srv, p.c.Game()); len(bad) > 0 {
			t.Fatalf("client %d differs from the server after the push: %v", p.c.Net().Player(), bad)
		}
	}
}

// countEvents drains g's presentation events and counts those called name.
func countEvents(g *game.Game, name string) int {
	n := 0
	for _, ev := range g.DrainEvents() {
		if ev.Name == name {
			n++
		}
	}
	return n
}

// TestServedReach serves the arena with a reach of 16 m and watches, from
// an idle player, a wandering one on perfect links: while the runner is
// within reach, every round's snapshot moves it; while it is well beyond,
// one round in replication.ReachEvery does (and the rounds between send
// the idle watcher nothing, since they have nothing to say), and it is
// still drawn moving between the poses heard.
func TestServedReach(t *testing.T) {
	t.Parallel() // its own sessions, game and link; nothing shared
	p := loadArena(t)
	p.Reach = 16
	h := newHarness(t, p)
	watcher := h.seated(memnet.Perfect, 31, false)
	runner := h.seated(memnet.Perfect, 32, true)
	other := runner.c.Game().Own()
	h.run(time.Second)
	wg, sv := watcher.c.Game(), h.server.Game()
	// Rounds (ticks, at 64 Hz) spent near and far while the runner ran,
	// and the snapshots that moved it then.
	var nearTicks, nearMoved, farTicks, farMoved uint32
	last := *wg.Store().Transform(other)
	seen, lastTick := watcher.c.interp.snapshots, watcher.c.snap.Tick
	// Frames drawn while the runner ran beyond reach, and those in which
	// it was drawn where the frame before drew it.
	var farFrames, farStill int
	var drawn, lastDrawn entity.Transform
	for end := h.now + 60e9; h.now < end; {
		h.step()
		watcher.c.Drawn(func() { drawn = *wg.Store().Transform(other) })
		if rb := sv.Store().Rigidbody(other); rb != nil && math.Hypot(rb.VX, rb.VY) > 1 {
			own := wg.Store().Transform(wg.Own())
			if math.Hypot(drawn.X-own.X, drawn.Y-own.Y) > p.Reach+2 {
				farFrames++
				if drawn.X == lastDrawn.X && drawn.Y == lastDrawn.Y {
					farStill++
				}
			}
		}
		lastDrawn = drawn
		if watcher.c.interp.snapshots == seen {
			continue
		}
		seen = watcher.c.interp.snapshots
		ticks := watcher.c.snap.Tick - lastTick
		lastTick = watcher.c.snap.Tick
		raw := *wg.Store().Transform(other)
		moved := raw.X != last.X || raw.Y != last.Y
		last = raw
		rb := sv.Store().Rigidbody(other)
		if rb == nil || math.Hypot(rb.VX, rb.VY) < 1 {
			continue // standing or nearly: a round may rightly say nothing
		}
		own := wg.Store().Transform(wg.Own())
		switch d := math.Hypot(raw.X-own.X, raw.Y-own.Y); {
		case d < p.Reach-1:
			nearTicks += ticks
			if moved {
				nearMoved++
			}
		case d > p.Reach+1:
			farTicks += ticks
			if moved {
				farMoved++
			}
		}
	}
	t.Logf("runner running: within reach %d rounds, %d snapshots moved it; beyond, %d and %d", nearTicks, nearMoved, farTicks, farMoved)
	t.Logf("drawn beyond reach: %d frames, still in %d", farFrames, farStill)
	if nearTicks < 300 || farTicks < 300 {
		t.Fatalf("the runner was not both near and far long enough to judge (%d and %d rounds)", nearTicks, farTicks)
	}
	if float64(nearMoved) < 0.95*float64(nearTicks) {
		t.Errorf("within reach, %d snapshots in %d rounds moved the runner: want nearly one a round", nearMoved, nearTicks)
	}
	// Silence about a mover is not a stop: the runner is drawn going
	// straight from one pose heard to the next, still only in frames
	// where the clock has caught up with the newest pose heard of it (a
	// track confirmed at each silent round stood still in 19 % of them).
	if farStill*8 > farFrames {
		t.Errorf("beyond reach, the running runner was drawn standing still in %d of %d frames", farStill, farFrames)
	}
	want := 1 / float64(replication.ReachEvery)
	if share := float64(farMoved) / float64(farTicks); share < 0.8*want || share > 1.2*want {
		t.Errorf("beyond reach, %d snapshots in %d rounds moved the runner: want one round in %d", farMoved, farTicks, replication.ReachEvery)
	}
}

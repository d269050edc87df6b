package session

import (
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vkm/host/bot"
	"vkm/host/project"
	"vkm/host/session/netmsg"
	"vkm/host/watch"
	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/transport"
	"vkm/transport/memnet"
)

// copyProject copies the project folder src into a fresh temporary folder
// and returns it, so a test can change its files on disk.
func copyProject(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	copyFolder(t, src, dst)
	return dst
}

// copyFolder copies the folder src, and everything in it, to dst.
func copyFolder(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// devHarness is a harness whose server runs with --dev on a copy of the
// arena, and whose clients join with --dev.
func devHarness(t *testing.T) (*harness, string) {
	t.Helper()
	dir := copyProject(t, "../../projects/arena")
	return devServe(t, dir), dir
}

// devServe is a harness whose server runs the project in dir with --dev,
// and whose clients join with --dev.
func devServe(t *testing.T, dir string) *harness {
	t.Helper()
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := watch.New(p.FS)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(ServerConfig{Project: p, Logger: testLogger(t), Changes: w})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &harness{t: t, server: s, dev: true}
}

// editedWalker is the arena's walker with old replaced by new, once.
func editedWalker(t *testing.T, old, new string) []byte {
	t.Helper()
	src, err := os.ReadFile("../../projects/arena/scripts/walker.lua")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(src), old, new, 1)
	if s == string(src) {
		t.Fatalf("the arena's walker no longer holds %q", old)
	}
	return []byte(s)
}

// slowWalker is the arena's walker running at half speed: a real change
// of the code a character is predicted with.
func slowWalker(t *testing.T) []byte {
	t.Helper()
	return editedWalker(t, "self:move(run)", "self:move(run * 0.5)")
}

// TestDevReloadRunsInStep saves a slower walker while a dev client plays:
// both ends take it at the same moment of the game, the character runs at
// the new speed on both, nobody is dropped, and no prediction is
// corrected because of it.
func TestDevReloadRunsInStep(t *testing.T) {
	const seed = 41
	h, dir := devHarness(t)
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	a := h.join(p, memnet.Lan, seed)
	bot, err := bot.New("wander", seed, len(p.Axes), len(p.Buttons))
	if err != nil {
		t.Fatal(err)
	}
	a.input = bot
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
	h.run(3 * time.Second)
	g, srv := a.c.Game(), h.server.Game()
	fastest := func(d time.Duration) (client, server float64) {
		for end := h.now + transport.Time(d); h.now < end; {
			h.step()
			client = math.Max(client, math.Abs(g.Store().Rigidbody(g.Own()).VX))
			server = math.Max(server, math.Abs(srv.Store().Rigidbody(g.Own()).VX))
		}
		return client, server
	}
	c0, s0 := fastest(3 * time.Second)

	if err := os.WriteFile(filepath.Join(dir, "scripts/walker.lua"), slowWalker(t), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := h.now
	h.runUntil(2*time.Second, "the reload on both ends", func() bool {
		return a.c.reloads == 1 && srv.Reloads() > 0
	})
	took := time.Duration(h.now - saved)
	before := a.c.rec.corrections
	c1, s1 := fastest(5 * time.Second)
	corrections := a.c.rec.corrections - before
	t.Logf("seed %d: fastest run before %.2f/%.2f m/s (client/server), after %.2f/%.2f; reloaded %v after the save; %d corrections in the 5 s after",
		seed, c0, s0, c1, s1, took, corrections)
	if took > time.Second {
		t.Errorf("the reload took %v after the save", took)
	}
	if s0 < 6 || c0 < 6 || s1 > 4.01 || c1 > 4.01 {
		t.Errorf("the run speed did not halve on both ends")
	}
	if corrections != 0 {
		t.Errorf("%d corrections after the reload", corrections)
	}
	if !a.c.Playing() || h.server.Net().PlayerCount() != 1 {
		t.Errorf("the client was dropped: %q, %d players", a.c.why, h.server.Net().PlayerCount())
	}
}

// trigger is an input that stands still and presses a button once every
// `every` ticks.
type trigger struct{ button, every, n int }

func (p *trigger) Next() prediction.Command {
	var c prediction.Command
	if p.n%p.every == 0 {
		c.Held, c.Pressed = 1<<p.button, 1<<p.button
	}
	p.n++
	return c
}

// TestEditingTheArenasWalker is a developer changing the arena's own
// walker while playing it on a dev server: in a copy of the arena, the
// height the walker's shots leave from (its SHOULDER, 0.4 m above the
// character's centre) is saved as 0.9 m while a dev client stands and
// fires. Before the save every shot leaves 0.4 m up on the server and on
// the client; once the reload has reached both, every shot leaves 0.9 m
// up on both.
func TestEditingTheArenasWalker(t *testing.T) {
	dir := copyProject(t, "../../projects/arena")
	raiseTheShoulder(t, dir, filepath.Join(dir, "scripts", "walker.lua"))
}

// TestEditingTheArenasWalkerReloadsTheCrowd: the crowd extends the arena,
// so a dev server of the crowd watches the arena's folder too. The same
// save of the arena's walker reloads on a crowd server and its dev client
// as it does in the arena.
func TestEditingTheArenasWalkerReloadsTheCrowd(t *testing.T) {
	t.Parallel() // its own sessions, game and link; nothing shared
	root := t.TempDir()
	copyFolder(t, "../../projects/arena", filepath.Join(root, "arena"))
	copyFolder(t, "../../projects/crowd", filepath.Join(root, "crowd"))
	raiseTheShoulder(t, filepath.Join(root, "crowd"), filepath.Join(root, "arena", "scripts", "walker.lua"))
}

// raiseTheShoulder serves the project in dir with --dev, joins a dev
// client that stands and fires, saves walker (the arena's walker.lua, as
// the project in dir reads it) with its shots leaving 0.9 m above the
// character rather than 0.4 m, and checks both ends shoot from 0.4 m
// before the save and from 0.9 m once both have reloaded.
func raiseTheShoulder(t *testing.T, dir, walker string) {
	t.Helper()
	h := devServe(t, dir)
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	a := h.join(p, memnet.Lan, 23)
	a.input = &trigger{button: p.ButtonIndex("fire"), every: 32}
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
	h.run(2 * time.Second) // the character lands and stands
	srv, g := h.server.Game(), a.c.Game()
	// shots runs for d and returns how high above the shooter each shot
	// left, on the server and on the client. The character stands still,
	// so where it stands when a step's events are read is where it fired.
	shots := func(d time.Duration) (server, client []float64) {
		srv.DrainEvents()
		g.DrainEvents()
		for end := h.now + transport.Time(d); h.now < end; {
			h.step()
			for _, ev := range srv.DrainEvents() {
				if ev.Name == "shot" {
					server = append(server, ev.Fields["y1"].(float64)-srv.Store().Transform(ev.Entity).Y)
				}
			}
			for _, ev := range g.DrainEvents() {
				if ev.Name == "shot" {
					client = append(client, ev.Fields["y1"].(float64)-g.Store().Transform(g.Own()).Y)
				}
			}
		}
		return server, client
	}
	all := func(heights []float64, want float64) bool {
		for _, h := range heights {
			if math.Abs(h-want) > 1e-6 {
				return false
			}
		}
		return len(heights) >= 3
	}
	s0, c0 := shots(2 * time.Second)

	if err := os.WriteFile(walker, editedWalker(t, "local SHOULDER = 0.4", "local SHOULDER = 0.9"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.runUntil(2*time.Second, "the reload on both ends", func() bool { return a.c.reloads == 1 && srv.Reloads() > 0 })
	s1, c1 := shots(2 * time.Second)
	t.Logf("%s: shots left this high above the shooter: before the save %v (server), %v (client); after the reload %v (server), %v (client)",
		p.Name, s0, c0, s1, c1)
	if !all(s0, 0.4) || !all(c0, 0.4) {
		t.Errorf("before the save, shots did not all leave 0.4 m up on both ends")
	}
	if !all(s1, 0.9) || !all(c1, 0.9) {
		t.Errorf("after the reload, shots did not all leave 0.9 m up on both ends")
	}
	if errs := append(srv.ScriptErrors(), g.ScriptErrors()...); len(errs) != 0 || !a.c.Playing() {
		t.Errorf("client playing %v; script errors %v", a.c.Playing(), errs)
	}
}

// logBuffer collects a logger's lines.
type logBuffer struct{ strings.Builder }

func (b *logBuffer) Write(p []byte) (int, error) { return b.Builder.Write(p) }

// TestDevReloadRefusesASyntaxError saves a walker with a syntax error: the
// server logs its file and line and changes nothing anywhere; saving the
// fix reloads it.
func TestDevReloadRefusesASyntaxError(t *testing.T) {
	h, dir := devHarness(t)
	var logged logBuffer
	h.server.log = slog.New(slog.NewTextHandler(&logged, nil))
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	a := h.join(p, memnet.Lan, 3)
	h.dev = false
	plain := h.join(p, memnet.Lan, 4)
	h.runUntil(5*time.Second, "the joins", func() bool {
		return a.c.Playing() && !a.c.Game().Own().IsNone() && plain.c.Playing()
	})
	walker := filepath.Join(dir, "scripts/walker.lua")
	broken := "local Walker = {}\nif then\nreturn Walker\n"
	if err := os.WriteFile(walker, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	h.run(2 * time.Second)
	line := ""
	for _, l := range strings.Split(logged.String(), "\n") {
		if strings.Contains(l, "reload refused") {
			line = l
		}
	}
	t.Logf("server log: %s", line)
	if !strings.Contains(line, "scripts/walker.lua:2") {
		t.Fatalf("no log line naming scripts/walker.lua:2; the log:\n%s", logged.String())
	}
	if h.server.Game().Reloads() > 0 || a.c.reloads != 0 || h.server.dev.pending != nil {
		t.Fatal("a script with a syntax error was reloaded somewhere")
	}
	// The dev client is told, with the file and line; the other is told
	// nothing and plays on.
	notices, n := a.c.DevNotices()
	t.Logf("the dev client was told %d notice(s): %q", n, notices)
	if n != 1 || len(notices) != 1 || !strings.Contains(notices[0], "reload refused") || !strings.Contains(notices[0], "scripts/walker.lua:2") {
		t.Fatalf("the dev client was told %d notices %q; want the refusal naming scripts/walker.lua:2", n, notices)
	}
	if pn, pc := plain.c.DevNotices(); pc != 0 || len(pn) != 0 || !plain.c.Playing() {
		t.Fatalf("the client without --dev was told %q and plays %v; want nothing told, playing", pn, plain.c.Playing())
	}
	if err := os.WriteFile(walker, slowWalker(t), 0o644); err != nil {
		t.Fatal(err)
	}
	h.runUntil(2*time.Second, "the fixed script's reload", func() bool { return a.c.reloads == 1 && h.server.Game().Reloads() > 0 })
	if !a.c.Playing() {
		t.Fatalf("the client is not playing: %q", a.c.why)
	}
}

// TestReloadWithoutDevEndsTheClient: a client that joined without --dev is
// told at the first reload why it cannot follow, and ends Disconnected
// with that reason; a dev client beside it plays on.
func TestReloadWithoutDevEndsTheClient(t *testing.T) {
	h, dir := devHarness(t)
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	dev := h.join(p, memnet.Lan, 5)
	h.dev = false
	plain := h.join(p, memnet.Lan, 6)
	h.runUntil(5*time.Second, "the joins", func() bool {
		return plain.c.Playing() && dev.c.Playing()
	})
	if err := os.WriteFile(filepath.Join(dir, "scripts/walker.lua"), slowWalker(t), 0o644); err != nil {
		t.Fatal(err)
	}
	h.runUntil(2*time.Second, "the reload", func() bool { return dev.c.reloads == 1 })
	h.run(time.Second)
	why := plain.c.Game().LastError()
	t.Logf("the plain client: playing %v, %q; players seated: %d", plain.c.Playing(), why, h.server.Net().PlayerCount())
	if !plain.c.ended || !strings.Contains(why, "--dev") {
		t.Fatalf("the client without --dev: ended %v with %q", plain.c.ended, why)
	}
	if plain.c.reloads != 0 {
		t.Fatal("the client without --dev ran the server's code")
	}
	if !dev.c.Playing() || h.server.Net().PlayerCount() != 1 {
		t.Fatalf("dev client playing %v; %d seated", dev.c.Playing(), h.server.Net().PlayerCount())
	}
}

// TestReloadAddsAField adds a field to Health while a client plays: the
// client keeps playing, its store gains the field, and it receives the
// values the server gives it.
func TestReloadAddsAField(t *testing.T) {
	h, dir := devHarness(t)
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	a := h.join(p, memnet.Broadband, 8)
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
	h.run(time.Second)
	mainLua := filepath.Join(dir, "scripts/main.lua")
	src, err := os.ReadFile(mainLua)
	if err != nil {
		t.Fatal(err)
	}
	grown := strings.Replace(string(src), `{"hp", net.int(0, 100)},`, `{"hp", net.int(0, 100)}, {"armor", net.int(0, 50)},`, 1)
	if grown == string(src) {
		t.Fatal("main.lua no longer registers Health as the test expects")
	}
	if err := os.WriteFile(mainLua, []byte(grown), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, g := h.server.Game(), a.c.Game()
	h.runUntil(2*time.Second, "the reload", func() bool { return a.c.reloads == 1 && srv.Reloads() > 0 })
	typ := srv.Schema().Index("Health")
	armor := srv.Schema().Field(typ, "armor")
	if armor < 0 {
		t.Fatal("the server's Health has no armor field after the reload")
	}
	hp := srv.Schema().Field(typ, "hp")
	srv.Store().Component(g.Own(), typ)[armor] = 37
	h.runUntil(2*time.Second, "the new field's value on the client", func() bool {
		v := g.Store().Component(g.Own(), g.Schema().Index("Health"))
		return len(v) > armor && v[armor] == 37
	})
	v := g.Store().Component(g.Own(), g.Schema().Index("Health"))
	t.Logf("client Health after the reload: %v (hp kept: %v); snapshots dropped as written under the old schema: %d", v, v[hp], a.c.staleSchema)
	if v[hp] != srv.Store().Component(g.Own(), typ)[hp] || !a.c.Playing() {
		t.Fatalf("client playing %v, Health %v", a.c.Playing(), v)
	}
}

// TestReplayAcrossAReloadRunsTheCodeOfEachTick replays, after a reload, the
// ticks since five before it: those before the reload run the old code
// and those after the new, so the replay lands exactly where the
// prediction was; replayed on the new code alone, it would not.
func TestReplayAcrossAReloadRunsTheCodeOfEachTick(t *testing.T) {
	h, dir := devHarness(t)
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	a := h.join(p, link100, 17) // a round trip long enough to keep the reload unjudged for a while
	run := &steady{}
	a.input = run
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
	if err := os.WriteFile(filepath.Join(dir, "scripts/walker.lua"), slowWalker(t), 0o644); err != nil {
		t.Fatal(err)
	}
	h.runUntil(2*time.Second, "the reload's scheduling", func() bool { return h.server.dev.pending != nil })
	// At half speed from the spawn toward the first crate, 6 m off, so
	// that it stays clear of it: the replays below restore the character
	// alone, and a crate met within their window would make them differ
	// for that reason, wherever the reload's arrival puts the window.
	run.cmd.Axes[p.AxisIndex("run")] = 0.5
	h.runUntil(2*time.Second, "the reload", func() bool { return a.c.reloads == 1 })
	g := a.c.Game()
	for g.Tick() < a.c.reloadTick+3 {
		h.step()
	}
	if a.c.oldCodeBefore == 0 {
		t.Fatal("the old code was dropped before any replay could need it")
	}
	replayFrom := func(from uint32, oldCode bool) entity.Transform {
		own := g.Own()
		saved, savedRB := *g.Store().Transform(own), *g.Store().Rigidbody(own)
		t0, rb0, ok := a.c.rec.pred.At(from-1, own)
		if !ok {
			t.Fatalf("no prediction held for tick %d", from-1)
		}
		*g.Store().Transform(own) = t0
		g.Store().SetRigidbody(own, &rb0)
		g.Physics().Place(own, g.Store().Transform(own), g.Store().Rigidbody(own))
		keep := a.c.oldCodeBefore
		if !oldCode {
			a.c.oldCodeBefore = 0
		}
		g.Replay(from, g.Tick(), a.c.rec.command, a.c.recordPrediction)
		g.UseOldCode(false)
		a.c.oldCodeBefore = keep
		got := *g.Store().Transform(own)
		*g.Store().Transform(own) = saved
		g.Store().SetRigidbody(own, &savedRB)
		g.Physics().Place(own, g.Store().Transform(own), g.Store().Rigidbody(own))
		return got
	}
	want := *g.Store().Transform(g.Own())
	from := a.c.reloadTick - 5
	withOld := replayFrom(from, true)
	newOnly := replayFrom(from, false)
	t.Logf("reload at client tick %d; replaying from %d to %d: predicted x %.4f, replayed with each tick's code %.4f, with the new code only %.4f",
		a.c.reloadTick, from, g.Tick(), want.X, withOld.X, newOnly.X)
	if withOld != want {
		t.Fatalf("replayed with each tick's code to %+v, predicted %+v", withOld, want)
	}
	if newOnly == want {
		t.Fatal("the new code alone replays to the same place: the test proves nothing")
	}
}

// TestDevReloadRefusesWhatClientsCannotRead saves a script whose path is
// longer than a bundle may carry: the server refuses the reload and logs
// why, rather than send a bundle every dev client must end on; the
// client plays on.
func TestDevReloadRefusesWhatClientsCannotRead(t *testing.T) {
	h, dir := devHarness(t)
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	a := h.join(p, memnet.Lan, 7)
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
	long := filepath.Join(dir, "scripts", strings.Repeat("a", netmsg.MaxBundlePath)+".lua")
	if err := os.WriteFile(long, []byte("return 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.run(2 * time.Second)
	if !a.c.Playing() {
		t.Fatalf("the dev client is not playing: %q", a.c.Game().LastError())
	}
	if h.server.dev.pending != nil || h.server.Game().Reloads() > 0 {
		t.Fatal("a bundle no client can read was scheduled")
	}
}

// TestCheckBundleLimits: a bundle over the limits a client reads bundles
// with is refused before it is sent.
func TestCheckBundleLimits(t *testing.T) {
	h, _ := devHarness(t)
	g := h.server.Game()
	half := append([]byte("return 1\n--"), strings.Repeat("x", transport.DefaultReliableMaxMessage/2)...)
	many := map[string][]byte{}
	for i := range netmsg.MaxBundleFiles + 1 {
		many[fmt.Sprintf("scripts/s%d.lua", i)] = []byte("return 1\n")
	}
	for name, files := range map[string]map[string][]byte{
		"long path": {"scripts/" + strings.Repeat("a", netmsg.MaxBundlePath) + ".lua": []byte("return 1\n")},
		"too large": {"scripts/a.lua": half, "scripts/b.lua": half},
		"too many":  many,
	} {
		if err := checkBundle(g, files); err == nil {
			t.Errorf("%s: accepted", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	if err := checkBundle(g, map[string][]byte{"scripts/ok.lua": []byte("return 1\n")}); err != nil {
		t.Errorf("a small bundle: %v", err)
	}
}

// TestAFullChannelEndsTheConnection: a dev client that takes nothing the
// server sends (its link is cut) fills its message channel's window; the
// next reload cannot be queued for it, and its connection ends with a
// reason in the server's log rather than growing the server's memory.
func TestAFullChannelEndsTheConnection(t *testing.T) {
	h, dir := devHarness(t)
	var logged logBuffer
	h.server.log = slog.New(slog.NewTextHandler(&logged, nil))
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	a := h.join(p, memnet.Lan, 9)
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
	st := h.server.seats[a.c.Net().Player()]
	h.runUntil(time.Second, "the player list's delivery", func() bool { return st.rel.Pending() == 0 })
	a.cut = true
	big := make([]byte, transport.DefaultReliableMaxMessage)
	queued := 0
	for st.rel.Send(big) == nil {
		queued++
	}
	h.server.scheduleReload(map[string][]byte{"scripts/walker.lua": slowWalker(t)})
	h.server.events()
	t.Logf("%d messages of %d bytes filled the window; players seated after the reload: %d", queued, len(big), h.server.Net().PlayerCount())
	if h.server.Net().PlayerCount() != 0 || !strings.Contains(logged.String(), "message channel is full") {
		t.Fatalf("the player is still seated (%d) or no reason was logged:\n%s", h.server.Net().PlayerCount(), logged.String())
	}
}

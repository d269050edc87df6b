package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vkm/host/game"
	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/transport"
)

// scaledArena is a copy of the arena whose walker runs at its run_scale
// prop (1 in the player prefab) and reports on_reload's old and new
// scale, and the path of the copy's player prefab.
func scaledArena(t *testing.T) (dir, prefab string) {
	t.Helper()
	dir = copyProject(t, "../../projects/arena")
	walker := string(editedWalker(t, "self:move(run)", "self:move(run * self.run_scale)"))
	walker = strings.Replace(walker, "\nreturn Walker", `
function Walker:on_reload(old)
  self:emit("props_reloaded", { old_scale = old.run_scale, scale = self.run_scale })
end

return Walker`, 1)
	if err := os.WriteFile(filepath.Join(dir, "scripts/walker.lua"), []byte(walker), 0o644); err != nil {
		t.Fatal(err)
	}
	prefab = filepath.Join(dir, "prefabs/player.toml")
	setRunScale(t, prefab, "cooldown = 0.25,", "cooldown = 0.25, run_scale = 1.0,")
	return dir, prefab
}

// setRunScale saves the player prefab at path with old replaced by new.
func setRunScale(t *testing.T, path, old, new string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(src), old, new, 1)
	if s == string(src) {
		t.Fatalf("%s no longer holds %q", path, old)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDevReloadGivesPrefabPropsInStep saves the player prefab with the
// character's run_scale prop halved while a dev client runs: the server
// and the client give the live character the new prop at the same tick
// (the server's reload tick runs the client's reload tick's command),
// on_reload sees the old scale on both, the character runs at half speed
// on both with no correction, and a replay from before the reload lands
// where the prediction was only because the ticks before it run on the old
// prop.
func TestDevReloadGivesPrefabPropsInStep(t *testing.T) {
	dir, prefab := scaledArena(t)
	h := devServe(t, dir)
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	a := h.join(p, link100, 29) // a round trip long enough to keep the reload unjudged for a while
	run := &steady{}
	a.input = run
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
	h.run(time.Second) // the character lands and stands
	g, srv := a.c.Game(), h.server.Game()
	own := g.Own()

	corrected := a.c.rec.corrections
	setRunScale(t, prefab, "run_scale = 1.0", "run_scale = 0.5")
	h.runUntil(2*time.Second, "the reload's scheduling", func() bool { return h.server.dev.pending != nil })
	run.cmd.Axes[p.AxisIndex("run")] = 1 // from the spawn toward the first crate, 6 m off
	reloaded := func(g *game.Game) (ev []map[string]any) {
		for _, e := range g.DrainEvents() {
			if e.Name == "props_reloaded" {
				if e.Entity != own {
					t.Errorf("on_reload reported on %v, want the character %v", e.Entity, own)
				}
				ev = append(ev, e.Fields)
			}
		}
		return ev
	}
	srv.DrainEvents()
	g.DrainEvents()
	var srvEv, cliEv []map[string]any
	var srvRan uint32   // the client tick of the command the server's reload tick ran
	var fast [2]float64 // the run speed on the client and the server just before each reloaded
	for limit := h.now + transport.Time(2*time.Second); a.c.reloads == 0 || srv.Reloads() == 0; {
		if h.now > limit {
			t.Fatal("no reload on both ends within 2 s")
		}
		before := srv.Reloads()
		if a.c.reloads == 0 {
			fast[0] = g.Store().Rigidbody(own).VX
		}
		if before == 0 {
			fast[1] = srv.Store().Rigidbody(own).VX
		}
		h.step()
		if srv.Reloads() != before {
			srvRan = h.server.drivenTick[own]
		}
		srvEv = append(srvEv, reloaded(srv)...)
		cliEv = append(cliEv, reloaded(g)...)
	}
	for end := a.c.reloadTick + 3; g.Tick() < end; {
		h.step()
	}
	if a.c.oldCodeBefore == 0 {
		t.Fatal("the props from before the reload were dropped before any replay could need them")
	}
	t.Logf("reload at client tick %d; the server's reload tick ran the client's tick %d", a.c.reloadTick, srvRan)
	if srvRan != a.c.reloadTick {
		t.Errorf("the server gave the new props at the tick of client tick %d, the client at %d", srvRan, a.c.reloadTick)
	}
	for end, ev := range map[string][]map[string]any{"server": srvEv, "client": cliEv} {
		if len(ev) != 1 || ev[0]["old_scale"] != 1.0 || ev[0]["scale"] != 0.5 {
			t.Errorf("%s: on_reload reported %v, want once from scale 1 to 0.5", end, ev)
		}
	}

	replayFrom := func(from uint32, oldProps bool) entity.Transform {
		saved, savedRB := *g.Store().Transform(own), *g.Store().Rigidbody(own)
		t0, rb0, ok := a.c.rec.pred.At(from-1, own)
		if !ok {
			t.Fatalf("no prediction held for tick %d", from-1)
		}
		*g.Store().Transform(own) = t0
		g.Store().SetRigidbody(own, &rb0)
		g.Physics().Place(own, g.Store().Transform(own), g.Store().Rigidbody(own))
		keep := a.c.oldCodeBefore
		if !oldProps {
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
	want := *g.Store().Transform(own)
	from := a.c.reloadTick - 5
	// The new props alone first: each replay records its predictions, and
	// the last leaves those the server's answers are compared with.
	newOnly := replayFrom(from, false)
	withOld := replayFrom(from, true)
	t.Logf("replaying from %d to %d: predicted x %.4f, replayed with each tick's props %.4f, with the new props only %.4f",
		from, g.Tick(), want.X, withOld.X, newOnly.X)
	if withOld != want {
		t.Errorf("replayed with each tick's props to %+v, predicted %+v", withOld, want)
	}
	if newOnly == want {
		t.Error("the new props alone replay to the same place: the replay check proves nothing")
	}

	for end := a.c.reloadTick + 16; g.Tick() < end; {
		h.step()
	}
	h.runUntil(time.Second, "the server at the same tick", func() bool {
		return h.server.drivenTick[own] >= a.c.reloadTick+16
	})
	slow := [2]float64{g.Store().Rigidbody(own).VX, srv.Store().Rigidbody(own).VX}
	corrections := a.c.rec.corrections - corrected
	t.Logf("run speed just before the reload %.2f/%.2f m/s (client/server), a quarter second after %.2f/%.2f, at x %.2f; %d corrections since the save",
		fast[0], fast[1], slow[0], slow[1], g.Store().Transform(own).X, corrections)
	if fast[0] < 7.9 || fast[1] < 7.9 || slow[0] != 4 || slow[1] != 4 {
		t.Errorf("the run speed did not halve on both ends")
	}
	if corrections != 0 {
		t.Errorf("%d corrections", corrections)
	}
	if errs := append(srv.ScriptErrors(), g.ScriptErrors()...); len(errs) != 0 || !a.c.Playing() {
		t.Errorf("client playing %v; script errors %v", a.c.Playing(), errs)
	}
}

package session

import (
	"io/fs"
	"os"
	"reflect"
	"testing"

	"vkm/host/game"
	"vkm/host/project"
	"vkm/internal/entity"
)

func loadCrowd(t testing.TB) *project.Project {
	t.Helper()
	p, err := project.LoadProject("../../projects/crowd")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// dynamicBodies counts the live entities of g with a dynamic body.
func dynamicBodies(g *game.Game) int {
	n := 0
	g.Store().Each(func(id entity.ID) bool {
		if b := g.Store().Body(id); b != nil && b.Type == entity.Dynamic {
			n++
		}
		return true
	})
	return n
}

// TestCrowdLoadsWith500CratesAnd64Seats checks the load project as
// TestExampleProjectLoads checks the arena, then seats all 64 players on a
// server through its join handler, each apart from the others, and runs a
// second of the crowded world without a script error.
func TestCrowdLoadsWith500CratesAnd64Seats(t *testing.T) {
	p := loadCrowd(t)
	if p.Players != 64 {
		t.Fatalf("crowd seats %d players, want 64", p.Players)
	}
	if _, err := project.ParseScene(p.EntryScene, mustReadFile(t, p.FS, p.EntryScene)); err != nil {
		t.Error(err)
	}
	prefabs, _ := fs.Glob(p.FS, "prefabs/*.toml")
	for _, f := range prefabs {
		if _, err := project.ParsePrefab(f, mustReadFile(t, p.FS, f)); err != nil {
			t.Error(err)
		}
	}
	s, err := NewServer(ServerConfig{Project: p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	g := s.Game()
	if n := dynamicBodies(g); n != 500 {
		t.Fatalf("crowd has %d dynamic bodies, want 500", n)
	}
	seen := map[[2]float64]uint16{}
	for player := uint16(1); player <= 64; player++ {
		id, err := g.Join(player)
		if err != nil || id.IsNone() {
			t.Fatalf("player %d not seated: %v", player, err)
		}
		tr := g.Store().Transform(id)
		at := [2]float64{tr.X, tr.Y}
		if other, ok := seen[at]; ok {
			t.Fatalf("players %d and %d start at the same place %v", other, player, at)
		}
		seen[at] = player
	}
	for range g.TickRate() {
		g.RunTick()
	}
	if errs := g.ScriptErrors(); len(errs) != 0 {
		t.Fatalf("script errors: %v", errs)
	}
	if n := dynamicBodies(g); n != 564 {
		t.Fatalf("%d dynamic bodies after a second, want the 500 crates and 64 characters", n)
	}
}

func mustReadFile(t testing.TB, fsys fs.FS, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCrowdPlaysTheArenasOwnScripts: the crowd extends the arena, so the
// behaviors it runs are the arena's files, read from the arena's folder,
// and no file of the crowd's is a copy of the arena's.
func TestCrowdPlaysTheArenasOwnScripts(t *testing.T) {
	p := loadCrowd(t)
	if p.Extends != "../arena" || len(p.Folders) != 2 {
		t.Fatalf("crowd extends %q, reads %v", p.Extends, p.Folders)
	}
	arena := loadArena(t)
	for _, name := range []string{"scripts/main.lua", "scripts/walker.lua", "scripts/pickup.lua", "scripts/spawner.lua", "prefabs/pickup.toml"} {
		if string(mustReadFile(t, p.FS, name)) != string(mustReadFile(t, arena.FS, name)) {
			t.Errorf("the crowd's %s is not the arena's", name)
		}
		if w, want := p.Where(name), arena.Where(name); w != want {
			t.Errorf("the crowd reads %s from %s, want %s", name, w, want)
		}
	}
	if p.EntryScript != arena.EntryScript || p.TickRate != arena.TickRate || !reflect.DeepEqual(p.Axes, arena.Axes) || !reflect.DeepEqual(p.Buttons, arena.Buttons) {
		t.Errorf("the crowd does not play the arena's entry script, tick rate and input actions")
	}
	own := os.DirFS(p.Dir)
	err := fs.WalkDir(own, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name == project.ProjectFile {
			return err
		}
		mine := mustReadFile(t, own, name)
		if theirs, err := fs.ReadFile(arena.FS, name); err == nil && string(theirs) == string(mine) {
			t.Errorf("projects/crowd/%s is a copy of the arena's", name)
		}
		t.Logf("the crowd's own: %s", name)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

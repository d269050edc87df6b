package session

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"vkm/host/game"
	"vkm/host/project"
)

// newHelloGame loads p into a Game of its own, offline.
func newHelloGame(t *testing.T, p *project.Project) *game.Game {
	t.Helper()
	g, err := game.New(game.Config{Project: p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g
}

func TestHelloSaysWhatThisEndHolds(t *testing.T) {
	p := loadArena(t)
	a, b := newHelloGame(t, p), newHelloGame(t, p)
	if Hello(a) != Hello(b) {
		t.Fatalf("two loads of one project disagree: %+v / %+v", Hello(a), Hello(b))
	}
	h := Hello(a)
	if h.SchemaFP == 0 || h.ActionFP == 0 || h.WorldFP == 0 || h.TickRate != 64 || h.ActionCount != 5 {
		t.Fatalf("hello %+v", h)
	}
	// The same component types registered in another order are another
	// schema: the index is the wire identity.
	q := *p
	fsys := fstest.MapFS{}
	for _, name := range []string{"scenes/arena.toml", "prefabs/player.toml", "prefabs/pickup.toml",
		"scripts/walker.lua", "scripts/pickup.lua", "scripts/spawner.lua", "scripts/join.lua", "scripts/talk.lua", "scripts/main.lua"} {
		data, err := fs.ReadFile(p.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		fsys[name] = &fstest.MapFile{Data: data}
	}
	main := string(fsys["scripts/main.lua"].Data)
	health := "  net.component(\"Health\", {\n    {\"hp\", net.int(0, 100)},\n  })\n"
	if !strings.Contains(main, health) {
		t.Fatal("main.lua no longer registers Health as this test expects")
	}
	swapped := strings.Replace(main, health, "", 1)
	swapped = strings.Replace(swapped, "  net.on_join(", health+"  net.on_join(", 1)
	fsys["scripts/main.lua"] = &fstest.MapFile{Data: []byte(swapped)}
	q.FS = fsys
	c := newHelloGame(t, &q)
	if c.Schema().Types[0].Name != "Score" {
		t.Fatalf("the reordered copy registers %s first", c.Schema().Types[0].Name)
	}
	if Hello(c).SchemaFP == h.SchemaFP {
		t.Fatal("the same types in another order gave the same schema fingerprint")
	}
}

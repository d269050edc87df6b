package browser

import (
	"os"
	"path/filepath"
	"testing"

	"vkm/host/project"
	"vkm/transport"
	"vkm/transport/memnet"
)

// TestViewerPlaysAFieldsChangeOnce: a [[sound]] with change names
// Score.kills; each time the server changes the other player's kills, the
// watching client's frames carry one "vkm.change" effect at that
// character, and none while the value stands or for an entity that only
// appeared.
func TestViewerPlaysAFieldsChangeOnce(t *testing.T) {
	dir := copyProject(t, filepath.Join(projects, "arena"))
	file := filepath.Join(dir, "project.toml")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sounds"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sounds", "kill.wav"), []byte("RIFF"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(src, "\n[[sound]]\nchange = \"Score.kills\"\nfile = \"sounds/kill.wav\"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := sounds(p); len(got) != 1 || got[0].Change != "Score.kills" || got[0].Event != "" {
		t.Fatalf("the page's sounds %+v", got)
	}
	h := serveInProcess(t, p)
	watcher := h.join(memnet.Broadband, 3, nil)
	runner := h.join(memnet.Broadband, 4, nil)
	page := &fakePage{}
	v := newViewer(watcher.c.Game(), page, ViewerConfig{})
	v.Watch(watcher.c, func() transport.Time { return h.now })
	play := func(steps int) {
		for range steps {
			h.step()
			v.Publish()
		}
	}
	play(1000)
	other := runner.c.Game().Own()
	if !watcher.c.Playing() || other.IsNone() {
		t.Fatal("the two clients are not playing")
	}
	changes := func() (n int) {
		seen := map[uint64]bool{}
		for _, f := range page.frames {
			for _, e := range f.Effects {
				if e.Name == "vkm.change" && !seen[e.Seq] {
					seen[e.Seq] = true
					if e.Entity != other || e.Fields["field"] != "Score.kills" {
						t.Errorf("a change effect %+v; want the other player's Score.kills", e)
					}
					n++
				}
			}
		}
		return n
	}
	if n := changes(); n != 0 {
		t.Fatalf("%d change effects before any kill", n)
	}
	srv := h.srv.Game()
	for kills := 1; kills <= 3; kills++ {
		srv.Store().Component(other, srv.Schema().Index("Score"))[0] = float64(kills)
		play(200)
		if n := changes(); n != kills {
			t.Fatalf("after %d kills set by the server: %d change effects", kills, n)
		}
	}
}

package browser

import (
	"os"
	"path/filepath"
	"testing"

	"vkm/host/project"
	"vkm/transport"
	"vkm/transport/memnet"
)

// TestViewerLooksFollowComponents: a prefab's look names component fields;
// the watching client draws the other player's character from the fields
// the server changed: its colour picked by Score.kills, its label counting
// them, and hidden until Score.deaths is not 0.
func TestViewerLooksFollowComponents(t *testing.T) {
	dir := copyProject(t, filepath.Join(projects, "arena"))
	file := filepath.Join(dir, "prefabs", "player.toml")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	look := "[entity.look]\nlabel = \"{player}: {Score.kills}\"\ncolorBy = \"Score.kills\"\ncolors = [\"#100\", \"#200\", \"#300\", \"#400\"]\nvisibleBy = \"Score.deaths\"\n"
	if err := os.WriteFile(file, append(src, look...), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := serveInProcess(t, p)
	watcher := h.join(memnet.Broadband, 3, nil)
	runner := h.join(memnet.Broadband, 4, nil)
	for range 1000 {
		h.step()
	}
	wg := watcher.c.Game()
	other := runner.c.Game().Own()
	if !watcher.c.Playing() || other.IsNone() {
		t.Fatal("the two clients are not playing")
	}
	v := newViewer(wg, &fakePage{}, ViewerConfig{})
	v.Watch(watcher.c, func() transport.Time { return h.now })
	var name string
	for _, pl := range wg.Players() {
		if pl.Entity == other {
			name = pl.Name
		}
	}
	find := func() (color, label string, visible, ok bool) {
		for _, l := range v.looks(nil) {
			if l.ID == other {
				return l.Color, l.Label, l.Visible, true
			}
		}
		return "", "", false, false
	}
	if c, l, vis, ok := find(); !ok || c != "#100" || l != name+": 0" || vis {
		t.Errorf("before: look %q %q visible %v (found %v); want #100, %q, hidden", c, l, vis, ok, name+": 0")
	}
	srv := h.srv.Game()
	score := srv.Store().Component(other, srv.Schema().Index("Score"))
	score[0], score[1] = 3, 1
	for range 200 {
		h.step()
	}
	if c, l, vis, _ := find(); c != "#400" || l != name+": 3" || !vis {
		t.Errorf("after: look %q %q visible %v; want #400, %q, shown", c, l, vis, name+": 3")
	}
}

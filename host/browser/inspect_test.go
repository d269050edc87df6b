package browser

import (
	"strings"
	"testing"

	"vkm/host/view"
	"vkm/prediction"
	"vkm/transport"
	"vkm/transport/memnet"
)

// TestViewerInspectsAnEntity: the entity the page picks is described in
// each frame as this client knows it: the other player's character is the
// server's, drawn interpolated, with the snapshots that mention it
// counted; the own character is this client's; none picked, no inspector.
func TestViewerInspectsAnEntity(t *testing.T) {
	h := serveInProcess(t, loadArena(t))
	watcher := h.join(memnet.Broadband, 3, nil)
	runner := h.join(memnet.Broadband, 4, &pacing{})
	page := &fakePage{}
	v := newViewer(watcher.c.Game(), page, ViewerConfig{})
	v.Watch(watcher.c, func() transport.Time { return h.now })
	v.picked = &picked{}
	for range 600 {
		h.step()
	}
	other, own := runner.c.Game().Own(), watcher.c.Game().Own()
	if !watcher.c.Playing() || other.IsNone() || own.IsNone() {
		t.Fatal("the two clients are not playing")
	}
	lines := func(in *view.Inspect) map[string]string {
		m := map[string]string{}
		if in != nil {
			for _, l := range in.Lines {
				m[l[0]] = l[1]
			}
		}
		return m
	}
	v.Publish()
	if f := page.frames[len(page.frames)-1]; f.Inspect != nil {
		t.Fatalf("none picked, the frame inspects %+v", f.Inspect)
	}
	v.picked.set(other)
	for range 200 {
		h.step()
		v.Publish()
	}
	f := page.frames[len(page.frames)-1]
	got := lines(f.Inspect)
	t.Logf("the other player's character: %q", f.Inspect.Lines)
	if f.Inspect.ID != other || got["simulated by"] != "the server (drawn interpolated)" || !strings.HasPrefix(got["last update"], "server tick ") ||
		got["Health.hp"] == "" || strings.HasPrefix(got["updates"], "0.0 ") {
		t.Errorf("inspecting the other player's character: %q", f.Inspect.Lines)
	}
	v.picked.set(own)
	v.Publish()
	if got := lines(page.frames[len(page.frames)-1].Inspect); got["simulated by"] != "this client (its own character)" {
		t.Errorf("inspecting the own character: %q", got)
	}
}

// pacing is a player's input that runs back and forth, a second each way.
type pacing struct{ n int }

func (p *pacing) Next() prediction.Command {
	p.n++
	var c prediction.Command
	c.Axes[0] = 1
	if p.n/64%2 == 1 {
		c.Axes[0] = -1
	}
	return c
}

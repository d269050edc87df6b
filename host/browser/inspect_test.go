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
		got["Health.hp"] == "" || strings.HasPrefix(got["updates"], "0.0 ") || !strings.Contains(got["priority, bytes a second"], "a dev server tells") {
		t.Errorf("inspecting the other player's character: %q", f.Inspect.Lines)
	}
	v.picked.set(own)
	v.Publish()
	if got := lines(page.frames[len(page.frames)-1].Inspect); got["simulated by"] != "this client (its own character)" {
		t.Errorf("inspecting the own character: %q", got)
	}
}

// TestViewerInspectsWithTheServersView: on a dev server, a dev client's
// inspector also shows the server's view of the entity, which the server
// reports: its priority, the bytes a second this client's snapshots spend
// on it, and the tick they last held it.
func TestViewerInspectsWithTheServersView(t *testing.T) {
	h := serveDevInProcess(t, loadArena(t))
	watcher := h.join(memnet.Broadband, 5, nil)
	runner := h.join(memnet.Broadband, 6, &pacing{})
	page := &fakePage{}
	v := newViewer(watcher.c.Game(), page, ViewerConfig{})
	v.Watch(watcher.c, func() transport.Time { return h.now })
	v.picked = &picked{}
	for range 600 {
		h.step()
	}
	other := runner.c.Game().Own()
	if !watcher.c.Playing() || other.IsNone() {
		t.Fatal("the two clients are not playing")
	}
	v.picked.set(other)
	v.Publish()
	if got := inspectLines(page.frames[len(page.frames)-1].Inspect); got["priority, bytes a second"] != "asked the server" {
		t.Errorf("on picking: %q", got)
	}
	for range 400 {
		h.step()
		v.Publish()
	}
	f := page.frames[len(page.frames)-1]
	got := inspectLines(f.Inspect)
	t.Logf("the other player's character, with the server's view: %q", f.Inspect.Lines)
	if !strings.HasSuffix(got["bytes a second"], " in this client's snapshots") || strings.HasPrefix(got["bytes a second"], "0 ") ||
		got["priority"] == "" || !strings.HasPrefix(got["last written"], "server tick ") {
		t.Errorf("the server's view: %q", f.Inspect.Lines)
	}
}

// inspectLines are an inspector's lines by label.
func inspectLines(in *view.Inspect) map[string]string {
	m := map[string]string{}
	if in != nil {
		for _, l := range in.Lines {
			m[l[0]] = l[1]
		}
	}
	return m
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

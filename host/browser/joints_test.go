package browser

import (
	"math"
	"testing"

	"vkm/transport"
	"vkm/transport/memnet"
)

// TestViewerDrawsTheJoints: the haul's scene joins its cart, bridge and
// crane with joints; a client's frames carry a line for each joint of the
// drawn bodies, its anchors in the world, finite and where its bodies are.
func TestViewerDrawsTheJoints(t *testing.T) {
	h := serveInProcess(t, loadProject(t, "haul"))
	a := h.join(memnet.Lan, 3, nil)
	for range 300 {
		h.step()
	}
	if !a.c.Playing() {
		t.Fatal("the client is not playing")
	}
	page := &fakePage{}
	v := newViewer(a.c.Game(), page, ViewerConfig{})
	v.Watch(a.c, func() transport.Time { return h.now })
	v.Publish()
	f := page.frames[len(page.frames)-1]
	kinds := map[string]int{}
	for _, j := range f.Joints {
		kinds[j.Kind]++
		for _, x := range []float64{j.AX, j.AY, j.BX, j.BY} {
			if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1000 {
				t.Fatalf("joint %+v: an anchor off the world", j)
			}
		}
	}
	t.Logf("%d joints drawn: %v", len(f.Joints), kinds)
	if n := a.c.Game().Physics().JointCount(); len(f.Joints) == 0 || len(f.Joints) > n {
		t.Fatalf("%d joint lines for a world of %d joints", len(f.Joints), n)
	}
}

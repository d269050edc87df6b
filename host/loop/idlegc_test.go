package loop

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"vkm/host/figures"
)

// garbage allocates n bytes the collector may take back at once.
func garbage(n uint64) {
	for range n / 1024 {
		sink = make([]byte, 1024)
	}
}

// halfRoom allocates a little more than half the room the collector's
// pacing gives the heap now.
func halfRoom(g *IdleGC) {
	_, live, goal, _ := g.read()
	garbage((goal-live)/2 + 64<<10)
}

// TestIdleGCCollectsWhenDueAndItFits: a collection runs once the heap has
// used half its room, only in a wait it fits in twice over; one put off
// lowers what the next is expected to take, one the collector ran by
// itself starts the count again, and one that ends well after the wait
// is counted late.
func TestIdleGCCollectsWhenDueAndItFits(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	g := NewIdleGC()
	long := func() time.Duration { return time.Second }
	g.Maybe(long)
	if g.runs != 0 {
		t.Fatalf("%d collections with nothing allocated", g.runs)
	}
	halfRoom(g)
	if !g.due() {
		t.Fatal("not due after the heap used half its room")
	}
	g.expect = 64 * time.Millisecond
	g.Maybe(func() time.Duration { return 100 * time.Millisecond })
	if g.runs != 0 || g.expect != 63*time.Millisecond {
		t.Fatalf("a wait of 100 ms, a collection expected to take 64: %d ran, now expecting %v", g.runs, g.expect)
	}
	g.expect = 0
	before := gcCycles()
	g.Maybe(long)
	if g.runs != 1 || gcCycles() == before || g.late != 0 {
		t.Fatalf("due and fitting: %d ran (%d cycles), %d late", g.runs, gcCycles()-before, g.late)
	}
	if g.due() {
		t.Error("due again straight after a collection")
	}
	if g.expect <= 0 {
		t.Error("a collection timed did not set what the next is expected to take")
	}

	halfRoom(g)
	runtime.GC() // the collector's own, as far as g can tell
	if g.due() {
		t.Error("due straight after the collector ran by itself")
	}

	halfRoom(g)
	g.expect = 0
	calls := 0
	g.Maybe(func() time.Duration {
		calls++
		if calls == 1 {
			return time.Second
		}
		return -lateBy - time.Millisecond // the next tick came due meanwhile
	})
	if g.runs != 2 || g.late != 1 {
		t.Errorf("%d ran, %d late; want 2 and 1", g.runs, g.late)
	}
	var v figures.Values
	s := &figures.Set{}
	s.Add(g.Figures()...)
	s.Read(&v, figures.InReport)
	var rep struct {
		Runs uint64  `json:"idle_gcs"`
		Late uint64  `json:"idle_gc_late"`
		P50  float64 `json:"idle_gc_p50_us"`
		Max  float64 `json:"idle_gc_max_us"`
	}
	if figures.Fill(&rep, &v); rep.Runs != 2 || rep.Late != 1 || rep.P50 <= 0 || rep.Max < rep.P50 {
		t.Errorf("figures %+v", rep)
	}
}

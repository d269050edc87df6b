package host

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"vkm/host/game"
)

// garbage allocates n bytes the collector may take back at once.
func garbage(n uint64) {
	for range n / 1024 {
		sink = make([]byte, 1024)
	}
}

// halfRoom allocates a little more than half the room the collector's
// pacing gives the heap now.
func halfRoom(g *idleGC) {
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
	g := newIdleGC()
	long := func() time.Duration { return time.Second }
	g.maybe(long)
	if g.runs != 0 {
		t.Fatalf("%d collections with nothing allocated", g.runs)
	}
	halfRoom(g)
	if !g.due() {
		t.Fatal("not due after the heap used half its room")
	}
	g.expect = 64 * time.Millisecond
	g.maybe(func() time.Duration { return 100 * time.Millisecond })
	if g.runs != 0 || g.expect != 63*time.Millisecond {
		t.Fatalf("a wait of 100 ms, a collection expected to take 64: %d ran, now expecting %v", g.runs, g.expect)
	}
	g.expect = 0
	before := gcCycles()
	g.maybe(long)
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
	g.maybe(func() time.Duration {
		calls++
		if calls == 1 {
			return time.Second
		}
		return -idleGCLateBy - time.Millisecond // the next tick came due meanwhile
	})
	if g.runs != 2 || g.late != 1 {
		t.Errorf("%d ran, %d late; want 2 and 1", g.runs, g.late)
	}
	var rep ServerReport
	g.fill(&rep)
	if rep.IdleGCs != 2 || rep.IdleGCLate != 1 || rep.IdleGCP50us <= 0 || rep.IdleGCMaxUs < rep.IdleGCP50us {
		t.Errorf("report %+v", rep)
	}
}

// TestServeCollectsBetweenTicks: a server told to collects between its
// ticks and counts the collections in its report; an untold one does not.
func TestServeCollectsBetweenTicks(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, idle := range []bool{false, true} {
		// Each tick uses an eighth of the heap's room: due after four, and
		// the collector's own start (at 0.7 of the room or later) a tick
		// or more further on.
		runtime.GC()
		_, live, goal, _ := newIdleGC().read()
		perTick := (goal - live) / 8
		rep, err := Serve(context.Background(), ServeConfig{Project: loadArena(t), Addr: "127.0.0.1:0", Logger: testLogger(t), Duration: 300 * time.Millisecond, IdleGC: idle,
			AfterTick: func(*game.Game) { garbage(perTick) }})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("idle %v: %d KB a tick: %d ticks, %d collections, %d between ticks (%d late), %v µs each, at most %v", idle, perTick>>10, rep.Ticks, rep.GCs, rep.IdleGCs, rep.IdleGCLate, rep.IdleGCP50us, rep.IdleGCMaxUs)
		if rep.GCs == 0 {
			t.Errorf("idle %v: %d ticks allocating %d KB each ran no collection", idle, rep.Ticks, perTick>>10)
		}
		if idle && (rep.IdleGCs == 0 || rep.IdleGCs > rep.GCs || rep.IdleGCLate > rep.IdleGCs) {
			t.Errorf("told to collect between ticks: %d collections, %d between ticks, %d late", rep.GCs, rep.IdleGCs, rep.IdleGCLate)
		}
		if !idle && rep.IdleGCs != 0 {
			t.Errorf("not told to: %d collections between ticks", rep.IdleGCs)
		}
	}
}

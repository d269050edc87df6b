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
func garbage(n int) {
	for range n / 1024 {
		sink = make([]byte, 1024)
	}
}

// TestIdleGCCollectsWhenDueAndItFits: a collection runs once the heap has
// grown by the live heap (at least 4 MB), only in a wait it fits in twice
// over; one put off lowers what the next is expected to take, and one
// that ends after the wait is counted late.
func TestIdleGCCollectsWhenDueAndItFits(t *testing.T) {
	runtime.GC()
	g := newIdleGC()
	defer g.stop()
	long := func() time.Duration { return time.Second }
	g.maybe(long)
	if g.runs != 0 {
		t.Fatalf("%d collections with nothing allocated", g.runs)
	}
	_, live := g.read()
	garbage(int(max(live, idleMinGrowth)) + 1<<20)
	if !g.due() {
		t.Fatal("not due after the heap grew by more than the live heap")
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
	garbage(int(max(live, idleMinGrowth)) + 1<<20)
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
	if rep.IdleGCs != 2 || rep.IdleGCLate != 1 || rep.IdleGCP50us <= 0 || rep.IdleGCMaxUs < rep.IdleGCP50us || rep.IdleGCOff {
		t.Errorf("report %+v", rep)
	}
}

// TestIdleGCGivesUpWhereItDoesNotFit: GOGC is raised while the server
// collects between ticks, and put back once collections run late or find
// no room for long; then none runs.
func TestIdleGCGivesUpWhereItDoesNotFit(t *testing.T) {
	gogc := func() int {
		n := debug.SetGCPercent(-1)
		debug.SetGCPercent(n)
		return n
	}
	before := gogc()
	t.Cleanup(func() { debug.SetGCPercent(before) })
	g := newIdleGC()
	if gogc() != idleGOGC {
		t.Fatalf("GOGC %d while collecting between ticks", gogc())
	}
	g.record(time.Millisecond, true)
	for range idleGCWindow - 2 { // the next late one is the window's last
		g.record(time.Millisecond, false)
	}
	if g.off {
		t.Fatal("off after one late collection in a window")
	}
	g.record(time.Millisecond, true)
	if !g.off || gogc() != before {
		t.Fatalf("two late in a window: off %v, GOGC %d (was %d)", g.off, gogc(), before)
	}
	garbage(idleMinGrowth * 2)
	runs := g.runs
	g.maybe(func() time.Duration { return time.Second })
	if g.runs != runs {
		t.Error("a collection ran after giving up")
	}

	g = newIdleGC()
	g.expect = time.Second
	garbage(idleMinGrowth * 2)
	for range idleGiveUpWaits - 1 {
		g.maybe(func() time.Duration { return time.Millisecond })
	}
	if g.off {
		t.Fatal("off before being put off enough")
	}
	g.maybe(func() time.Duration { return time.Millisecond })
	if !g.off || gogc() != before {
		t.Fatalf("put off %d times: off %v, GOGC %d (was %d)", idleGiveUpWaits, g.off, gogc(), before)
	}
	g.stop()
	if gogc() != before {
		t.Errorf("a second stop left GOGC %d", gogc())
	}
}

// TestServeCollectsBetweenTicks: a server told to collects between its
// ticks, counts the collections in its report, and an untold one does not.
func TestServeCollectsBetweenTicks(t *testing.T) {
	for _, idle := range []bool{false, true} {
		rep, err := Serve(context.Background(), ServeConfig{Project: loadArena(t), Addr: "127.0.0.1:0", Logger: testLogger(t), Duration: 300 * time.Millisecond, IdleGC: idle,
			AfterTick: func(*game.Game) { garbage(1 << 20) }})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("idle %v: %d ticks, %d collections, %d between ticks (%d late), %v µs each, at most %v", idle, rep.Ticks, rep.GCs, rep.IdleGCs, rep.IdleGCLate, rep.IdleGCP50us, rep.IdleGCMaxUs)
		if rep.GCs == 0 {
			t.Errorf("idle %v: %d ticks allocating 1 MB each ran no collection", idle, rep.Ticks)
		}
		if idle && (rep.IdleGCs == 0 || rep.IdleGCs > rep.GCs || rep.IdleGCLate > rep.IdleGCs) {
			t.Errorf("told to collect between ticks: %d collections, %d between ticks, %d late", rep.GCs, rep.IdleGCs, rep.IdleGCLate)
		}
		if !idle && rep.IdleGCs != 0 {
			t.Errorf("not told to: %d collections between ticks", rep.IdleGCs)
		}
	}
}

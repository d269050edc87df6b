package loop

import (
	"runtime"
	"runtime/metrics"
	"time"

	"vkm/host/figures"
)

// IdleGC runs the garbage collector between ticks, in the time the loop
// would sleep, so that no tick shares its thread's core with the
// collector's marking or runs with its write barrier on. Traced, a served
// tick that a collection marked through took about 1.3 times the CPU of
// the others and half again their wall time (the collector's worker has
// the one P while the tick waits), and at Go's pacing every fiftieth tick
// was one: enough to be the 99th percentile (BENCHMARKS.md, "The tick's
// tail").
//
// It collects once the heap has used half the room the collector's own
// pacing gives it (half of the heap goal less the live heap), before the
// collector would begin by itself, and only when what is left of the wait
// is at least twice what it expects a collection to take. One that would
// run into the next tick is put off, and should it be put off for long
// the collector begins by itself, as it would without this: the heap is
// bounded exactly as it is without it (GOGC, GOMEMLIMIT), and collections
// come more often (up to twice), each off the ticks. Make one with
// NewIdleGC; it is not safe for concurrent use.
type IdleGC struct {
	samples [4]metrics.Sample
	// since is the bytes allocated as of the end of the last collection,
	// cycles the collections ended by then.
	since, cycles uint64
	// expect is what the next collection is expected to take: the
	// longest of late, easing down by a quarter a collection, and by
	// 1/64 each time one is put off, so that one slow collection (the
	// machine busy) does not put off the rest for good.
	expect time.Duration
	// runs, late: the collections run here, and those that ended more
	// than lateBy after the loop's next tick or send round was due.
	runs, late uint64
	took       Durations
}

const (
	// idleGCSpare is what must be left of the wait beyond twice the
	// collection expected.
	idleGCSpare = time.Millisecond
	// lateBy is how far past the next tick or send round a
	// collection may end before it counts as late: a tick begun that
	// much after its time is sent that much later, which a client's
	// interpolation absorbs as it does the network's jitter.
	lateBy = 2 * time.Millisecond
)

// NewIdleGC returns an IdleGC that counts the heap's room from now.
func NewIdleGC() *IdleGC {
	g := &IdleGC{}
	g.samples[0].Name = "/gc/heap/allocs:bytes"
	g.samples[1].Name = "/gc/heap/live:bytes"
	g.samples[2].Name = "/gc/heap/goal:bytes"
	g.samples[3].Name = "/gc/cycles/total:gc-cycles"
	g.since, _, _, g.cycles = g.read()
	return g
}

// read is the bytes allocated so far, the heap the last collection found
// live, the heap goal the collector paces itself to, and the collections
// ended so far.
func (g *IdleGC) read() (allocs, live, goal, cycles uint64) {
	metrics.Read(g.samples[:])
	var v [4]uint64
	for i, s := range g.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	return v[0], v[1], v[2], v[3]
}

// due says whether the heap has used half its room since the last
// collection, whoever ran it.
func (g *IdleGC) due() bool {
	allocs, live, goal, cycles := g.read()
	if cycles != g.cycles {
		// The collector ran by itself: count from about its end.
		g.since, g.cycles = allocs, cycles
		return false
	}
	return goal > live && allocs-g.since >= (goal-live)/2
}

// fits says whether a collection fits in a wait of left.
func (g *IdleGC) fits(left time.Duration) bool {
	return left >= 2*g.expect+idleGCSpare
}

// Maybe collects if one is due and fits in what is left of the wait; left
// reports that after the collection too (negative: the next tick or round
// is already late). It is called on the serving goroutine, locked to its
// thread, which it lets go of while it collects.
func (g *IdleGC) Maybe(left func() time.Duration) {
	if !g.due() {
		return
	}
	if !g.fits(left()) {
		g.expect -= g.expect / 64
		return
	}
	start := time.Now()
	// Unlocked, the serving goroutine lets its own thread run the
	// collector's worker: locked, every switch between the two is a
	// hand-off between threads, each a wait for the OS to run the other.
	runtime.UnlockOSThread()
	runtime.GC()
	runtime.LockOSThread()
	took := time.Since(start)
	g.since, _, _, g.cycles = g.read()
	g.record(took, left() < -lateBy)
}

// record keeps the time one collection took, and whether it ran late.
func (g *IdleGC) record(took time.Duration, late bool) {
	g.expect = max(took, g.expect-g.expect/4)
	g.runs++
	g.took.Add(took)
	if late {
		g.late++
	}
}

// Figures are its figures, as a server's report gives them (package
// figures): the collections run between ticks (idle_gcs), those that ended
// late (idle_gc_late), and what one took in µs (idle_gc_p50_us,
// idle_gc_max_us).
func (g *IdleGC) Figures() []figures.Figure {
	return []figures.Figure{
		{Key: "idle_gcs", Uint: func() uint64 { return g.runs }},
		{Key: "idle_gc_late", Uint: func() uint64 { return g.late }},
		{Key: "idle_gc_p50_us", Float: func() float64 { return micros(g.took.Quantile(0.5)) }},
		{Key: "idle_gc_max_us", Float: func() float64 { return micros(g.took.max) }},
	}
}

// gcCycles is how many collections the process has run.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

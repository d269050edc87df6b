package host

import (
	"math/bits"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// idleGC runs the garbage collector between ticks, in the time the loop
// would sleep, so that no tick shares its thread's core with the
// collector's marking or runs with its write barrier on. Traced, a served
// tick that a collection marked through took about 1.3 times the CPU of
// the others and half again their wall time (the collector's worker has
// the one P while the tick waits), and at Go's pacing every fiftieth tick
// was one: enough to be the 99th percentile. (BENCHMARKS.md, "The tick's
// tail".)
//
// It collects once the heap has grown by as much as the collector would
// let it at GOGC=100 (the live heap, at least idleMinGrowth), and only
// when what is left of the wait is at least twice what it expects one to
// take: a collection that would run into the next tick is put off to a
// later wait. Meanwhile GOGC is raised to idleGOGC, so that the collector
// does not begin on its own first; that setting is what bounds the heap
// should the waits be too short for a while.
//
// Where collections do not fit between ticks (a large live heap, little
// time between ticks), it stops trying and puts GOGC back: once
// idleGiveUpLate of the last idleGCWindow collections ran late, or a due
// one has been put off idleGiveUpWaits times in a row.
type idleGC struct {
	samples [2]metrics.Sample
	// since is the bytes allocated as of the end of the last collection
	// run here.
	since uint64
	// expect is what the next collection is expected to take: the
	// longest of late, easing down by a quarter a collection, and by
	// 1/64 each time one is put off, so that one slow collection (the
	// machine busy) does not put off the rest for good.
	expect time.Duration
	// runs, late: the collections run, and those that ended more than
	// idleGCLateBy after the loop's next tick or send round was due; recent has a bit a
	// collection, the newest lowest, set for a late one.
	runs, late uint64
	recent     uint8
	took       durations
	// putOff counts the due collections put off since the last one ran.
	putOff int
	// gogc is the GOGC the process had before (restored by stop), off
	// that the server has stopped collecting between ticks.
	gogc int
	off  bool
}

const (
	// idleMinGrowth is the least growth that calls for a collection: the
	// runtime's own least heap goal at GOGC=100 is 4 MB.
	idleMinGrowth = 4 << 20
	// idleGCSpare is what must be left of the wait beyond twice the
	// collection expected.
	idleGCSpare = time.Millisecond
	// idleGOGC is the collector's target meanwhile: high enough that it
	// does not begin on its own before the heap has grown by the live
	// heap, and the heap within four times the live heap should no wait
	// have room for a while.
	idleGOGC = 300
	// idleGCWindow collections, of which idleGiveUpLate ran late, or a due
	// one put off idleGiveUpWaits times in a row (about four seconds of
	// wake-ups at 64 Hz), stop the collections between ticks.
	idleGCWindow    = 8
	idleGiveUpLate  = 2
	idleGiveUpWaits = 256
	// idleGCLateBy is how far past the next tick or send round a
	// collection may end before it counts as late: a tick begun that
	// much after its time is sent that much later, which a client's
	// interpolation absorbs as it does the network's jitter.
	idleGCLateBy = 2 * time.Millisecond
)

// newIdleGC raises GOGC and starts counting the heap's growth.
func newIdleGC() *idleGC {
	g := &idleGC{gogc: debug.SetGCPercent(idleGOGC)}
	g.samples[0].Name = "/gc/heap/allocs:bytes"
	g.samples[1].Name = "/gc/heap/live:bytes"
	g.since, _ = g.read()
	return g
}

// stop puts GOGC back as it was, once.
func (g *idleGC) stop() {
	if !g.off {
		g.off = true
		debug.SetGCPercent(g.gogc)
	}
}

// read is the bytes allocated so far and the heap the last collection
// found live.
func (g *idleGC) read() (allocs, live uint64) {
	metrics.Read(g.samples[:])
	if v := g.samples[0].Value; v.Kind() == metrics.KindUint64 {
		allocs = v.Uint64()
	}
	if v := g.samples[1].Value; v.Kind() == metrics.KindUint64 {
		live = v.Uint64()
	}
	return allocs, live
}

// due says whether the heap has grown enough since the last collection
// for another.
func (g *idleGC) due() bool {
	allocs, live := g.read()
	return allocs-g.since >= max(live, idleMinGrowth)
}

// fits says whether a collection fits in a wait of left.
func (g *idleGC) fits(left time.Duration) bool {
	return left >= 2*g.expect+idleGCSpare
}

// maybe collects if one is due and fits in what is left of the wait; left
// reports that after the collection (negative: the next tick or round is
// already late).
func (g *idleGC) maybe(left func() time.Duration) {
	if g.off || !g.due() {
		return
	}
	if !g.fits(left()) {
		g.expect -= g.expect / 64
		if g.putOff++; g.putOff >= idleGiveUpWaits {
			g.stop()
		}
		return
	}
	g.putOff = 0
	start := time.Now()
	// Unlocked, the serving goroutine lets its own thread run the
	// collector's worker: locked, every switch between the two is a
	// hand-off between threads, each a wait for the OS to run the other.
	runtime.UnlockOSThread()
	runtime.GC()
	runtime.LockOSThread()
	took := time.Since(start)
	g.since, _ = g.read()
	g.record(took, left() < -idleGCLateBy)
}

// record keeps the time one collection took, and whether it ran late.
func (g *idleGC) record(took time.Duration, late bool) {
	g.expect = max(took, g.expect-g.expect/4)
	g.runs++
	g.took.add(took)
	g.recent <<= 1
	if late {
		g.late++
		g.recent |= 1
	}
	if bits.OnesCount8(g.recent) >= idleGiveUpLate {
		g.stop()
	}
}

// fill writes the collections' figures into a report.
func (g *idleGC) fill(r *ServerReport) {
	r.IdleGCs = g.runs
	r.IdleGCLate = g.late
	r.IdleGCP50us = micros(g.took.quantile(0.5))
	r.IdleGCMaxUs = micros(g.took.max)
	r.IdleGCOff = g.off
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

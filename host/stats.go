package host

import (
	"math"
	"math/bits"
	"runtime/metrics"
	"slices"
	"time"

	"vkm/host/admin"
	"vkm/host/game"
)

// durations is a fixed-size histogram of durations for percentiles: log
// buckets, durSub to each power of two of nanoseconds, so a percentile is
// within 1/durSub (about 6 %) of the true value and the memory is the same
// after a second or a week. The largest value is kept exactly. The zero
// value is empty and ready; it is not safe for concurrent use.
type durations struct {
	counts [durBuckets]uint32
	n      uint64
	max    time.Duration
}

const (
	// durSubBits sets the buckets per power of two (1 << durSubBits).
	durSubBits = 4
	durSub     = 1 << durSubBits
	// durBuckets covers every duration up to 2^40 ns (18 minutes); longer
	// ones go in the last bucket.
	durBuckets = (40 - durSubBits + 1) * durSub
)

// durBucket is the bucket of d: values below durSub ns each have their own;
// above, a bucket spans 1/durSub of its power of two.
func durBucket(d time.Duration) int {
	v := uint64(max(d, 0))
	if v < durSub {
		return int(v)
	}
	exp := bits.Len64(v) - 1 // v is in [2^exp, 2^(exp+1))
	mant := int(v>>(exp-durSubBits)) & (durSub - 1)
	return min((exp-durSubBits+1)*durSub+mant, durBuckets-1)
}

// durUpper is the largest duration bucket i holds.
func durUpper(i int) time.Duration {
	if i < durSub {
		return time.Duration(i)
	}
	exp := i/durSub + durSubBits - 1
	mant := uint64(i % durSub)
	lo := (durSub + mant) << (exp - durSubBits)
	return time.Duration(lo + 1<<(exp-durSubBits) - 1)
}

func (h *durations) add(d time.Duration) {
	h.counts[durBucket(d)]++
	h.n++
	h.max = max(h.max, d)
}

// quantile returns the duration below which share q (0..1) of the samples
// fall, as its bucket's upper bound, never above the largest seen; 0 when
// there are none.
func (h *durations) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = max(rank, 1)
	var seen uint64
	for i, c := range h.counts {
		seen += uint64(c)
		if seen >= rank {
			return min(durUpper(i), h.max)
		}
	}
	return h.max
}

// micros is d in microseconds, to one decimal.
func micros(d time.Duration) float64 { return round1(float64(d) / float64(time.Microsecond)) }

// serverStats times what a server does when it wakes: each tick's
// simulation (behaviors, controller, physics, the commands taken for it),
// each send round (connection polling included), and the heap allocations
// the process makes per tick, sampled once a second. What it keeps is fixed
// in size however long the server runs.
type serverStats struct {
	ticks durations
	sends durations
	mark  time.Time // when the tick being timed began
	// cpu is each tick's CPU time on the serving thread, from cpuMark:
	// a tick whose wall time is far above its CPU time waited for a core.
	cpu     durations
	cpuMark time.Duration
	hasCPU  bool
	// slowest is the longest tick of the last run of ticks (begin resets it).
	slowest time.Duration
	// admin, if set, is handed every duration too.
	admin *admin.Admin
	// trace, if set, records every tick's phases (ServeConfig.TickLog).
	trace *tickTrace

	// Allocation windows: once a second, the allocations and ticks since
	// the last sample; the report gives the median rate of the newest
	// allocWindows, so a join's burst does not count as steady state.
	samples   [2]metrics.Sample
	lastAlloc uint64
	lastTick  uint32
	sampled   bool
	windows   [allocWindows]float64
	nWindows  int
}

// allocWindows is how many one-second allocation windows are kept: the last
// ten minutes.
const allocWindows = 600

func newServerStats() *serverStats {
	st := &serverStats{}
	st.samples[0].Name = "/gc/heap/allocs:objects"
	st.samples[1].Name = "/gc/heap/tiny/allocs:objects"
	return st
}

// begin marks the start of a run of ticks.
func (st *serverStats) begin() {
	if st.trace != nil {
		st.trace.begin(time.Now())
	}
	st.mark = time.Now()
	st.cpuMark, st.hasCPU = threadCPU()
	st.slowest = 0
}

// tickDone records the tick that just ended and starts timing the next.
// It is a Game.Advance afterTick hook.
func (st *serverStats) tickDone(g *game.Game) {
	now := time.Now()
	d := now.Sub(st.mark)
	st.ticks.add(d)
	st.slowest = max(st.slowest, d)
	if st.admin != nil {
		st.admin.ObserveTick(d)
	}
	st.mark = now
	var cpu time.Duration
	if st.hasCPU {
		c, _ := threadCPU()
		cpu = c - st.cpuMark
		st.cpu.add(cpu)
		st.cpuMark = c
	}
	if st.trace != nil {
		// The trace's own reads between two ticks are timed in neither.
		st.trace.done(g.Tick(), g.Phases(), d, cpu)
		slowest := st.slowest
		st.begin()
		st.slowest = slowest
	}
}

// sent records a send round that took d.
func (st *serverStats) sent(d time.Duration) {
	st.sends.add(d)
	if st.admin != nil {
		st.admin.ObserveSend(d)
	}
}

// allocs is every heap allocation the process has made so far.
func (st *serverStats) allocs() uint64 {
	metrics.Read(st.samples[:])
	var n uint64
	for _, s := range st.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			n += s.Value.Uint64()
		}
	}
	return n
}

// sample closes a one-second allocation window at tick.
func (st *serverStats) sample(tick uint32) {
	a := st.allocs()
	if st.sampled && tick != st.lastTick {
		st.windows[st.nWindows%allocWindows] = float64(a-st.lastAlloc) / float64(tick-st.lastTick)
		st.nWindows++
	}
	st.lastAlloc, st.lastTick, st.sampled = a, tick, true
}

// allocsPerTick is the median allocations per tick over the kept windows
// (0 before the first whole window).
func (st *serverStats) allocsPerTick() float64 {
	n := min(st.nWindows, allocWindows)
	if n == 0 {
		return 0
	}
	w := slices.Clone(st.windows[:n])
	slices.Sort(w)
	return round1(w[n/2])
}

// fill writes the timings into a report.
func (st *serverStats) fill(r *ServerReport) {
	r.TickP50us = micros(st.ticks.quantile(0.5))
	r.TickP99us = micros(st.ticks.quantile(0.99))
	r.TickMaxUs = micros(st.ticks.max)
	if st.hasCPU {
		r.TickCPUP50us = micros(st.cpu.quantile(0.5))
		r.TickCPUP99us = micros(st.cpu.quantile(0.99))
	}
	r.SendP50us = micros(st.sends.quantile(0.5))
	r.SendP99us = micros(st.sends.quantile(0.99))
	r.AllocsPerTick = st.allocsPerTick()
	if st.trace != nil {
		r.SlowestTicks = st.trace.slowest
	}
}

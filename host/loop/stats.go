package loop

import (
	"math"
	"math/bits"
	"runtime/metrics"
	"slices"
	"time"

	"vkm/host/figures"
	"vkm/host/game"
)

// Durations is a fixed-size histogram of durations for percentiles: log
// buckets, durSub to each power of two of nanoseconds, so a percentile is
// within 1/durSub (about 6 %) of the true value and the memory is the same
// after a second or a week. The largest value is kept exactly. The zero
// value is empty and ready; it is not safe for concurrent use.
type Durations struct {
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

// Add counts one duration.
func (h *Durations) Add(d time.Duration) {
	h.counts[durBucket(d)]++
	h.n++
	h.max = max(h.max, d)
}

// Quantile returns the duration below which share q (0..1) of the samples
// fall, as its bucket's upper bound, never above the largest seen; 0 when
// there are none.
func (h *Durations) Quantile(q float64) time.Duration {
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

// Max is the largest duration counted (0 when there are none).
func (h *Durations) Max() time.Duration { return h.max }

// micros is d in microseconds, to one decimal: how reports give durations.
func micros(d time.Duration) float64 { return round1(float64(d) / float64(time.Microsecond)) }

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// Stats times what a server does when it wakes: each tick's simulation
// (behaviors, controller, physics, the commands taken for it), each send
// round (connection polling included), and the heap allocations the
// process makes per tick, sampled once a second. What it keeps is fixed in
// size however long the server runs. Make one with NewStats and set its
// fields before the first tick; it is not safe for concurrent use.
type Stats struct {
	// Observer, if set, is handed every duration too.
	Observer Observer
	// Trace, if set, records every tick's phases.
	Trace *Trace

	ticks Durations
	sends Durations
	mark  time.Time // when the tick being timed began
	// cpu is each tick's CPU time on the serving thread, from cpuMark:
	// a tick whose wall time is far above its CPU time waited for a core.
	cpu     Durations
	cpuMark time.Duration
	hasCPU  bool
	// slowest is the longest tick of the last run of ticks (Begin resets it).
	slowest time.Duration
	// gcsBefore is the collections the process had run before NewStats.
	gcsBefore uint64

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

// Observer is what Stats hands each tick's and send round's duration to
// as it takes them (the admin listener's histograms). Its methods must
// not allocate: they run in every tick.
type Observer interface {
	ObserveTick(time.Duration)
	ObserveSend(time.Duration)
}

// NewStats returns empty Stats.
func NewStats() *Stats {
	st := &Stats{gcsBefore: gcCycles()}
	st.samples[0].Name = "/gc/heap/allocs:objects"
	st.samples[1].Name = "/gc/heap/tiny/allocs:objects"
	return st
}

// Begin marks the start of a run of ticks.
func (st *Stats) Begin() {
	if st.Trace != nil {
		st.Trace.Begin(time.Now())
	}
	st.mark = time.Now()
	st.cpuMark, st.hasCPU = ThreadCPU()
	st.slowest = 0
}

// TickDone records the tick that just ended and starts timing the next.
// It is an afterTick hook (session.Server.RunTicks).
func (st *Stats) TickDone(g *game.Game) {
	now := time.Now()
	d := now.Sub(st.mark)
	st.ticks.Add(d)
	st.slowest = max(st.slowest, d)
	if st.Observer != nil {
		st.Observer.ObserveTick(d)
	}
	st.mark = now
	var cpu time.Duration
	if st.hasCPU {
		c, _ := ThreadCPU()
		cpu = c - st.cpuMark
		st.cpu.Add(cpu)
		st.cpuMark = c
	}
	if st.Trace != nil {
		// The trace's own reads between two ticks are timed in neither.
		st.Trace.Done(g.Tick(), g.Phases(), d, cpu)
		slowest := st.slowest
		st.Begin()
		st.slowest = slowest
	}
}

// Slowest is the longest tick of the last run of ticks (since Begin).
func (st *Stats) Slowest() time.Duration { return st.slowest }

// Sent records a send round that took d.
func (st *Stats) Sent(d time.Duration) {
	st.sends.Add(d)
	if st.Observer != nil {
		st.Observer.ObserveSend(d)
	}
}

// allocs is every heap allocation the process has made so far.
func (st *Stats) allocs() uint64 {
	metrics.Read(st.samples[:])
	var n uint64
	for _, s := range st.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			n += s.Value.Uint64()
		}
	}
	return n
}

// Sample closes a one-second allocation window at tick; the loop calls it
// once a second.
func (st *Stats) Sample(tick uint32) {
	a := st.allocs()
	if st.sampled && tick != st.lastTick {
		st.windows[st.nWindows%allocWindows] = float64(a-st.lastAlloc) / float64(tick-st.lastTick)
		st.nWindows++
	}
	st.lastAlloc, st.lastTick, st.sampled = a, tick, true
}

// allocsPerTick is the median allocations per tick over the kept windows
// (0 before the first whole window).
func (st *Stats) allocsPerTick() float64 {
	n := min(st.nWindows, allocWindows)
	if n == 0 {
		return 0
	}
	w := slices.Clone(st.windows[:n])
	slices.Sort(w)
	return round1(w[n/2])
}

// Figures are the timings' figures, as a server's report gives them
// (package figures), in µs: a tick's wall time (tick_p50_us, tick_p99_us,
// tick_max_us) and its CPU time on the serving thread (tick_cpu_p50_us,
// tick_cpu_p99_us; 0 without a thread clock), a send round's
// (send_p50_us, send_p99_us), the allocations per tick (allocs_per_tick)
// and the collections the process ran since NewStats (gcs).
func (st *Stats) Figures() []figures.Figure {
	quantile := func(key string, h *Durations, q float64) figures.Figure {
		return figures.Figure{Key: key, Float: func() float64 { return micros(h.Quantile(q)) }}
	}
	cpu := func(key string, q float64) figures.Figure {
		return figures.Figure{Key: key, Float: func() float64 {
			if !st.hasCPU {
				return 0
			}
			return micros(st.cpu.Quantile(q))
		}}
	}
	return []figures.Figure{
		quantile("tick_p50_us", &st.ticks, 0.5),
		quantile("tick_p99_us", &st.ticks, 0.99),
		{Key: "tick_max_us", Float: func() float64 { return micros(st.ticks.max) }},
		cpu("tick_cpu_p50_us", 0.5),
		cpu("tick_cpu_p99_us", 0.99),
		quantile("send_p50_us", &st.sends, 0.5),
		quantile("send_p99_us", &st.sends, 0.99),
		{Key: "allocs_per_tick", Float: st.allocsPerTick},
		{Key: "gcs", Uint: func() uint64 { return gcCycles() - st.gcsBefore }},
	}
}

package browser

import (
	"slices"
	"sort"
	"sync"
	"time"
)

// Call is what a client's loop times for Perf: a call into its session, or
// a whole step of the loop.
type Call uint8

const (
	// CallReceive is a datagram received: a snapshot, and the replay it
	// may start.
	CallReceive Call = iota
	// CallFrame is a frame: the ticks it runs.
	CallFrame
	// CallStep is the loop's whole step: a frame with sending and
	// drawing.
	CallStep
)

// Perf keeps the browser client's recent times, for the page's figures:
// how long the session's frames took (their ticks), the calls that
// replayed (a snapshot received that corrected the prediction) and how
// many ticks they ran again, and the whole step of the loop (a frame with
// sending and drawing). The zero value is empty and ready; it is safe for
// concurrent use (the page reads it on its event loop).
type Perf struct {
	mu         sync.Mutex
	frames     []time.Duration // the latest perfKeep of each
	steps      []time.Duration
	replays    []time.Duration
	perTick    []time.Duration // a replay's time over its ticks
	nReplays   int             // how many calls replayed, ever
	ticks      uint64          // ticks replayed in them
	mostTicks  uint64          // the longest replay's ticks
	replayed   uint64          // the client's count after the last call
	replayTime time.Duration   // the time of every replay
}

// perfKeep is how many of the latest calls the figures are taken over:
// half a minute at 120 frames a second.
const perfKeep = 4096

// Add records a call that took took, after which the client had replayed
// replayed ticks in all (session.ClientStats.ReplayedTicks).
func (p *Perf) Add(call Call, took time.Duration, replayed uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch call {
	case CallFrame:
		p.frames = keepLast(append(p.frames, took))
	case CallStep:
		p.steps = keepLast(append(p.steps, took))
	}
	if n := replayed - p.replayed; n > 0 && call != CallStep {
		p.replays = keepLast(append(p.replays, took))
		p.perTick = keepLast(append(p.perTick, took/time.Duration(n)))
		p.nReplays++
		p.ticks += n
		p.mostTicks = max(p.mostTicks, n)
		p.replayTime += took
	}
	p.replayed = replayed
}

func keepLast(d []time.Duration) []time.Duration {
	if len(d) > 2*perfKeep {
		d = append(d[:0], d[len(d)-perfKeep:]...)
	}
	return d
}

// PerfFigures are the page's figures, times in microseconds.
type PerfFigures struct {
	FrameP50us      float64 `json:"frame_p50_us"`
	FrameP99us      float64 `json:"frame_p99_us"`
	StepP50us       float64 `json:"step_p50_us"`
	StepP99us       float64 `json:"step_p99_us"`
	Replays         int     `json:"replays"`
	ReplayTicks     uint64  `json:"replay_ticks"`
	ReplayMostTicks uint64  `json:"replay_most_ticks"`
	ReplayP50us     float64 `json:"replay_p50_us"`
	ReplayP99us     float64 `json:"replay_p99_us"`
	ReplayTickP50us float64 `json:"replay_tick_p50_us"`
	ReplayTickP99us float64 `json:"replay_tick_p99_us"`
	ReplayTotalMs   float64 `json:"replay_total_ms"`
	// StaleDropped counts datagrams left out of a late batch
	// (PageSocket.StaleDropped); Figures leaves it 0.
	StaleDropped uint64 `json:"stale_dropped"`
}

// Figures are the page's figures now.
func (p *Perf) Figures() PerfFigures {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := PerfFigures{Replays: p.nReplays, ReplayTicks: p.ticks, ReplayMostTicks: p.mostTicks,
		ReplayTotalMs: round1(float64(p.replayTime) / 1e6)}
	f.FrameP50us, f.FrameP99us = quantiles(p.frames)
	f.StepP50us, f.StepP99us = quantiles(p.steps)
	f.ReplayP50us, f.ReplayP99us = quantiles(p.replays)
	f.ReplayTickP50us, f.ReplayTickP99us = quantiles(p.perTick)
	return f
}

// quantiles returns the median and 99th percentile of d in microseconds.
func quantiles(d []time.Duration) (p50, p99 float64) {
	if len(d) == 0 {
		return 0, 0
	}
	s := durations(slices.Clone(d))
	sort.Sort(s)
	us := func(q float64) float64 { return round1(float64(s[int(q*float64(len(s)-1))]) / 1e3) }
	return us(0.5), us(0.99)
}

// durations sorts with sort.Sort, whose code the browser client links
// already, rather than an instance of slices.Sort of its own (12 KB).
type durations []time.Duration

func (d durations) Len() int           { return len(d) }
func (d durations) Less(i, j int) bool { return d[i] < d[j] }
func (d durations) Swap(i, j int)      { d[i], d[j] = d[j], d[i] }

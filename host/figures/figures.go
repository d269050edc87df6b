// Package figures is one end's figures: the counters and gauges a server
// or a client keeps, each described once, with the key its report gives
// it, how its status line shows it, the name and help /metrics serves it
// under, and how to read it. The end's report, its status line and its
// admin listener's collector all read one Set, so a figure added to the
// Set appears in all three with no other change.
//
// A Set is read on the goroutine that owns what its figures read (a
// serving or playing loop), into Values, which the three readers use:
//
//   - a report decodes them into its typed fields (Fill) and writes those
//     it has no field for beside them (Extra.AppendTo, in its MarshalJSON);
//   - a status line appends their words (Values.AppendStatus), or a status
//     logged as a record takes them as attributes (Values.Attrs);
//   - an admin listener copies them under its lock (Values.CopyFrom) and
//     serves them when scraped (Values.Samples).
//
// A figure is one Figure in the Set, whatever reads it:
//
//	set.Add(figures.Figure{
//		Key:    "joins",           // the report's "joins" (and its Joins field, if it has one)
//		Metric: "vkm_joins_total", // /metrics, with Help and Kind
//		Help:   "Players seated.",
//		Status: "joins %d",        // the status line's words
//		Uint:   func() uint64 { return stats.Joins },
//	})
//
// host/figures.go holds the server's and the clients' figures; the
// packages whose figures they are add their own (loop.Stats.Figures, the
// web listener's).
package figures

import (
	"fmt"
	"math"
)

// Kind is how a figure moves, as /metrics types it.
type Kind uint8

const (
	// Counter only grows while the end runs.
	Counter Kind = iota
	// Gauge is a level that moves both ways, or a statistic of the run so
	// far (a percentile).
	Gauge
)

// Figure is one figure of an end: where each reader shows it, and how to
// read it. Exactly one of its readers is set.
type Figure struct {
	// Key is its name in the report's JSON ("joins"); empty leaves it out
	// of the report. A dot nests it in an object: "web.drops" is the
	// "drops" of the report's "web".
	Key string
	// Metric is its Prometheus name ("vkm_joins_total"); empty leaves it
	// out of /metrics. Help is the metric's help text and Kind its type.
	Metric string
	Help   string
	Kind   Kind
	// Label is what a figure by label is counted by ("reason"): /metrics
	// serves a sample for each label, and the report an object of labels
	// and values. Empty for a figure of one value.
	Label string
	// Status is how the status line shows it; empty leaves it off. On a
	// status line of text (a server's) it is a fmt format of the value,
	// with one verb ("tick %d", "draining, %.0fs left"); on a status
	// logged as a record (a client's) it is the attribute's key
	// ("rtt_ms"). A figure by label is not shown on the status line.
	Status string

	// Uint and Float read a figure of one value, a whole number or not; a
	// Float that reads NaN has no value now, and every reader leaves it
	// out. Uints and Floats read a figure by Label, calling each with
	// every label and its value. They are called on the goroutine that
	// reads the Set, and should not allocate: a server's are read once a
	// second.
	Uint   func() uint64
	Float  func() float64
	Uints  func(each func(label string, n uint64))
	Floats func(each func(label string, v float64))
}

// Part is a reader of figures, or several: Set.Read reads the figures
// that any of them shows.
type Part uint8

const (
	// InReport is the report: the figures with a Key.
	InReport Part = 1 << iota
	// InStatus is the status line: the figures of one value with a Status.
	InStatus
	// InMetrics is /metrics: the figures with a Metric.
	InMetrics
	// Everywhere is every reader.
	Everywhere = InReport | InStatus | InMetrics
)

// In reports whether any of parts shows f.
func (f *Figure) In(parts Part) bool {
	return parts&InReport != 0 && f.Key != "" ||
		parts&InStatus != 0 && f.Status != "" && f.Label == "" ||
		parts&InMetrics != 0 && f.Metric != ""
}

// readers is how many of f's readers are set.
func (f *Figure) readers() int {
	n := 0
	for _, set := range []bool{f.Uint != nil, f.Float != nil, f.Uints != nil, f.Floats != nil} {
		if set {
			n++
		}
	}
	return n
}

// Set is an end's figures, in the order its status line shows them. The
// zero value is an empty Set, ready to use. It is not safe for concurrent
// use: add to it before it is first read, and read it on one goroutine.
type Set struct {
	figs    []Figure
	prepare []func()
}

// Add adds figures to the set. It panics on a figure with no reader or
// more than one, or whose Label does not match its reader: a programmer's
// error.
func (s *Set) Add(fs ...Figure) {
	for _, f := range fs {
		byLabel := f.Uints != nil || f.Floats != nil
		if f.readers() != 1 || byLabel != (f.Label != "") {
			panic(fmt.Sprintf("figures: figure %q/%q has %d readers and label %q", f.Key, f.Metric, f.readers(), f.Label))
		}
		s.figs = append(s.figs, f)
	}
}

// Prepare adds fn to what runs before each Read: figures that share a
// source read it once there (a gateway's counts, a session's stats).
func (s *Set) Prepare(fn func()) { s.prepare = append(s.prepare, fn) }

// Figures returns the set's figures in order. The slice is the set's: do
// not change it.
func (s *Set) Figures() []Figure { return s.figs }

// Read reads the figures of the set that any of parts shows into v,
// reusing v's memory; the others are left unread.
func (s *Set) Read(v *Values, parts Part) {
	for _, fn := range s.prepare {
		fn()
	}
	v.figs = s.figs
	v.vals = grow(v.vals, len(s.figs))
	if v.addUint == nil { // bound once: a read makes no closure
		v.addUint, v.addFloat = v.putUint, v.putFloat
	}
	for i := range s.figs {
		f, x := &s.figs[i], &v.vals[i]
		x.read, x.u, x.f, x.by = f.In(parts), 0, 0, x.by[:0]
		if !x.read {
			continue
		}
		v.cur = x
		switch {
		case f.Uint != nil:
			x.u = f.Uint()
		case f.Float != nil:
			x.f = f.Float()
		case f.Uints != nil:
			f.Uints(v.addUint)
		default:
			f.Floats(v.addFloat)
		}
	}
	v.cur = nil
}

// grow returns vals with length n, its memory reused where it can be.
func grow(vals []value, n int) []value {
	if cap(vals) < n {
		return append(vals[:cap(vals)], make([]value, n-cap(vals))...)
	}
	return vals[:n]
}

// Values are a Set's figures as read at one moment. The zero value holds
// none; Set.Read fills it. It is not safe for concurrent use: CopyFrom
// hands a copy to another goroutine.
type Values struct {
	figs []Figure
	vals []value
	// cur is the value a figure by label is being read into, and addUint
	// and addFloat what its reader calls, bound to v once.
	cur      *value
	addUint  func(string, uint64)
	addFloat func(string, float64)
}

// value is one figure's value: u or f, or by for a figure by label.
type value struct {
	read bool
	u    uint64
	f    float64
	by   []labelled
}

type labelled struct {
	label string
	u     uint64
	f     float64
}

func (v *Values) putUint(label string, n uint64) {
	v.cur.by = append(v.cur.by, labelled{label: label, u: n})
}

func (v *Values) putFloat(label string, f float64) {
	v.cur.by = append(v.cur.by, labelled{label: label, f: f})
}

// Len is how many figures v holds, read or not.
func (v *Values) Len() int { return len(v.vals) }

// Figure is the ith figure of v.
func (v *Values) Figure(i int) *Figure { return &v.figs[i] }

// Samples calls fn with the ith figure's value as a float64, once for a
// figure of one value (label "") and once a label for a figure by label;
// never for a figure left unread or a Float that read NaN.
func (v *Values) Samples(i int, fn func(label string, x float64)) {
	x, f := &v.vals[i], &v.figs[i]
	switch {
	case !x.read:
	case f.Uint != nil:
		fn("", float64(x.u))
	case f.Float != nil:
		if !math.IsNaN(x.f) {
			fn("", x.f)
		}
	default:
		for _, l := range x.by {
			if f.Uints != nil {
				fn(l.label, float64(l.u))
			} else if !math.IsNaN(l.f) {
				fn(l.label, l.f)
			}
		}
	}
}

// CopyFrom makes v a copy of w, reusing v's memory.
func (v *Values) CopyFrom(w *Values) {
	v.figs = w.figs
	v.vals = grow(v.vals, len(w.vals))
	for i := range w.vals {
		by := append(v.vals[i].by[:0], w.vals[i].by...)
		v.vals[i] = w.vals[i]
		v.vals[i].by = by
	}
}

// AppendStatus appends the status line's words for the figures read, in
// the set's order and separated by spaces, each its Status format of its
// value.
func (v *Values) AppendStatus(b []byte) []byte {
	for i := range v.vals {
		f, x := &v.figs[i], &v.vals[i]
		if !x.read || f.Status == "" || f.Label != "" || f.Float != nil && math.IsNaN(x.f) {
			continue
		}
		if len(b) > 0 {
			b = append(b, ' ')
		}
		if f.Uint != nil {
			b = fmt.Appendf(b, f.Status, x.u)
		} else {
			b = fmt.Appendf(b, f.Status, x.f)
		}
	}
	return b
}

// NoBehavior is the label a script error outside any behavior's callback
// is counted under, where script errors are counted by behavior. It is
// here, below the admin listener, so that an end without one (the browser
// client) names it without linking the listener.
const NoBehavior = "none"

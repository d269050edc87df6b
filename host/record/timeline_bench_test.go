package record

import (
	"testing"
	"time"
)

// BenchmarkTimeline plays the 30 s four-player arena match (benchMatch)
// on a Timeline to its end, keeping its frames (keyframes every 10 s),
// then jumps to 64 ticks spread over it: ticks/s is the timeline's pace
// through ticks never seen (the replay and the frames kept), jump-µs a
// jump's cost to a tick already simulated, kept-bytes/minute what the
// frames take per minute of match.
func BenchmarkTimeline(b *testing.B) {
	rec, err := Parse(benchMatch(b))
	if err != nil {
		b.Fatal(err)
	}
	var ticks uint32
	var simulating, jumping time.Duration
	jumps, kept, minutes := 0, 0, 0.0
	for b.Loop() {
		tl, err := NewTimeline(rec, TimelineConfig{})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := tl.Jump(1 << 30); err != nil || tl.Mismatch != nil {
			b.Fatal(err, tl.Mismatch)
		}
		simulating += time.Since(start)
		ticks += tl.Simulated()
		end := tl.Simulated()
		start = time.Now()
		for i := range uint32(64) {
			if _, err := tl.Frame(i * 7919 % end); err != nil {
				b.Fatal(err)
			}
			jumps++
		}
		jumping += time.Since(start)
		kept += tl.Kept()
		minutes += float64(end) / float64(tl.TickRate()) / 60
		tl.Close()
	}
	b.ReportMetric(float64(ticks)/simulating.Seconds(), "ticks/s")
	b.ReportMetric(float64(jumping.Microseconds())/float64(jumps), "jump-µs")
	b.ReportMetric(float64(kept)/minutes, "kept-bytes/minute")
}

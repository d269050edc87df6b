package scripting

import (
	"fmt"
	"os"
	"testing"
)

const callSrc = `
Empty = {}
function Empty:on_fixed_update(dt) end
Asking = {}
function Asking:on_fixed_update(dt)
	if not self:is_simulated() then return end
end
function vkmRegisterBehaviors(r) r.empty = Empty r.asking = Asking end
`

// BenchmarkBehaviorCall measures the engine's cost of one behavior call on
// the hot path: on_fixed_update with nothing in it, and with the one
// question most behaviors ask first (a call from Lua back into Go), over
// 1000 entities a tick.
func BenchmarkBehaviorCall(b *testing.B) {
	const n = 1000
	for _, name := range []string{"empty", "asking"} {
		b.Run(fmt.Sprintf("behavior=%s", name), func(b *testing.B) {
			r, w := newTest(b, callSrc)
			for range n {
				if err := r.Attach(w.add("e"), name, nil); err != nil {
					b.Fatal(err)
				}
			}
			r.FixedUpdate(1.0/64, false) // start them
			b.ReportAllocs()
			for b.Loop() {
				r.FixedUpdate(1.0/64, false)
			}
			if r.Errors() != 0 {
				b.Fatalf("%d script errors", r.Errors())
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/call")
			b.ReportMetric(testing.AllocsPerRun(10, func() { r.FixedUpdate(1.0/64, false) })/n, "allocs/call")
		})
	}
}

// BenchmarkSpinners runs bench/spin's spinner, as served, on 500 entities:
// the behavior tick of the busy world beside Colyseus (BENCHMARKS.md).
func BenchmarkSpinners(b *testing.B) { benchSpinners(b, 0) }

// BenchmarkSpinnersCold is BenchmarkSpinners with the cache emptied before
// each tick, untimed, by writing a line of every 64 bytes of 16 MB: served,
// the physics step and the send round run between two behavior ticks and
// push the instances out of the cache. Its time, not its instruction count,
// is the figure: reads that miss cost no more instructions.
func BenchmarkSpinnersCold(b *testing.B) { benchSpinners(b, 16<<20) }

// sweepSink is what benchSpinners writes through between ticks.
var sweepSink []byte

func benchSpinners(b *testing.B, sweep int) {
	const n = 500
	spinner, err := os.ReadFile("../bench/spin/scripts/spinner.lua")
	if err != nil {
		b.Fatal(err)
	}
	r, w := newTest(b, `
local Spinner = import("scripts/spinner.lua")
function vkmRegisterBehaviors(r) r.spinner = Spinner end
`, "scripts/spinner.lua", string(spinner))
	for range n {
		if err := r.Attach(w.add("e"), "spinner", nil); err != nil {
			b.Fatal(err)
		}
	}
	r.FixedUpdate(1.0/64, false) // start them
	sweepSink = make([]byte, sweep)
	b.ReportAllocs()
	for b.Loop() {
		if sweep > 0 {
			b.StopTimer()
			for i := 0; i < len(sweepSink); i += 64 {
				sweepSink[i]++
			}
			b.StartTimer()
		}
		w.tick++
		r.FixedUpdate(1.0/64, false)
	}
	if r.Errors() != 0 {
		b.Fatalf("%d script errors", r.Errors())
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/call")
}

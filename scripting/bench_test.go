package scripting

import (
	"context"
	"fmt"
	"testing"
	"time"
)

const benchSrc = `
Mover = {}
function Mover:on_fixed_update(dt)
	local vx, vy = self:velocity()
	vx = vx * 0.98 + self.push * dt
	vy = vy - 9.81 * dt
	if vy < -20 then vy = -20 end
	self:set_velocity(vx, vy)
end
function vkmRegisterBehaviors(r) r.mover = Mover end
`

// BenchmarkFixedUpdate runs one tick of a typical behavior (read the
// velocity, a little arithmetic, write it back) on n entities.
func BenchmarkFixedUpdate(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("entities=%d", n), func(b *testing.B) {
			r, w := newTest(b, benchSrc)
			for i := 0; i < n; i++ {
				id := w.add("e")
				if err := r.Attach(id, "mover", map[string]any{"push": 1.5}); err != nil {
					b.Fatal(err)
				}
			}
			r.FixedUpdate(1.0/64, false) // start them
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				r.FixedUpdate(1.0/64, false)
			}
			b.StopTimer()
			if r.Errors() != 0 {
				b.Fatalf("%d script errors", r.Errors())
			}
			ticks := float64(b.N)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/ticks/float64(n), "ns/entity/tick")
			b.ReportMetric(float64(testing.AllocsPerRun(10, func() { r.FixedUpdate(1.0/64, false) })), "allocs/tick")
		})
	}
}

// BenchmarkInstructionCheck compares what gopher-lua pays per instruction
// for a tight loop with no context, with a cancellable context (the usual
// recipe), with this package's watchdog looked at before every instruction,
// and with it looked at only at the checkpoints (checkpoints.go), as a
// runtime's state does.
func BenchmarkInstructionCheck(b *testing.B) {
	const loop = `local x = 0 for i = 1, 100000 do x = x + i end return x`
	for _, mode := range []string{"none", "cancel-context", "watchdog", "checkpoints"} {
		b.Run(mode, func(b *testing.B) {
			L := newSandbox()
			defer L.Close()
			fn, err := L.LoadString(loop)
			if err != nil {
				b.Fatal(err)
			}
			dog := newWatchdog(nil)
			switch mode {
			case "cancel-context":
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				L.SetContext(ctx)
			case "watchdog":
				L.SetContext(dog)
			case "checkpoints":
				L.SetContext(dog)
				if !plainLoop(L) {
					b.Fatal("no loop without the look per instruction")
				}
			}
			for b.Loop() {
				dog.enter(time.Minute) // measure the checks, never stop
				L.Push(fn)
				if err := L.PCall(0, 1, nil); err != nil {
					b.Fatal(err)
				}
				L.Pop(1)
				dog.leave()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100000, "ns/iteration")
		})
	}
}

package physics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"vkm/internal/entity"
)

// slotStore is a slice-backed Bodies, closer to the host's entity store
// than the tests' map: the benchmark measures physics, not map lookups.
type slotStore []pose

func (s slotStore) Simulates(entity.ID) bool { return true }

func (s slotStore) Pose(id entity.ID) (*entity.Transform, *entity.Rigidbody) {
	if int(id.Slot) >= len(s) {
		return nil, nil
	}
	p := &s[id.Slot]
	return &p.t, &p.rb
}

// benchField builds the benchmark scene for n dynamic bodies: a static
// walled and roofed field (floor, two walls and a roof 30 m up, as four box
// fixtures of one body in slot 0) 0.6·n + 20 m wide, with earth gravity.
// Half the bodies (0.5 m boxes and 0.25 m-radius circles, alternating)
// rest in an evenly spaced row on the floor, created asleep; the other half
// start awake, scattered 5 to 25 m up with random speeds up to 8 m/s on
// each axis and restitution 0.5. The row's first contacts wake it (box2d
// wakes both bodies of a new contact) and it dozes off after half a second;
// meanwhile the falling half lands on it, so over 200 steps (about 3 s) the
// awake share climbs from a half to about 90 % (about 1400 contacts at
// n = 1000), and the pile settles after that. The benchmark reports how
// many bodies are awake at the end.
func benchField(tb testing.TB, n int) (*World, slotStore) {
	tb.Helper()
	w := New(Config{GravityY: -10})
	s := make(slotStore, n+1)
	width := 0.6*float64(n) + 20
	side := func(x, y, bw, bh float64) entity.Shape {
		sh := box(bw, bh)
		sh.Offset = entity.Vec2{X: x, Y: y}
		return sh
	}
	walls := def(entity.Static,
		side(0, -0.5, width+2, 1), side(-width/2-0.5, 15, 1, 30),
		side(width/2+0.5, 15, 1, 30), side(0, 30.5, width+2, 1))
	if err := w.Add(entity.ID{Gen: 1}, walls, entity.Identity, entity.Rigidbody{}); err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	resting := n / 2
	for i := range n {
		var sh entity.Shape
		if i%2 == 0 {
			sh = box(0.5, 0.5)
		} else {
			sh = circle(0.25)
		}
		p := &s[i+1]
		p.rb.Awake = i >= resting
		if i < resting {
			p.t = entity.Transform{X: -width/2 + (float64(i)+0.5)*width/float64(resting), Y: 0.25, Scale: 1}
		} else {
			sh.Restitution = 0.5
			p.t = entity.Transform{X: (rng.Float64() - 0.5) * (width - 2), Y: 5 + 20*rng.Float64(), Scale: 1}
			p.rb.VX, p.rb.VY = 16*rng.Float64()-8, 16*rng.Float64()-8
		}
		if err := w.Add(entity.ID{Slot: uint32(i + 1), Gen: 1}, def(entity.Dynamic, sh), p.t, p.rb); err != nil {
			tb.Fatal(err)
		}
	}
	return w, s
}

func BenchmarkStep(b *testing.B) {
	for _, n := range []int{100, 500, 1000} {
		b.Run(fmt.Sprintf("bodies=%d", n), func(b *testing.B) {
			w, s := benchField(b, n)
			b.ReportAllocs()
			for b.Loop() {
				w.Step(s)
			}
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(ns, "ns/step")
			b.ReportMetric(ns/float64(n), "ns/body")
			awake := 0
			for _, p := range s[1:] {
				if p.rb.Awake {
					awake++
				}
			}
			b.ReportMetric(float64(awake), "awake-at-end")
		})
	}
}

// BenchmarkSpinnersStep measures the step of bench/spin's busy world
// without its behaviors: 500 kinematic circles on a 25 × 20 grid 16 m
// apart, each given every step, as bench/spin's spinner gives it, the
// velocity that carries it to the next point of its circle (1 to 7 m
// round, 0.5 to 1.5 rad/s) and that angular velocity. Nothing touches.
func BenchmarkSpinnersStep(b *testing.B) {
	const n, dt = 500, 1.0 / 64
	w := New(Config{Step: dt})
	s := make(slotStore, n+1)
	type orbit struct{ cx, cy, r, w float64 }
	orbits := make([]orbit, n+1)
	for i := 1; i <= n; i++ {
		x, y := float64((i-1)%25)*16, float64((i-1)/25)*16
		r, av := 1+float64(i*37%61)/10, 0.5+float64(i*53%101)/100
		orbits[i] = orbit{x - r, y, r, av}
		s[i].t = entity.Transform{X: x, Y: y, Scale: 1}
		s[i].rb.Awake = true
		if err := w.Add(entity.ID{Slot: uint32(i), Gen: 1}, def(entity.Kinematic, circle(0.5)), s[i].t, s[i].rb); err != nil {
			b.Fatal(err)
		}
	}
	tick := 0
	step := func() {
		tick++
		for i := 1; i <= n; i++ {
			o, p := orbits[i], &s[i]
			a := o.w * float64(tick) * dt
			p.rb.VX = (o.cx + o.r*math.Cos(a) - p.t.X) / dt
			p.rb.VY = (o.cy + o.r*math.Sin(a) - p.t.Y) / dt
			p.rb.AngularVelocity = o.w
		}
		w.Step(s)
	}
	for range 64 {
		step()
	}
	b.ReportAllocs()
	for b.Loop() {
		step()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/step")
}

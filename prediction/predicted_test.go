package prediction

import (
	"math"
	"testing"

	"vkm/internal/entity"
	"vkm/wire"
)

var (
	ownID   = entity.ID{Slot: 1, Gen: 1}
	crateID = entity.ID{Slot: 7, Gen: 3}
)

func TestPredictionsRecordAndAt(t *testing.T) {
	var p Predictions // zero value ready
	if _, _, ok := p.At(0, ownID); ok {
		t.Fatal("empty Predictions holds tick 0")
	}
	own := entity.Transform{X: 1, Y: 2, Angle: 0.5, Scale: 1}
	ownRB := entity.Rigidbody{VX: 3, Awake: true}
	crate := entity.Transform{X: 4, Y: 5, Scale: 1}
	p.Record(10, ownID, own, ownRB)
	p.Record(10, crateID, crate, entity.Rigidbody{})
	if tr, rb, ok := p.At(10, ownID); !ok || tr != own || rb != ownRB {
		t.Fatalf("At(10, own) = %v %v %v", tr, rb, ok)
	}
	if tr, _, ok := p.At(10, crateID); !ok || tr != crate {
		t.Fatalf("At(10, crate) = %v %v", tr, ok)
	}
	if _, _, ok := p.At(11, ownID); ok {
		t.Fatal("tick 11 never recorded")
	}
	if _, _, ok := p.At(10, entity.ID{Slot: 9, Gen: 1}); ok {
		t.Fatal("body never recorded")
	}
	// A replay records over the tick.
	own2 := entity.Transform{X: 1.5, Y: 2, Scale: 1}
	p.Record(10, ownID, own2, entity.Rigidbody{})
	if tr, _, _ := p.At(10, ownID); tr != own2 {
		t.Fatalf("re-recorded tick = %v, want %v", tr, own2)
	}
	var n int
	p.Each(10, func(id entity.ID, _ entity.Transform, _ entity.Rigidbody) {
		if want := []entity.ID{ownID, crateID}[n]; id != want {
			t.Errorf("Each #%d = %v, want %v", n, id, want)
		}
		n++
	})
	if n != 2 {
		t.Fatalf("Each visited %d bodies, want 2", n)
	}
}

func TestPredictionsWindow(t *testing.T) {
	var p Predictions
	for tick := uint32(100); tick < 100+PredictionWindow; tick++ {
		p.Record(tick, ownID, entity.Transform{X: float64(tick)}, entity.Rigidbody{})
	}
	if tr, _, ok := p.At(100, ownID); !ok || tr.X != 100 {
		t.Fatalf("oldest tick in the window: %v %v", tr, ok)
	}
	p.Record(100+PredictionWindow, ownID, entity.Transform{X: 1}, entity.Rigidbody{})
	if _, _, ok := p.At(100, ownID); ok {
		t.Fatal("a tick a whole window behind the newest is still held")
	}
	if tr, _, ok := p.At(101, ownID); !ok || tr.X != 101 {
		t.Fatalf("tick 101: %v %v", tr, ok)
	}
	// The slot now holds only the new tick's bodies.
	var n int
	p.Each(100+PredictionWindow, func(entity.ID, entity.Transform, entity.Rigidbody) { n++ })
	if n != 1 {
		t.Fatalf("reused slot holds %d bodies, want 1", n)
	}
}

func TestPredictionsForget(t *testing.T) {
	var p Predictions
	for tick := uint32(1); tick <= 20; tick++ {
		p.Record(tick, ownID, entity.Transform{X: float64(tick)}, entity.Rigidbody{})
		p.Record(tick, crateID, entity.Transform{Y: float64(tick)}, entity.Rigidbody{})
	}
	p.Forget(12)
	for tick := uint32(1); tick <= 20; tick++ {
		_, _, ok := p.At(tick, ownID)
		_, _, okc := p.At(tick, crateID)
		if want := tick >= 12; ok != want || okc != want {
			t.Errorf("tick %d after Forget(12): own %v crate %v, want %v", tick, ok, okc, want)
		}
	}
	called := false
	p.Each(5, func(entity.ID, entity.Transform, entity.Rigidbody) { called = true })
	if called {
		t.Fatal("Each visited a forgotten tick")
	}
}

func TestPredictionsRecordDoesNotAllocate(t *testing.T) {
	var p Predictions
	bodies := []entity.ID{ownID, crateID, {Slot: 8, Gen: 1}}
	tick := uint32(0)
	run := func() {
		for _, id := range bodies {
			p.Record(tick, id, entity.Transform{X: float64(tick)}, entity.Rigidbody{})
		}
		tick++
		p.Forget(tick - min(tick, 20))
	}
	for range 2 * PredictionWindow { // warm-up: every slot grows once
		run()
	}
	if a := testing.AllocsPerRun(1000, run); a != 0 {
		t.Fatalf("Record allocates %.1f times a tick after warm-up", a)
	}
}

func TestAgrees(t *testing.T) {
	base := entity.Transform{X: 10, Y: -3, Angle: 1, Scale: 1}
	at := func(dx, dy float64) entity.Transform {
		t := base
		t.X += dx
		t.Y += dy
		return t
	}
	cases := []struct {
		name   string
		server entity.Transform
		want   bool
	}{
		{"identical", base, true},
		{"2.9 mm in x", at(0.0029, 0), true},
		{"3.1 mm in x", at(0.0031, 0), false},
		{"2 mm each way (2.83 mm)", at(0.002, 0.002), true},
		{"2.2 mm each way (3.11 mm)", at(0.0022, 0.0022), false},
		{"30 cm", at(0.3, 0), false},
		{"angle only", entity.Transform{X: base.X, Y: base.Y, Angle: -2, Scale: 3}, true},
		{"NaN", at(math.NaN(), 0), false},
		{"Inf", at(math.Inf(1), 0), false},
	}
	for _, c := range cases {
		if got := Agrees(base, c.server); got != c.want {
			t.Errorf("%s: Agrees = %v, want %v (distance %.5f m)", c.name, got, c.want, Distance(base, c.server))
		}
	}
	// The wire's own rounding never causes a correction.
	for _, x := range []float64{0.0004999, 12.3456789, -7.77777, 2000.0005} {
		p := entity.Transform{X: x, Y: -x / 3, Scale: 1}
		s := entity.Transform{X: wire.Position.Quantize(p.X), Y: wire.Position.Quantize(p.Y), Scale: 1}
		if !Agrees(p, s) {
			t.Errorf("quantised %v disagrees with itself (%.5f m)", p, Distance(p, s))
		}
	}
	if d := Distance(entity.Transform{X: 3}, entity.Transform{Y: 4}); d != 5 {
		t.Errorf("Distance = %v, want 5", d)
	}
}

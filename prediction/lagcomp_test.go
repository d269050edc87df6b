package prediction

import (
	"math"
	"testing"

	"vkm/internal/entity"
)

func TestPoseHistoryInterpolatesAndClamps(t *testing.T) {
	var h PoseHistory
	id := entity.ID{Slot: 3, Gen: 1}
	for tick := uint32(1); tick <= 100; tick++ {
		h.Record(tick, id, entity.Transform{X: float64(tick) * 0.1, Scale: 1})
	}
	oldest, newest, ok := h.Span(id)
	if !ok || oldest != 100-RewindTicks+1 || newest != 100 {
		t.Fatalf("span %d..%d %v, want %d..100", oldest, newest, ok, 100-RewindTicks+1)
	}
	for _, c := range []struct {
		tick, x float64
	}{
		{90, 9.0},
		{90.5, 9.05},
		{100, 10},
		{250, 10},                               // the future: the present
		{3, float64(100-RewindTicks+1) * 0.1},   // before the history: its start
		{-40, float64(100-RewindTicks+1) * 0.1}, // nonsense: clamped too
		{math.NaN(), 10},
	} {
		got, ok := h.At(id, c.tick)
		if !ok || math.Abs(got.X-c.x) > 1e-9 {
			t.Errorf("At(%v) = %v %v, want x %v", c.tick, got.X, ok, c.x)
		}
	}
	if _, ok := h.At(entity.ID{Slot: 4, Gen: 1}, 90); ok {
		t.Error("a pose for an entity never recorded")
	}
	h.Forget(id)
	if _, ok := h.At(id, 90); ok {
		t.Error("a forgotten entity still has poses")
	}
}

func TestPoseHistoryGapsAndAngles(t *testing.T) {
	var h PoseHistory
	id := entity.ID{Slot: 1, Gen: 1}
	h.Record(10, id, entity.Transform{X: 1, Angle: math.Pi - 0.1})
	h.Record(13, id, entity.Transform{X: 4, Angle: -math.Pi + 0.1})
	// Ticks 11 and 12 were not recorded: they hold tick 10's pose.
	if got, _ := h.At(id, 12); got.X != 1 {
		t.Errorf("gap tick holds x %v, want 1", got.X)
	}
	got, _ := h.At(id, 12.5)
	if math.Abs(math.Abs(got.Angle)-math.Pi) > 1e-9 {
		t.Errorf("angle halfway across ±π is %v, want ±π (the short way round)", got.Angle)
	}
	// A huge leap keeps only the newest window.
	h.Record(10_000, id, entity.Transform{X: 9})
	if o, n, _ := h.Span(id); n-o+1 != RewindTicks {
		t.Errorf("after a leap the span is %d..%d", o, n)
	}
	if got, _ := h.At(id, 9990); got.X != 4 {
		t.Errorf("tick inside the leap holds x %v, want the last pose before it (4)", got.X)
	}
}

func TestDrawnTickRoundTrip(t *testing.T) {
	for _, v := range []float64{0, 1, 1.5, 1000.99609375, 123456.25} {
		w, f := DrawnTick(v)
		if got := Drawn(w, f); math.Abs(got-v) > 1.0/256 {
			t.Errorf("DrawnTick(%v) = %d+%d/256 = %v", v, w, f, got)
		}
	}
	for _, v := range []float64{-3, math.NaN(), math.Inf(1), 1e12} {
		DrawnTick(v) // must not panic or wrap into nonsense
	}
	if got := DrawnAt(500.5, 40, 37); got != 497.5 {
		t.Errorf("DrawnAt = %v, want 497.5 (three commands older)", got)
	}
	if got := DrawnAt(500.5, 40, 41); got != 500.5 {
		t.Errorf("DrawnAt for a command newer than the packet's = %v", got)
	}
}

package prediction

import (
	"math"
	"testing"

	"vkm/internal/entity"
)

func TestSmootherDecay(t *testing.T) {
	var s Smoother
	s.Correct(ownID, entity.Transform{X: 0.4, Scale: 1}, entity.Transform{Scale: 1})
	if dx, dy, da := s.Offset(ownID); dx != 0.4 || dy != 0 || da != 0 {
		t.Fatalf("offset after a 40 cm correction = %v %v %v", dx, dy, da)
	}
	const frame = 1.0 / 144
	var elapsed float64
	var atSixth, underMM, gone float64 = -1, -1, -1
	for i := 1; i <= 144; i++ {
		s.Advance(frame)
		elapsed = float64(i) * frame
		dx, _, _ := s.Offset(ownID)
		if atSixth < 0 && elapsed >= 1.0/6-1e-9 {
			atSixth = dx
		}
		if underMM < 0 && dx < 0.001 {
			underMM = elapsed
		}
		if gone < 0 && s.Len() == 0 {
			gone = elapsed
		}
	}
	t.Logf("40 cm correction at 144 fps: %.1f mm left at 1/6 s, under 1 mm at %.3f s, dropped at %.3f s",
		atSixth*1000, underMM, gone)
	if atSixth >= 0.4*0.1 {
		t.Errorf("%.1f mm left at 1/6 s; want over 90%% gone", atSixth*1000)
	}
	if underMM < 0 || underMM > 0.45 {
		t.Errorf("under 1 mm at %.3f s; want within 0.45 s", underMM)
	}
	if gone < 0 || gone > 0.6 {
		t.Errorf("dropped at %.3f s; want within 0.6 s", gone)
	}
}

func TestSmootherDecayIsFrameRateIndependent(t *testing.T) {
	var a, b Smoother
	a.Correct(ownID, entity.Transform{X: 0.4, Y: -0.1}, entity.Transform{})
	b.Correct(ownID, entity.Transform{X: 0.4, Y: -0.1}, entity.Transform{})
	for range 144 / 6 {
		a.Advance(1.0 / 144)
	}
	for range 60 / 6 {
		b.Advance(1.0 / 60)
	}
	ax, ay, _ := a.Offset(ownID)
	bx, by, _ := b.Offset(ownID)
	if math.Abs(ax-bx) > 1e-12 || math.Abs(ay-by) > 1e-12 {
		t.Fatalf("1/6 s at 144 fps leaves %v,%v; at 60 fps %v,%v", ax, ay, bx, by)
	}
	a.Advance(0)
	a.Advance(-1)
	a.Advance(math.NaN())
	if x, _, _ := a.Offset(ownID); x != ax {
		t.Fatal("a non-positive or NaN dt changed the offset")
	}
}

func TestSmootherCorrectionsAdd(t *testing.T) {
	var s Smoother
	s.Correct(ownID, entity.Transform{X: 0.1, Y: 0.02}, entity.Transform{})
	s.Correct(ownID, entity.Transform{X: 1, Y: 1}, entity.Transform{X: 0.95, Y: 1.03})
	dx, dy, _ := s.Offset(ownID)
	if math.Abs(dx-0.15) > 1e-12 || math.Abs(dy-(-0.01)) > 1e-12 {
		t.Fatalf("two corrections sum to %v,%v; want 0.15,-0.01", dx, dy)
	}
	s.Correct(crateID, entity.Transform{X: 0.2}, entity.Transform{})
	if s.Len() != 2 {
		t.Fatalf("Len = %d, want 2", s.Len())
	}
	// A correction that undoes the offset removes it.
	s.Correct(crateID, entity.Transform{}, entity.Transform{X: 0.2})
	if s.Len() != 1 {
		t.Fatalf("Len after cancelling = %d, want 1", s.Len())
	}
	// A NaN transform leaves the offset alone.
	s.Correct(ownID, entity.Transform{X: math.NaN()}, entity.Transform{})
	if x, _, _ := s.Offset(ownID); x != dx {
		t.Fatalf("NaN correction moved the offset to %v", x)
	}
}

func TestSmootherAngleTakesTheShortWay(t *testing.T) {
	var s Smoother
	// Drawn at just under +π, now at just over -π: 0.2 rad apart, not 6.08.
	s.Correct(ownID, entity.Transform{Angle: math.Pi - 0.1}, entity.Transform{Angle: -math.Pi + 0.1})
	if _, _, da := s.Offset(ownID); math.Abs(da-(-0.2)) > 1e-12 {
		t.Fatalf("angle offset across ±π = %v, want -0.2", da)
	}
	// Two corrections that sum past π wrap as well.
	var u Smoother
	u.Correct(ownID, entity.Transform{Angle: 2}, entity.Transform{})
	u.Correct(ownID, entity.Transform{Angle: 2}, entity.Transform{})
	if _, _, da := u.Offset(ownID); math.Abs(da-(4-2*math.Pi)) > 1e-12 {
		t.Fatalf("summed angle offset = %v, want %v", da, 4-2*math.Pi)
	}
}

// world is a tiny store of Transforms for Draw's get.
type world map[entity.ID]*entity.Transform

func (w world) get(id entity.ID) *entity.Transform { return w[id] }

func TestSmootherDrawIsOneScope(t *testing.T) {
	// Values chosen so x + d - d != x in floating point.
	own := entity.Transform{X: 0.1, Y: 1e16, Angle: 3.1, Scale: 1}
	crate := entity.Transform{X: -7.3, Y: 0.3, Angle: -1, Scale: 2}
	w := world{ownID: &own, crateID: &crate}
	var s Smoother
	s.Correct(ownID, entity.Transform{X: 0.2, Y: 3, Angle: 0.05}, entity.Transform{})
	s.Correct(crateID, entity.Transform{X: 0.7}, entity.Transform{})
	s.Correct(entity.ID{Slot: 99, Gen: 1}, entity.Transform{X: 1}, entity.Transform{}) // despawned: get returns nil
	before := map[entity.ID]entity.Transform{ownID: own, crateID: crate}

	ox, oa, cd := 0.2, 0.05, 0.7 // as variables, so the sums below round as Draw's do
	wantOwnX, wantOwnA, wantCrateX := own.X+ox, own.Angle+oa, crate.X+cd
	var seen entity.Transform
	s.Draw(w.get, func() {
		seen = own
		if crate.X != wantCrateX {
			t.Errorf("crate drawn at %v, want %v", crate.X, wantCrateX)
		}
	})
	if seen.X != wantOwnX || seen.Angle != wantOwnA {
		t.Errorf("own drawn at %v", seen)
	}
	checkBits(t, "after Draw", w, before)

	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not come through Draw")
			}
		}()
		s.Draw(w.get, func() {
			if own.X == before[ownID].X {
				t.Error("offset not applied inside the scope")
			}
			panic("draw failed")
		})
	}()
	checkBits(t, "after a panicking draw", w, before)

	// The scope can be entered again after a panic, and a nested Draw does
	// not apply the offsets twice.
	s.Draw(w.get, func() {
		s.Draw(w.get, func() {
			if own.X != wantOwnX {
				t.Errorf("nested Draw drew at %v", own.X)
			}
		})
	})
	checkBits(t, "after a nested Draw", w, before)

	// Correct and Advance inside the scope do not upset the restore.
	s.Draw(w.get, func() {
		s.Advance(10)
		s.Correct(crateID, entity.Transform{X: 5}, entity.Transform{})
	})
	checkBits(t, "after mutating inside Draw", w, before)
}

func checkBits(t *testing.T, when string, w world, want map[entity.ID]entity.Transform) {
	t.Helper()
	for id, tr := range want {
		got := *w[id]
		if math.Float64bits(got.X) != math.Float64bits(tr.X) || math.Float64bits(got.Y) != math.Float64bits(tr.Y) ||
			math.Float64bits(got.Angle) != math.Float64bits(tr.Angle) || math.Float64bits(got.Scale) != math.Float64bits(tr.Scale) {
			t.Errorf("%s: %v is %v, want %v bit for bit", when, id, got, tr)
		}
	}
}

func TestSmootherDrawDoesNotAllocate(t *testing.T) {
	own := entity.Transform{X: 1}
	w := world{ownID: &own}
	var s Smoother
	s.Correct(ownID, entity.Transform{X: 0.4}, entity.Transform{})
	draw := func() {}
	s.Draw(w.get, draw) // warm-up
	if a := testing.AllocsPerRun(100, func() { s.Draw(w.get, draw) }); a != 0 {
		t.Fatalf("Draw allocates %.1f times a frame", a)
	}
}

func TestSmootherDropSnaps(t *testing.T) {
	var s Smoother
	id := entity.ID{Slot: 3, Gen: 1}
	s.Correct(id, entity.Transform{X: 12}, entity.Transform{X: 0})
	s.Drop(id)
	if dx, dy, da := s.Offset(id); dx != 0 || dy != 0 || da != 0 || s.Len() != 0 {
		t.Fatalf("offset (%g, %g, %g) after Drop", dx, dy, da)
	}
	s.Drop(id) // nothing to drop
}

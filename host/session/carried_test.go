package session

import (
	"testing"

	"vkm/internal/entity"
)

// TestCarriedGoesOnFromTheStepWhereTheWordAgrees checks when a carried
// character goes on from the last tick's step rather than from its word:
// only where the word is older than the tick before and either the step
// of the word's own tick had it where the word says, at the word's
// velocity, or the last step carried it from this same word.
func TestCarriedGoesOnFromTheStepWhereTheWordAgrees(t *testing.T) {
	pose := func(tick uint32, x, vx float64) steppedPose {
		return steppedPose{tick: tick, t: entity.Transform{X: x, Y: 1, Scale: 1}, rb: entity.Rigidbody{VX: vx, Awake: true}}
	}
	word := func(x, vx float64) reckoned {
		r := reckoned{of: 100, heard: true, t: entity.Transform{X: x, Y: 1, Scale: 1}, rb: entity.Rigidbody{VX: vx, Awake: true}}
		r.stepped[100%stepRing] = pose(100, 2.0, 4.0)
		r.stepped[107%stepRing] = pose(107, 2.5, 4.0)
		return r
	}
	for _, c := range []struct {
		name  string
		r     reckoned
		tick  uint32
		n     int64
		want  bool
		wantX float64
	}{
		{"agrees", word(2.004, 4.05), 108, 7, true, 2.5},
		{"parted in place", word(2.05, 4.0), 108, 7, false, 0},
		{"parted in speed", word(2.0, 3.5), 108, 7, false, 0},
		{"the word is of the tick before", word(2.0, 4.0), 101, 0, false, 0},
		{"no step of the tick before", word(2.0, 4.0), 110, 9, false, 0},
		{"never heard", reckoned{of: 100}, 108, 7, false, 0},
		{"parted, but stepped from this word", func() reckoned {
			r := word(2.05, 3.5)
			r.stepped[107%stepRing].of = 100
			return r
		}(), 108, 7, true, 2.5},
	} {
		s, ok := c.r.carried(c.tick, c.n)
		if ok != c.want || ok && s.t.X != c.wantX {
			t.Errorf("%s: carried = (%v, %v); want (%v, %v)", c.name, s.t.X, ok, c.wantX, c.want)
		}
	}
	// A step of another tick in the word's place in the ring is not the
	// word's tick's.
	r := word(2.0, 4.0)
	r.stepped[100%stepRing] = pose(100+stepRing, 2.0, 4.0)
	if _, ok := r.carried(108, 7); ok {
		t.Error("carried from a step of another tick in the word's slot")
	}
}

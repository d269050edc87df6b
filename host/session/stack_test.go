package session

import (
	"math"
	"testing"

	"vkm/internal/entity"
)

// TestStackedCharactersMeetAlongY has a carried character meet the own
// one above or below it: rising into it from below, the two share their
// vertical speed and end the tick touching; falling onto its head, it
// goes on at the own character's speed, standing on it; apart, it goes on
// as it was.
func TestStackedCharactersMeetAlongY(t *testing.T) {
	b := box{minX: -0.4, minY: -0.8, maxX: 0.4, maxY: 0.85}
	m := meeting{ok: true, boxed: true, box: b, ownBox: b, mass: 1, ownM: 1}
	own := entity.Transform{X: 0, Y: 2}
	ownRB := entity.Rigidbody{VY: 0}
	below := own.Y + b.minY - gap - b.maxY // touching, under it

	tr, rb := entity.Transform{X: 0.1, Y: below + 0.1}, entity.Rigidbody{VY: 6}
	m.stack(0.1, below, own, own, ownRB, &tr, &rb)
	if rb.VY != 3 || math.Abs(tr.Y-below) > 1e-12 {
		t.Errorf("rising into it from below: y %.4f vy %g; want %.4f and 3 (momentum shared, touching)", tr.Y, rb.VY, below)
	}

	above := own.Y + b.maxY + gap - b.minY
	tr, rb = entity.Transform{X: -0.2, Y: above - 0.05}, entity.Rigidbody{VY: -4}
	m.stack(-0.2, above, own, own, ownRB, &tr, &rb)
	if rb.VY != 0 || math.Abs(tr.Y-above) > 1e-12 {
		t.Errorf("falling onto its head: y %.4f vy %g; want %.4f and 0 (standing on it)", tr.Y, rb.VY, above)
	}

	tr, rb = entity.Transform{X: 0, Y: above + 0.45}, entity.Rigidbody{VY: -4}
	m.stack(0, above+0.5, own, own, ownRB, &tr, &rb)
	if rb.VY != -4 || tr.Y != above+0.45 {
		t.Errorf("apart: y %.4f vy %g; want it left as it was", tr.Y, rb.VY)
	}

	tr, rb = entity.Transform{X: 0, Y: below}, entity.Rigidbody{VY: 0}
	m.stack(0, below, own, entity.Transform{X: 0, Y: own.Y - 0.2}, entity.Rigidbody{VY: -10}, &tr, &rb)
	if rb.VY != 0 || tr.Y != below {
		t.Errorf("the own character coming down onto it: y %.4f vy %g; want it left standing (%.4f, 0)", tr.Y, rb.VY, below)
	}

	tr, rb = entity.Transform{X: 1.0, Y: below + 0.1}, entity.Rigidbody{VY: 6}
	m.stack(1.0, below, own, own, ownRB, &tr, &rb)
	if rb.VY != 6 {
		t.Errorf("beside it, not under it: vy %g; want 6", rb.VY)
	}
}

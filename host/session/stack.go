package session

import (
	"math"

	"vkm/internal/entity"
)

// stack has a character carried through a tick meet the own character
// above or below it as box2d would, the way stop has them meet side by
// side: one standing on the other's head, or jumping into it from below.
// Bodies touching when the tick starts, one over the other (they overlap
// more along x than they stand apart along y), and closing on each other
// along y go on at the vertical speed their momentum shares, and end the
// tick touching. One carried onto the own character's head from above
// lands there: it goes on at the own character's vertical speed, which
// the ground under it holds, not at a speed shared with it. (x0, y0) is
// where the carried character was before the tick; pre and preRB the own
// character as predicted by the tick before, post by this one.
func (m *meeting) stack(x0, y0 float64, pre, post entity.Transform, preRB entity.Rigidbody, t *entity.Transform, rb *entity.Rigidbody) {
	over := math.Min(x0+m.box.maxX, pre.X+m.ownBox.maxX) - math.Max(x0+m.box.minX, pre.X+m.ownBox.minX)
	if over <= 0 {
		return // not over each other at all
	}
	below := y0 < pre.Y
	var apart float64
	if below {
		apart = pre.Y + m.ownBox.minY - (y0 + m.box.maxY)
	} else {
		apart = y0 + m.box.minY - (pre.Y + m.ownBox.maxY)
	}
	if apart > touching || apart < -gap {
		return // apart, or already one inside the other: the step's to solve
	}
	closing := rb.VY - preRB.VY
	switch {
	case below && closing > 0:
		rb.VY = (m.mass*rb.VY + m.ownM*preRB.VY) / (m.mass + m.ownM)
	case !below && closing < 0:
		rb.VY = preRB.VY
	}
	if below {
		t.Y = math.Min(t.Y, post.Y+m.ownBox.minY-gap-m.box.maxY)
	} else {
		t.Y = math.Max(t.Y, post.Y+m.ownBox.maxY+gap-m.box.minY)
	}
}

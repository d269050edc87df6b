package session

import (
	"math"

	"vkm/internal/entity"
)

// stack has a character carried through a tick meet the own character
// above or below it as box2d would, the way stop has them meet side by
// side: one standing on the other's head, or jumping into it from below.
// A carried character touching the own one from below when the tick
// starts and rising into it goes on at the vertical speed their momentum
// shares (never downward: it rose) and ends the tick touching; the own
// character coming down onto one that does not rise moves it not at all,
// since what holds it up holds the pair. One carried onto the own
// character's head from above lands there: it goes on at the own
// character's vertical speed, which the ground under it holds, not at a
// speed shared with it. (x0, y0) is
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
	case below && rb.VY <= 0:
		// The own character coming down onto it: what holds the carried
		// one up (the floor, as often as not) stops the own one, and the
		// carried one is not pressed down through it.
	case below && closing > 0:
		rb.VY = math.Max((m.mass*rb.VY+m.ownM*preRB.VY)/(m.mass+m.ownM), 0)
		t.Y = math.Max(y0, math.Min(t.Y, post.Y+m.ownBox.minY-gap-m.box.maxY))
	case !below && closing < 0:
		rb.VY = preRB.VY
		t.Y = math.Max(t.Y, post.Y+m.ownBox.maxY+gap-m.box.minY)
	}
}

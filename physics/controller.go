package physics

import (
	"math"

	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// groundNormalY is the least upward component of a contact normal that
// counts as standing on something: about 60° from vertical, so a steep
// slope or a wall does not ground a character.
const groundNormalY = 0.5

// UpdateController runs the side-view character controller of id for one
// tick. Call it before Step, after the behaviors wrote the intent:
//
//  1. c.Grounded is set from the body's touching contacts as the last Step
//     left them: grounded if a non-sensor fixture of another body touches it
//     with a contact normal pointing up toward it (y > 0.5);
//  2. rb.VX moves toward c.MoveX*c.Speed by at most Accel (AirAccel when not
//     grounded) times the step;
//  3. if c.Jump and c.Grounded, rb.VY becomes c.JumpSpeed;
//  4. the intent is cleared (MoveX = 0, Jump = false), so a command that
//     does not arrive does not keep running or jumping.
//
// It writes the components, not the body: Step's gather carries rb into
// box2d, so the controller is replayed exactly like any other write. An id
// without a body is never grounded. Nil c or rb does nothing.
func (w *World) UpdateController(id entity.ID, c *entity.CharacterController, rb *entity.Rigidbody) {
	if c == nil || rb == nil {
		return
	}
	c.Grounded = false
	if r, ok := w.byID[id]; ok {
		c.Grounded = grounded(r.b)
	}
	accel := c.AirAccel
	if c.Grounded {
		accel = c.Accel
	}
	rb.VX = approach(rb.VX, c.MoveX*c.Speed, math.Max(accel, 0)*w.cfg.Step)
	if c.Jump && c.Grounded {
		rb.VY = c.JumpSpeed
	}
	c.MoveX, c.Jump = 0, false
}

// grounded reports whether b stands on something: a touching, enabled,
// non-sensor contact whose normal, turned to point toward b, has y above
// groundNormalY. box2d's world manifold normal points from fixture A to
// fixture B, so it is negated when b owns fixture A.
func grounded(b *box2d.B2Body) bool {
	for e := b.GetContactList(); e != nil; e = e.Next {
		c := e.Contact
		if !c.IsTouching() || !c.IsEnabled() {
			continue
		}
		fa, fb := c.GetFixtureA(), c.GetFixtureB()
		if fa.IsSensor() || fb.IsSensor() {
			continue
		}
		var wm box2d.B2WorldManifold
		c.GetWorldManifold(&wm)
		ny := wm.Normal.Y
		if fa.GetBody() == b {
			ny = -ny
		}
		if ny > groundNormalY {
			return true
		}
	}
	return false
}

// approach moves v toward target by at most step (step >= 0).
func approach(v, target, step float64) float64 {
	if v < target {
		return math.Min(v+step, target)
	}
	return math.Max(v-step, target)
}

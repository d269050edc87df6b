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

// UpdateController runs the character controller of id for one tick. Call
// it before Step, after the behaviors wrote the intent. In side view
// (entity.SideView):
//
//  1. c.Grounded is set from where the body is now: grounded if a solid
//     fixture of another body lies just below its feet, facing up (see
//     grounded);
//  2. rb.VX moves toward c.MoveX*c.Speed by at most Accel (AirAccel when not
//     grounded) times the step;
//  3. if c.Jump and c.Grounded, rb.VY becomes c.JumpSpeed;
//  4. the intent is cleared (MoveX = MoveY = 0, Jump = false), so a command
//     that does not arrive does not keep running or jumping.
//
// Top-down (entity.TopDown), c.Grounded is false and the velocity
// (rb.VX, rb.VY) moves in a straight line toward (MoveX, MoveY)*Speed, the
// intent first clamped to length 1, by at most Accel times the step; with
// no intent it slows toward rest by at most Friction times the step. Jump
// does nothing. Step 4 is the same. See updateTopDown.
//
// It writes the components, not the body: Step's gather carries rb into
// box2d, so the controller is replayed exactly like any other write. An id
// without a body is never grounded. Nil c or rb does nothing.
func (w *World) UpdateController(id entity.ID, c *entity.CharacterController, rb *entity.Rigidbody) {
	if c == nil || rb == nil {
		return
	}
	r := w.byID[id]
	w.updateController(r, c, rb)
}

// Controlled is the entity store as UpdateControllers reads it.
type Controlled interface {
	Bodies
	// Controller returns id's character controller, or nil if it has none.
	Controller(id entity.ID) *entity.CharacterController
}

// UpdateControllers runs UpdateController, in slot order, for every body
// that is not static and whose entity b simulates and gives a controller
// and a Rigidbody. It walks the bodies, not every entity.
func (w *World) UpdateControllers(b Controlled) {
	for _, r := range w.order {
		if r.kind == entity.Static {
			continue
		}
		c := b.Controller(r.id)
		if c == nil || !b.Simulates(r.id) {
			continue
		}
		if _, rb := b.Pose(r.id); rb != nil {
			w.updateController(r, c, rb)
		}
	}
}

// updateController is UpdateController for r's body (nil: none).
func (w *World) updateController(r *body, c *entity.CharacterController, rb *entity.Rigidbody) {
	c.Grounded = false
	if c.Mode == entity.TopDown {
		updateTopDown(c, rb, w.cfg.Step)
		c.MoveX, c.MoveY, c.Jump = 0, 0, false
		return
	}
	if r != nil {
		c.Grounded = w.grounded(r.b)
	}
	accel := c.AirAccel
	if c.Grounded {
		accel = c.Accel
	}
	rb.VX = approach(rb.VX, c.MoveX*c.Speed, math.Max(accel, 0)*w.cfg.Step)
	if c.Jump && c.Grounded {
		rb.VY = c.JumpSpeed
	}
	c.MoveX, c.MoveY, c.Jump = 0, 0, false
}

// updateTopDown moves rb's velocity toward the commanded one for a step of
// dt seconds: the intent (clamped to length 1) times c.Speed, at most
// c.Accel·dt away; with no intent, toward rest at most c.Friction·dt away.
// Every product is rounded on its own (see approach2).
// The velocity moves along the straight line to its target, so the rate of
// change is the same in every direction, a diagonal included, and a
// velocity already at its target stays there bit for bit.
func updateTopDown(c *entity.CharacterController, rb *entity.Rigidbody, dt float64) {
	mx, my := entity.ClampUnit(c.MoveX, c.MoveY)
	tx, ty := float64(mx*c.Speed), float64(my*c.Speed)
	rate := c.Accel
	if mx == 0 && my == 0 {
		rate = c.Friction
	}
	rb.VX, rb.VY = approach2(rb.VX, rb.VY, tx, ty, float64(math.Max(rate, 0)*dt))
}

// approach2 moves (vx, vy) toward (tx, ty) along the line between them by
// at most step (step >= 0). Products are rounded one by one, never fused,
// so that every build computes the same bits.
func approach2(vx, vy, tx, ty, step float64) (float64, float64) {
	dx, dy := tx-vx, ty-vy
	d2 := float64(dx*dx) + float64(dy*dy)
	if d2 <= float64(step*step) {
		return tx, ty
	}
	k := step / math.Sqrt(d2)
	return vx + float64(dx*k), vy + float64(dy*k)
}

// Probe geometry for grounded, in metres: how far above the lowest point of
// the character's solid fixtures each probe ray starts, how far below it it
// reaches (box2d keeps polygons about two collision skins, 2 cm, apart), and
// how far in from the sides the outer rays stand so a wall is not a floor.
const (
	probeUp    = 0.1
	probeDown  = 0.05
	probeInset = 0.05
)

// grounded reports whether b stands on something now: one of three short
// rays cast down from its feet (its left edge, centre and right edge) meets
// a solid fixture of another body whose surface faces up (normal y above
// groundNormalY) and that b collides with (solidFor: filters, joints and
// one-way shapes letting b through count). It looks at where the bodies are now; box2d's contact
// list describes where they were one step earlier, which would ground a
// character for a tick after it jumps.
func (w *World) grounded(b *box2d.B2Body) bool {
	minX, minY, maxX := math.Inf(1), math.Inf(1), math.Inf(-1)
	xf := b.M_xf
	box := &w.box
	for f := b.M_fixtureList; f != nil; f = f.M_next {
		if f.M_isSensor {
			continue
		}
		// The shape's bounds where the body is now: the fixture's own AABB
		// covers the whole sweep of the last step, feet where they were too.
		for i := range f.M_shape.GetChildCount() {
			shapeAABB(box, f.M_shape, xf, i)
			minX = flo(minX, box.LowerBound.X)
			minY = flo(minY, box.LowerBound.Y)
			maxX = fhi(maxX, box.UpperBound.X)
		}
	}
	if minX > maxX {
		return false // no solid fixture
	}
	inset := math.Min(probeInset, (maxX-minX)/4)
	probes := [3]float64{minX + inset, (minX + maxX) / 2, maxX - inset}
	// The three probes look among the leaves of one walk of the tree, over
	// a box around all three, rather than walk it three times (castAmong).
	// The box is a little larger than the probes, so as to hold them
	// however their ends are rounded.
	const room = 1e-6
	top, bottom := minY+probeUp, minY-probeDown
	area := box2d.B2AABB{
		LowerBound: box2d.MakeB2Vec2(math.Min(probes[0], probes[2])-room, bottom-room),
		UpperBound: box2d.MakeB2Vec2(math.Max(probes[0], probes[2])+room, top+room),
	}
	leaves := w.leavesIn(area)
	defer clear(leaves) // the scratch keeps no node alive
	for _, x := range probes {
		if w.groundBelow(leaves, b, x, minY) {
			return true
		}
	}
	return false
}

// groundBelow casts one probe ray down through (x, feet), among leaves
// (castAmong), and reports whether the closest fixture of another body it
// meets that b would stand on (solidFor) faces up.
func (w *World) groundBelow(leaves []*box2d.B2TreeNode, b *box2d.B2Body, x, feet float64) bool {
	hit, ny := false, 0.0
	w.castAmong(leaves, box2d.MakeB2Vec2(x, feet+probeUp), box2d.MakeB2Vec2(x, feet-probeDown), func(f *box2d.B2Fixture, fraction float64, n box2d.B2Vec2) float64 {
		if f.M_isSensor || f.M_body == b || !solidFor(b, f) {
			return -1
		}
		hit, ny = true, n.Y
		return fraction
	})
	return hit && ny > groundNormalY
}

// solidFor reports whether b's solid fixtures would collide with f: the
// filters let them (a character whose mask leaves out a floor's category
// falls through it), no joint between the two bodies keeps them apart,
// and f is not a one-way shape letting b through.
func solidFor(b *box2d.B2Body, f *box2d.B2Fixture) bool {
	filtered := true
	for own := b.M_fixtureList; own != nil; own = own.M_next {
		if !own.M_isSensor && filterCollides(own.M_filter, f.M_filter) {
			filtered = false
			break
		}
	}
	if filtered {
		return false
	}
	for e := b.M_jointList; e != nil; e = e.Next {
		if e.Other == f.M_body && !e.Joint.IsCollideConnected() {
			return false
		}
	}
	if oneWay(f) {
		for e := b.M_contactList; e != nil; e = e.Next {
			if d := contactData(e.Contact); (d.M_fixtureA == f || d.M_fixtureB == f) && letThrough(d) {
				return false
			}
		}
	}
	return true
}

// filterCollides is box2d's contact filter on two filters.
func filterCollides(a, b box2d.B2Filter) bool {
	if a.GroupIndex == b.GroupIndex && a.GroupIndex != 0 {
		return a.GroupIndex > 0
	}
	return a.MaskBits&b.CategoryBits != 0 && a.CategoryBits&b.MaskBits != 0
}

// approach moves v toward target by at most step (step >= 0).
func approach(v, target, step float64) float64 {
	if v < target {
		return math.Min(v+step, target)
	}
	return math.Max(v-step, target)
}

package browser

import (
	"math"

	"vkm/host/view"
	"vkm/internal/entity"
	"vkm/physics"
)

// joints appends to out a line for each joint of the drawn bodies, from
// one anchor to the other in the world as drawn (a mouse joint's from A's
// point to its target; a joint to the world's B anchor is a world point),
// for the page to draw. Called while the client's drawn poses are in the
// store.
func (v *Viewer) joints(out []view.JointLine, drawn []view.Pose) []view.JointLine {
	w := v.g.Physics()
	if w == nil || w.JointCount() == 0 {
		return out
	}
	st := v.g.Store()
	seen := map[physics.JointID]bool{}
	for _, p := range drawn {
		w.JointsOf(p.ID, func(j physics.JointID) bool {
			if seen[j] {
				return true
			}
			seen[j] = true
			d, ok := w.Joint(j)
			a, b, ok2 := w.JointBodies(j)
			if !ok || !ok2 || !st.Alive(a) {
				return true
			}
			ax, ay := worldPoint(st.WorldTransform(a), d.AnchorA)
			bx, by := d.AnchorB.X, d.AnchorB.Y
			switch {
			case d.Kind == entity.Mouse:
				bx, by = d.Target.X, d.Target.Y
			case !b.IsNone() && st.Alive(b):
				bx, by = worldPoint(st.WorldTransform(b), d.AnchorB)
			}
			out = append(out, view.JointLine{Kind: d.Kind.String(), AX: ax, AY: ay, BX: bx, BY: by})
			return true
		})
	}
	return out
}

// worldPoint is the point p of a body's frame at t, in the world.
func worldPoint(t entity.Transform, p entity.Vec2) (float64, float64) {
	k := t.Scale
	if k == 0 {
		k = 1
	}
	c, s := math.Cos(t.Angle), math.Sin(t.Angle)
	return t.X + k*(p.X*c-p.Y*s), t.Y + k*(p.X*s+p.Y*c)
}

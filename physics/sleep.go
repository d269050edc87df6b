package physics

import (
	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// A sleeping body is where a client and a server are most likely to hold
// different box2d state for the same pose. The client did not simulate it:
// its copy fell asleep on the client's own history (before the client
// joined, or while it was placed from snapshots), and box2d keeps in a
// sleeping body's contacts what the last step that solved it left there:
// the warm-starting impulses, which for a resting pile are not even
// determined by the poses (static friction holds any impulse inside its
// cone), and a manifold computed where the bodies stood before that step.
// When a character wakes the body by touching it, the solver starts from
// those, and the two ends part by more than the wire's rounding hides.
//
// Two rules make a sleeping body a function of its pose on every end:
// restSleepers clears what its contacts carry, and keepAsleep stops it
// waking for anything but a touch.
//
// A joint is not cleared so: its carried impulses are what holds a
// sleeping structure up (a bridge, a hanging chain), and started from
// nothing when it wakes it would drop for several steps. A client whose
// joints between bodies it placed from snapshots carry other impulses
// than the server's (it solved them its own way, or, joining late, made
// them from the file with none) starts its prediction of such a group
// from them, and the first correction after it leases the group puts it
// right.

// restPose is where a body stood when restSleepers last cleared its
// contacts, and whether it was asleep then.
type restPose struct {
	x, y, angle float64
	asleep      bool
}

// restSleepers computes again, from where the bodies stand, the manifold of
// every contact of a body that has fallen asleep, or been moved while
// asleep, since the last call, and clears its warm-starting impulses. Only
// contacts whose other body is asleep or static are touched: a contact with
// an awake body is box2d's to update at the next step, and one that touches
// would have kept the body awake. Sensor contacts carry neither.
func (w *World) restSleepers() {
	for _, r := range w.order {
		if r.kind == entity.Static {
			continue
		}
		b := r.b
		if isAwake(b) {
			r.rest.asleep = false
			continue
		}
		p := b.M_xf.P
		now := restPose{x: p.X, y: p.Y, angle: b.M_sweep.A, asleep: true}
		if now == r.rest {
			continue
		}
		r.rest = now
		for e := b.M_contactList; e != nil; e = e.Next {
			d := contactData(e.Contact)
			if o := e.Other; isAwake(o) && o.M_type != box2d.B2BodyType.B2_staticBody ||
				d.M_fixtureA.M_isSensor || d.M_fixtureB.M_isSensor {
				continue
			}
			refresh(e.Contact, w.b2.M_contactManager.M_contactListener)
		}
	}
}

// sleeper is a body that was asleep when a step began, and where it stood.
type sleeper struct {
	b           *box2d.B2Body
	x, y, angle float64
}

// noteSleepers records every body asleep now, for keepAsleep.
func (w *World) noteSleepers() {
	w.sleepers = w.sleepers[:0]
	for _, r := range w.order {
		if r.kind == entity.Static || isAwake(r.b) {
			continue
		}
		p := r.b.M_xf.P
		w.sleepers = append(w.sleepers, sleeper{b: r.b, x: p.X, y: p.Y, angle: r.b.M_sweep.A})
	}
}

// keepAsleep puts back to sleep every body noteSleepers recorded that is
// awake now without having moved by a single bit.
//
// This port follows box2d 2.3.0, which wakes both bodies of every new
// broad-phase pair, so a sleeping crate wakes when a character merely comes
// within its fattened bounds, up to a few tenths of a metre off. The server
// then solves it at rest from the cleared contacts of restSleepers, and it
// stirs, while a client that does not lease it holds it asleep where the
// last snapshot said: by the time the character touches it the two ends
// hold different crates. Touching still wakes a body, through box2d's
// contact update and its island search, and a body so woken is solved in
// the same step and moves. One that did not move at all was woken by a new
// pair alone, which later box2d versions no longer do.
func (w *World) keepAsleep() {
	for _, s := range w.sleepers {
		b := s.b
		if !isAwake(b) {
			continue
		}
		v, p := b.M_linearVelocity, b.M_xf.P
		if v.X == 0 && v.Y == 0 && b.M_angularVelocity == 0 &&
			p.X == s.x && p.Y == s.y && b.M_sweep.A == s.angle {
			b.SetAwake(false)
		}
	}
}

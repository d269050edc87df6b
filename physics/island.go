package physics

import (
	"slices"

	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// Island calls fn once for each entity in the island of id's body, in slot
// order, until fn returns false. It is how a client learns which bodies its
// character is leaning on, directly or through others, so it can lease them
// (prediction.Leases).
//
// The island is found breadth-first from id's body over joints and over
// contacts that touch: those the last Step left touching and enabled, and
// those whose fixtures touch where the bodies stand now, which the next
// Step will find touching. box2d decided what touched at the start of the
// last step, before it moved anything, so without the second kind a body
// the character reached in that step would join the island a step late,
// and anything done to it in the step it is first pushed (a shot knocking
// it) would be this end's to guess. A contact with a sensor fixture on
// either side joins nothing: a sensor never pushes; nor does a contact a
// one-way shape lets through. Bodies
// a contact cannot move, static and kinematic ones, are neither reported nor
// searched through: a floor under two piles does not join them. id's own
// body is searched from unless it is static, and is never reported. Nothing
// is reported when id has no body.
//
// After warm-up a call allocates nothing. fn may call back into w.
func (w *World) Island(id entity.ID, fn func(entity.ID) bool) {
	start, ok := w.byID[id]
	if !ok || start.kind == entity.Static {
		return
	}
	s := w.island
	w.island = nil
	if s == nil {
		s = new(islandScratch)
	}
	s.reset(len(w.order))

	// The start body is marked but never queued for reporting.
	s.mark(w.orderIndex(start))
	w.islandExpand(start.b, s)
	for head := 0; head < len(s.queue); head++ {
		w.islandExpand(w.order[s.queue[head]].b, s)
	}

	// Positions in w.order sorted ascending are slot order.
	slices.Sort(s.queue)
	ids := w.takeScratch()
	for _, i := range s.queue {
		ids = append(ids, w.order[i].id)
	}
	s.release()
	w.island = s

	// Callbacks run after the search, so they may change the world.
	for _, e := range ids {
		if !fn(e) {
			break
		}
	}
	w.scratch = ids[:0]
}

// islandExpand queues every body joined to b by a touching, non-sensor
// contact or by a joint that is not yet marked and that a contact can move.
func (w *World) islandExpand(b *box2d.B2Body, s *islandScratch) {
	for e := b.M_contactList; e != nil; e = e.Next {
		c := e.Contact
		d := contactData(c)
		if d.M_fixtureA.M_isSensor || d.M_fixtureB.M_isSensor || letThrough(d) {
			continue
		}
		live := box2d.B2Contact_Flag.E_touchingFlag | box2d.B2Contact_Flag.E_enabledFlag
		if d.M_flags&live != live && !touchesNow(c, &s.manifold) {
			continue
		}
		w.islandJoin(e.Other, s)
	}
	for e := b.M_jointList; e != nil; e = e.Next {
		if e.Other.IsActive() {
			w.islandJoin(e.Other, s)
		}
	}
}

// islandJoin queues other's body unless it is marked, unknown to w, or one a
// contact cannot move.
func (w *World) islandJoin(other *box2d.B2Body, s *islandScratch) {
	r, ok := other.M_userData.(*body)
	if !ok || r.kind != entity.Dynamic {
		return
	}
	i := w.orderIndex(r)
	if s.seen[i] {
		return
	}
	s.mark(i)
	s.queue = append(s.queue, i)
}

// orderIndex returns r's position in w.order: its rank, unless a body was
// added or removed since canonicalize last ranked them.
func (w *World) orderIndex(r *body) int32 {
	if !w.reordered {
		return r.rank
	}
	i, _ := slices.BinarySearchFunc(w.order, r.id, bodyCmp)
	return int32(i)
}

// islandScratch is the reusable state of one Island search: a mark per
// position in a World's order, the queue of positions found and a manifold
// for touchesNow.
type islandScratch struct {
	seen     []bool
	marked   []int32 // every position marked, so release clears only those
	queue    []int32
	manifold box2d.B2Manifold
}

// reset readies s for a world of n bodies. Every mark is already clear.
func (s *islandScratch) reset(n int) {
	if len(s.seen) < n {
		s.seen = make([]bool, n)
	}
	s.marked = s.marked[:0]
	s.queue = s.queue[:0]
}

// mark records position i as found.
func (s *islandScratch) mark(i int32) {
	s.seen[i] = true
	s.marked = append(s.marked, i)
}

// release clears every mark made since reset, leaving s ready for reuse.
func (s *islandScratch) release() {
	for _, i := range s.marked {
		s.seen[i] = false
	}
	s.marked = s.marked[:0]
	s.queue = s.queue[:0]
}

// touchesNow reports whether c's fixtures touch where their bodies stand
// now, which is what the next step's contact update will find: box2d's
// touching flag is from the update at the start of the last step, where the
// bodies stood before it. m is scratch; c itself is not changed.
func touchesNow(c box2d.B2ContactInterface, m *box2d.B2Manifold) bool {
	fa, fb := c.GetFixtureA(), c.GetFixtureB()
	c.Evaluate(m, fa.GetBody().GetTransform(), fb.GetBody().GetTransform())
	return m.PointCount > 0
}

package physics

import (
	"slices"

	"github.com/ByteArena/box2d"
)

// box2d's results depend on more than where the bodies are. Its solver is
// sequential: it visits islands in the order of the world's body list, the
// bodies of an island in a depth-first search over each body's contact
// list, and the contacts in that order, so two worlds holding the same
// bodies at the same poses solve them in different orders, and to
// different bits, when they made their bodies and met their contacts in
// different orders. A server and its clients always have: a client builds
// a joining player when a snapshot names it, moves the bodies it does not
// simulate to where snapshots put them, and meets contacts at other
// moments. The same past decides which fixture of a new contact is A, the
// one whose broad-phase proxy has the lower ID, and the IDs come from a
// pool whose order is the tree's whole history; the solver's arithmetic is
// not symmetric in A and B.
//
// canonicalize takes that history out before every step: the body list is
// put in slot order, a contact between two fixtures of one shape type is
// turned so that A is the fixture that comes first by body slot, fixture
// and child (a contact between two shape types is already ordered by
// box2d's registry), and the world's contact list and every body's contact
// list are sorted by that key. What the solver then does depends only on
// which contacts exist, and a contact that touches exists on every end that
// holds its two bodies where they are (Step finds new pairs before each
// step). Contacts box2d makes in the middle of a step, for a
// time-of-impact sub-step, are used in the order it made them.

// fixtureKey names one child of one fixture: where its body stands in slot
// order, the fixture's place among its body's fixtures, and the child.
type fixtureKey [3]int32

func fixtureKeyCmp(a, b fixtureKey) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// contactRank is a contact with the key it sorts by.
type contactRank struct {
	a, b fixtureKey
	c    box2d.B2ContactInterface
}

func contactRankCmp(x, y contactRank) int {
	if c := fixtureKeyCmp(x.a, y.a); c != 0 {
		return c
	}
	return fixtureKeyCmp(x.b, y.b)
}

// canonicalize reorders w's box2d lists as described above. Once its
// scratch has grown to the world's contact count it allocates nothing.
func (w *World) canonicalize() {
	var prev *box2d.B2Body
	for i, r := range w.order {
		r.rank, r.tail = int32(i), nil
		b := r.b
		b.M_prev, b.M_next = prev, nil
		if prev == nil {
			w.b2.M_bodyList = b
		} else {
			prev.M_next = b
		}
		prev = b
		b.M_contactList = nil // rebuilt below, in contact order
	}

	cs := w.contacts[:0]
	for c := w.b2.M_contactManager.M_contactList; c != nil; c = c.GetNext() {
		ka := w.fixtureKey(c.GetFixtureA(), c.GetChildIndexA())
		kb := w.fixtureKey(c.GetFixtureB(), c.GetChildIndexB())
		if fixtureKeyCmp(ka, kb) > 0 && turnable(c) {
			turn(c)
			ka, kb = kb, ka
		}
		cs = append(cs, contactRank{a: ka, b: kb, c: c})
	}
	slices.SortFunc(cs, contactRankCmp)

	var none, last box2d.B2ContactInterface
	w.b2.M_contactManager.M_contactList = none
	for i := range cs {
		c := cs[i].c
		c.SetPrev(last)
		c.SetNext(none)
		if last == nil {
			w.b2.M_contactManager.M_contactList = c
		} else {
			last.SetNext(c)
		}
		last = c
		w.appendEdge(c.GetFixtureA().GetBody(), c.GetNodeA())
		w.appendEdge(c.GetFixtureB().GetBody(), c.GetNodeB())
		cs[i].c = nil // the scratch keeps no contact alive
	}
	w.contacts = cs[:0]
}

// fixtureKey returns the key of f's child child.
func (w *World) fixtureKey(f *box2d.B2Fixture, child int) fixtureKey {
	r, _ := f.M_body.M_userData.(*body)
	i, _ := f.M_userData.(int)
	if r == nil {
		return fixtureKey{-1, int32(i), int32(child)}
	}
	return fixtureKey{r.rank, int32(i), int32(child)}
}

// appendEdge puts e at the end of b's contact list.
func (w *World) appendEdge(b *box2d.B2Body, e *box2d.B2ContactEdge) {
	e.Prev, e.Next = nil, nil
	r, _ := b.M_userData.(*body)
	if r == nil {
		// Not one of w's bodies, so never cleared above: prepend, as box2d
		// would.
		e.Next = b.M_contactList
		if b.M_contactList != nil {
			b.M_contactList.Prev = e
		}
		b.M_contactList = e
		return
	}
	if r.tail == nil {
		b.M_contactList = e
	} else {
		e.Prev = r.tail
		r.tail.Next = e
	}
	r.tail = e
}

// turnable reports whether c's fixtures may change places: both of one
// shape type, so box2d evaluates them either way round, and neither a
// sensor, which the solver never sees.
func turnable(c box2d.B2ContactInterface) bool {
	fa, fb := c.GetFixtureA(), c.GetFixtureB()
	return fa.GetShape().GetType() == fb.GetShape().GetType() && !fa.IsSensor() && !fb.IsSensor()
}

// turn swaps which fixture of c is A. A contact is turned at most once, on
// the step after box2d made it, before any update has computed its
// manifold, so normally there is nothing else to change. A contact box2d
// already updated (one made for a time-of-impact sub-step) holds a
// manifold in the old A's frame: it is computed again, without the
// warm-starting impulses, which belonged to the old frame.
func turn(c box2d.B2ContactInterface) {
	fa, fb := c.GetFixtureA(), c.GetFixtureB()
	c.SetFixtureA(fb)
	c.SetFixtureB(fa)
	ia, ib := c.GetChildIndexA(), c.GetChildIndexB()
	c.SetChildIndexA(ib)
	c.SetChildIndexB(ia)
	na, nb := c.GetNodeA(), c.GetNodeB()
	c.SetNodeA(nb)
	c.SetNodeB(na)
	if c.GetManifold().PointCount > 0 || c.IsTouching() {
		refresh(c)
	}
}

// refresh computes c's manifold from where its bodies stand now, clears its
// warm-starting impulses and sets its touching flag from the manifold.
func refresh(c box2d.B2ContactInterface) {
	fa, fb := c.GetFixtureA(), c.GetFixtureB()
	m := c.GetManifold()
	c.Evaluate(m, fa.GetBody().GetTransform(), fb.GetBody().GetTransform())
	for i := range m.PointCount {
		m.Points[i].NormalImpulse = 0
		m.Points[i].TangentImpulse = 0
	}
	if m.PointCount > 0 {
		c.SetFlags(c.GetFlags() | box2d.B2Contact_Flag.E_touchingFlag)
	} else {
		c.SetFlags(c.GetFlags() &^ box2d.B2Contact_Flag.E_touchingFlag)
	}
}

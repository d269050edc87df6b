package physics

import (
	"fmt"
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
// put in slot order (the ground that joints to the world hold on to last), a contact between two fixtures of one shape type is
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
	d    *box2d.B2Contact // c's fields
}

func contactRankCmp(x, y contactRank) int {
	if c := fixtureKeyCmp(x.a, y.a); c != 0 {
		return c
	}
	return fixtureKeyCmp(x.b, y.b)
}

// contactData returns the fields every kind of box2d contact embeds.
// box2d's getters take a contact by value: through the interface each call
// copies the whole contact, which in a step's bookkeeping costs more than
// the bookkeeping.
func contactData(c box2d.B2ContactInterface) *box2d.B2Contact {
	// Two boxes first, the most common pair, by one comparison: a switch
	// over all the kinds searches among them.
	if c, ok := c.(*box2d.B2PolygonContact); ok {
		return &c.B2Contact
	}
	switch c := c.(type) {
	case *box2d.B2ChainAndPolygonContact:
		return &c.B2Contact
	case *box2d.B2PolygonAndCircleContact:
		return &c.B2Contact
	case *box2d.B2CircleContact:
		return &c.B2Contact
	case *box2d.B2ChainAndCircleContact:
		return &c.B2Contact
	case *box2d.B2EdgeAndPolygonContact:
		return &c.B2Contact
	case *box2d.B2EdgeAndCircleContact:
		return &c.B2Contact
	}
	panic(fmt.Sprintf("physics: unknown box2d contact %T", c))
}

// canonicalize reorders w's box2d lists as described above. Once its
// scratch has grown to the world's contact count it allocates nothing.
// Lists already in order are only read, and not even that while no body
// was added or removed and no contact made since it last ran.
func (w *World) canonicalize() {
	if !w.reordered && w.filter.made == 0 {
		return
	}
	// box2d puts each contact it makes first in its list, so with no body
	// added or removed all but the first made are still in order.
	made := w.filter.made
	if w.reordered {
		made = -1
	}
	w.reordered, w.filter.made = false, 0
	inOrder := w.rankBodies()
	cs := w.contacts[:0]
	defer func() {
		clear(cs) // the scratch keeps no contact alive
		w.contacts = cs[:0]
	}()
	var last contactRank
	for c := w.b2.M_contactManager.M_contactList; c != nil; {
		d := contactData(c)
		k := w.contactKey(d)
		if fixtureKeyCmp(k.a, k.b) > 0 && turnable(d) {
			turn(c, w.b2.M_contactManager.M_contactListener)
			k.a, k.b = k.b, k.a
		}
		if inOrder {
			inOrder = (last.d == nil || contactRankCmp(last, k) <= 0) &&
				w.nextEdge(d.M_fixtureA.M_body, d.M_nodeA) &&
				w.nextEdge(d.M_fixtureB.M_body, d.M_nodeB)
		}
		last = k
		k.c = c
		cs = append(cs, k)
		c = d.M_next
	}
	if w.listsEnd() && inOrder {
		return
	}
	w.sortContacts(cs, made)
	w.relink(cs)
}

// sortContacts sorts cs. When made is not negative and all of cs but its
// first made are in order, it sorts those few and merges them in. No two
// contacts have the same key, so either way gives the one order.
func (w *World) sortContacts(cs []contactRank, made int) {
	if made < 0 || made >= len(cs) || !slices.IsSortedFunc(cs[made:], contactRankCmp) {
		slices.SortFunc(cs, contactRankCmp)
		return
	}
	head := append(w.madeRanks[:0], cs[:made]...)
	slices.SortFunc(head, contactRankCmp)
	// Merged from the front into cs: the place written is never past the
	// next of the rest still to be read.
	i, j := 0, made
	for k := range cs {
		if i < len(head) && (j == len(cs) || contactRankCmp(head[i], cs[j]) < 0) {
			cs[k] = head[i]
			i++
		} else {
			cs[k] = cs[j]
			j++
		}
	}
	clear(head)
	w.madeRanks = head[:0]
}

// contactKey returns c's key as its fixtures stand, with d set to c.
func (w *World) contactKey(c *box2d.B2Contact) contactRank {
	return contactRank{
		a: w.fixtureKey(c.M_fixtureA, c.M_indexA),
		b: w.fixtureKey(c.M_fixtureB, c.M_indexB),
		d: c,
	}
}

// rankBodies gives each body its place in slot order and reports whether
// box2d's body list is in that order already.
func (w *World) rankBodies() bool {
	inOrder := true
	b := w.b2.M_bodyList
	for i, r := range w.order {
		r.rank, r.tail = int32(i), nil
		if inOrder && b != r.b {
			inOrder = false
		}
		if inOrder {
			b = b.M_next
		}
	}
	if w.ground != nil {
		inOrder = inOrder && b == w.ground
		if inOrder {
			b = b.M_next
		}
	}
	return inOrder && b == nil
}

// listsEnd reports whether every body's contact list ends at the last edge
// nextEdge saw in it (or is empty if it saw none), and clears the tails.
func (w *World) listsEnd() bool {
	ok := true
	for _, r := range w.order {
		if ok {
			if r.tail == nil {
				ok = r.b.M_contactList == nil
			} else {
				ok = r.tail.Next == nil
			}
		}
		r.tail = nil
	}
	return ok
}

// nextEdge reports whether e follows, in b's contact list, the edge
// nextEdge last saw there (or heads the list), and moves b's tail to e.
func (w *World) nextEdge(b *box2d.B2Body, e *box2d.B2ContactEdge) bool {
	r, _ := b.M_userData.(*body)
	if r == nil {
		return false
	}
	want := b.M_contactList
	if r.tail != nil {
		want = r.tail.Next
	}
	r.tail = e
	return want == e
}

// relink puts the body list in slot order and the world's contact list and
// every body's contact list in the order of cs.
func (w *World) relink(cs []contactRank) {
	var prev *box2d.B2Body
	for _, r := range w.order {
		r.tail = nil
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
	if g := w.ground; g != nil {
		// The joints' anchor in the world goes last: it has no fixtures,
		// so no contacts, and no place in slot order.
		g.M_prev, g.M_next = prev, nil
		if prev == nil {
			w.b2.M_bodyList = g
		} else {
			prev.M_next = g
		}
	}

	var none box2d.B2ContactInterface
	var last *box2d.B2Contact
	w.b2.M_contactManager.M_contactList = none
	for i := range cs {
		c, d := cs[i].c, cs[i].d
		d.M_next = none
		if last == nil {
			d.M_prev = none
			w.b2.M_contactManager.M_contactList = c
		} else {
			d.M_prev = cs[i-1].c
			last.M_next = c
		}
		last = d
		w.appendEdge(d.M_fixtureA.M_body, d.M_nodeA)
		w.appendEdge(d.M_fixtureB.M_body, d.M_nodeB)
	}
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
func turnable(c *box2d.B2Contact) bool {
	fa, fb := c.M_fixtureA, c.M_fixtureB
	return fa.M_shape.GetType() == fb.M_shape.GetType() && !fa.M_isSensor && !fb.M_isSensor
}

// turn swaps which fixture of c is A. A contact is turned at most once, on
// the step after box2d made it, before any update has computed its
// manifold, so normally there is nothing else to change. A contact box2d
// already updated (one made for a time-of-impact sub-step) holds a
// manifold in the old A's frame: it is computed again, without the
// warm-starting impulses, which belonged to the old frame.
func turn(c box2d.B2ContactInterface, l box2d.B2ContactListenerInterface) {
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
		refresh(c, l)
	}
}

// refresh computes c's manifold from where its bodies stand now, clears its
// warm-starting impulses and sets its touching flag from the manifold,
// telling l (when not nil) when that begins or ends a touch, as box2d's
// own update would.
func refresh(c box2d.B2ContactInterface, l box2d.B2ContactListenerInterface) {
	fa, fb := c.GetFixtureA(), c.GetFixtureB()
	m := c.GetManifold()
	c.Evaluate(m, fa.GetBody().GetTransform(), fb.GetBody().GetTransform())
	for i := range m.PointCount {
		m.Points[i].NormalImpulse = 0
		m.Points[i].TangentImpulse = 0
	}
	was := c.IsTouching()
	if m.PointCount > 0 {
		c.SetFlags(c.GetFlags() | box2d.B2Contact_Flag.E_touchingFlag)
	} else {
		c.SetFlags(c.GetFlags() &^ box2d.B2Contact_Flag.E_touchingFlag)
	}
	switch now := m.PointCount > 0; {
	case l == nil || now == was:
	case now:
		l.BeginContact(c)
	default:
		l.EndContact(c)
	}
}

package physics

import (
	"fmt"
	"math"
	"testing"

	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// inCanonicalOrder reports how w's box2d lists differ from the order
// canonicalize gives them, worked out from nothing: the body list in slot
// order (with the joints' ground last), every body's joint list by the
// entities its joints join, every turnable contact with its lesser fixture as A, the contact
// list sorted by key, and every body's contact list in contact-list order.
func inCanonicalOrder(w *World) error {
	rank := map[*box2d.B2Body]int32{}
	b := w.b2.M_bodyList
	for i, r := range w.order {
		if b != r.b {
			return fmt.Errorf("body %d of the list is not %v", i, r.id)
		}
		rank[b] = int32(i)
		b = b.M_next
	}
	if w.ground != nil {
		if b != w.ground {
			return fmt.Errorf("the joints' ground is not last in the body list")
		}
		b = b.M_next
	}
	if b != nil {
		return fmt.Errorf("the body list holds more than the world's bodies")
	}
	for _, r := range w.order {
		for e := r.b.M_jointList; e != nil && e.Next != nil; e = e.Next {
			if edgeCmp(e, e.Next) >= 0 {
				return fmt.Errorf("the joint list of %v is out of order", r.id)
			}
		}
	}
	key := func(f *box2d.B2Fixture, child int) fixtureKey {
		return fixtureKey{rank[f.M_body], int32(f.M_userData.(int)), int32(child)}
	}
	at := map[box2d.B2ContactInterface]int{}
	var last contactRank
	n := 0
	for c := w.b2.M_contactManager.M_contactList; c != nil; c = c.GetNext() {
		d := contactData(c)
		k := contactRank{a: key(d.M_fixtureA, d.M_indexA), b: key(d.M_fixtureB, d.M_indexB), d: d}
		if fixtureKeyCmp(k.a, k.b) > 0 && turnable(d) {
			return fmt.Errorf("contact %d is not turned", n)
		}
		if n > 0 && contactRankCmp(last, k) >= 0 {
			return fmt.Errorf("contact %d is out of order", n)
		}
		at[c], last = n, k
		n++
	}
	for _, r := range w.order {
		prev := -1
		for e := r.b.M_contactList; e != nil; e = e.Next {
			i, ok := at[e.Contact]
			if !ok || i <= prev {
				return fmt.Errorf("the contact list of %v is out of order", r.id)
			}
			prev = i
		}
	}
	return nil
}

// TestCanonicalizeSkipsOnlyWhatIsInOrder drops a crowd of boxes and
// circles onto a floor, removing some and adding others on the way, so
// contacts are made and ended in nearly every step. Whenever canonicalize
// would skip its work (no contact made, no body added or removed since it
// last ran), the lists must already be in canonical order; and after it
// runs they always are.
func TestCanonicalizeSkipsOnlyWhatIsInOrder(t *testing.T) {
	w, s := New(Config{GravityY: -10, Quantize: wireRound}), newStore()
	addFloor(t, w, s, eid(1))
	for i := range uint32(40) {
		sh := box(0.5, 0.5)
		if i%2 == 1 {
			sh = circle(0.25)
		}
		p := add(t, w, s, eid(10+i), def(entity.Dynamic, sh), float64(i%8)*0.45-1.6, 0.4+float64(i/8)*0.6)
		p.rb.VX = float64(int(i%5) - 2)
	}
	skipped, ran := 0, 0
	for tick := range 400 {
		switch tick {
		case 60:
			for i := range uint32(5) {
				w.Remove(eid(10 + 3*i))
				delete(s.poses, eid(10+3*i))
			}
		case 90:
			for i := range uint32(4) {
				add(t, w, s, eid(5+i), def(entity.Dynamic, box(0.4, 0.4)), float64(i)-1.5, 4)
			}
		}
		if !w.reordered && w.filter.made == 0 {
			skipped++
			if err := inCanonicalOrder(w); err != nil {
				t.Fatalf("tick %d: canonicalize would skip, but %v", tick, err)
			}
		} else {
			ran++
		}
		w.canonicalize()
		if err := inCanonicalOrder(w); err != nil {
			t.Fatalf("tick %d: after canonicalize, %v", tick, err)
		}
		w.Step(s)
	}
	t.Logf("%d steps found the lists in order without reading them, %d read them", skipped, ran)
	if skipped == 0 || ran < 10 {
		t.Fatalf("%d skipped, %d ran: the test proves nothing", skipped, ran)
	}
}

// TestASettledSleeperStillTakesAChange lets a box fall asleep on a floor,
// where Step leaves it as it finds it, then changes its components by a
// hair, and then to a NaN: each change is taken and rounded, or repaired,
// by the next step as if the box had never been at rest.
func TestASettledSleeperStillTakesAChange(t *testing.T) {
	w, s := New(Config{GravityY: -10, Quantize: wireRound}), newStore()
	addFloor(t, w, s, eid(1))
	p := add(t, w, s, eid(2), def(entity.Dynamic, box(1, 1)), 0.3, 0.5)
	steps(w, s, 4*64)
	if p.rb.Awake {
		t.Fatal("the box is still awake after 4 s")
	}
	r := w.byID[eid(2)]
	if !r.fixed {
		t.Fatal("the box at rest is not a fixed point of Step: the test proves nothing")
	}
	rested := *p

	p.t.X += 0.0004 // less than the millimetre wireRound keeps
	w.Step(s)
	want := rested
	if *p != want || r.b.GetPosition().X != want.t.X {
		t.Fatalf("moved by 0.4 mm: components %+v, body at x = %v; want %+v", *p, r.b.GetPosition().X, want)
	}

	p.t.X += 0.0016
	w.Step(s)
	want.t.X = rested.t.X + 0.002
	wireRound(&want.t, &want.rb)
	if *p != want || r.b.GetPosition().X != want.t.X {
		t.Fatalf("moved by 2 mm: components %+v, body at x = %v; want %+v", *p, r.b.GetPosition().X, want)
	}

	p.t.Y = math.NaN()
	w.Step(s)
	if *p != want {
		t.Fatalf("a NaN was not repaired: %+v, want %+v", *p, want)
	}
}

package physics

import (
	"math"
	"testing"

	"vkm/internal/entity"
)

// filtered returns a box shape in categories cat colliding with mask, in
// group.
func filtered(w, h float64, cat, mask uint16, group int16) entity.Shape {
	s := box(w, h)
	s.Category, s.Mask, s.Group = cat, mask, group
	return s
}

// everTouch steps w n times and reports whether a and b ever touched or
// had a contact between them at all.
func everTouch(w *World, s *store, a, b entity.ID, n int) (touched, contact bool) {
	for range n {
		w.Step(s)
		w.Touching(a, func(id entity.ID) bool {
			touched = touched || id == b
			return true
		})
		for e := w.byID[a].b.M_contactList; e != nil; e = e.Next {
			if e.Other == w.byID[b].b {
				contact = true
			}
		}
	}
	return touched, contact
}

// TestAFilteredPairNeverTouches drops a box onto another, and onto a
// floor, under each rule of box2d's filter: the pairs the filter keeps
// apart never touch and never even have a contact; the rest land.
func TestAFilteredPairNeverTouches(t *testing.T) {
	const player, crate, ghost = 1 << 1, 1 << 2, 1 << 3
	for _, tc := range []struct {
		name      string
		low, high entity.Shape
		collide   bool
	}{
		{"no filter", box(1, 1), box(1, 1), true},
		{"masks exclude each other", filtered(1, 1, player, ^uint16(player), 0), filtered(1, 1, player, ^uint16(player), 0), false},
		{"one mask excludes", filtered(1, 1, crate, 0, 0), filtered(1, 1, ghost, ^uint16(crate), 0), false},
		{"masks include", filtered(1, 1, crate, player, 0), filtered(1, 1, player, crate, 0), true},
		{"same negative group", filtered(1, 1, crate, 0, -3), filtered(1, 1, crate, 0, -3), false},
		{"same positive group beats the masks", filtered(1, 1, crate, player, 2), filtered(1, 1, ghost, player, 2), true},
		{"different groups fall back on the masks", filtered(1, 1, crate, 0, -1), filtered(1, 1, crate, 0, -2), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, s := gravityWorld(), newStore()
			add(t, w, s, eid(1), def(entity.Static, box(40, 1)), 0, -0.5)
			add(t, w, s, eid(2), def(entity.Static, tc.low), 0, 0.5)
			p := add(t, w, s, eid(3), def(entity.Dynamic, tc.high), 0.2, 3)
			touched, contact := everTouch(w, s, eid(3), eid(2), 200)
			t.Logf("%s: touched %v, had a contact %v, the dropped box rests at y %.3f", tc.name, touched, contact, p.t.Y)
			if touched != tc.collide {
				t.Errorf("touched %v, want %v", touched, tc.collide)
			}
			if !tc.collide && contact {
				t.Error("a pair the filter keeps apart had a contact")
			}
			if want := 1.5 + 2*skin - slop; tc.collide && math.Abs(p.t.Y-want) > 0.01 {
				t.Errorf("the box that collides rests at y = %g, want %g on the low box", p.t.Y, want)
			}
		})
	}
}

// TestSetFilterAtRunTime has a crate resting on a platform stop colliding
// with it: it falls through, lands on the floor, and its filter reads back.
func TestSetFilterAtRunTime(t *testing.T) {
	w, s := gravityWorld(), newStore()
	addFloor(t, w, s, eid(1))
	add(t, w, s, eid(2), def(entity.Static, filtered(4, 0.2, 1<<2, 0, 0)), 0, 2)
	p := add(t, w, s, eid(3), def(entity.Dynamic, box(1, 1)), 0, 2.7)
	steps(w, s, 200)
	if p.rb.Awake || p.t.Y < 2.5 {
		t.Fatalf("the crate does not rest on the platform: %+v %+v", p.t, p.rb)
	}
	if err := w.SetFilter(eid(3), 0, Filter{Mask: ^uint16(1 << 2)}); err != nil {
		t.Fatal(err)
	}
	steps(w, s, 100)
	if math.Abs(p.t.Y-(0.5+skin-slop)) > 0.01 {
		t.Errorf("after its mask left out the platform the crate is at y = %g, want on the floor", p.t.Y)
	}
	if f, ok := w.ShapeFilter(eid(3), 0); !ok || f.Category != 1 || f.Mask != ^uint16(1<<2) || f.Group != 0 {
		t.Errorf("ShapeFilter = %+v %v", f, ok)
	}
	if err := w.SetFilter(eid(3), 1, Filter{}); err == nil {
		t.Error("SetFilter of a shape the body lacks succeeded")
	}
	if err := w.SetFilter(eid(9), 0, Filter{}); err == nil {
		t.Error("SetFilter of a body that does not exist succeeded")
	}
}

// oneWayPlatform is a 4 m static one-way platform whose top is y = 3,
// turned by angle.
func oneWayPlatform(tb testing.TB, w *World, s *store, angle float64) {
	tb.Helper()
	sh := box(4, 0.3)
	sh.OneWay = true
	p := add(tb, w, s, eid(2), def(entity.Static, sh), 0, 2.85)
	if angle != 0 {
		w.Remove(eid(2))
		p.t.Angle = angle
		if err := w.Add(eid(2), def(entity.Static, sh), p.t, p.rb); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestOneWayPlatform throws a box up through a one-way platform: it passes
// through from below, falls back onto the top and rests there; a box
// dropped from above lands on it; a box thrown at its side passes; and a
// platform turned upside down lets through from above and holds from
// below.
func TestOneWayPlatform(t *testing.T) {
	t.Run("up through and land", func(t *testing.T) {
		w, s := gravityWorld(), newStore()
		addFloor(t, w, s, eid(1))
		oneWayPlatform(t, w, s, 0)
		p := add(t, w, s, eid(3), def(entity.Dynamic, box(0.5, 0.5)), 0.5, 0.26)
		p.rb.VY = 12
		top := 0.0
		for range 200 {
			w.Step(s)
			top = math.Max(top, p.t.Y)
		}
		t.Logf("thrown up at 12 m/s from the floor: rose to %.2f m, rests at %.4f", top, p.t.Y)
		if top < 3.5 {
			t.Errorf("rose only to %g: the platform stopped it from below", top)
		}
		if want := 3 + 0.25 + 2*skin - slop; math.Abs(p.t.Y-want) > 0.01 || p.rb.Awake {
			t.Errorf("rests at y = %g (awake %v), want %g on the platform", p.t.Y, p.rb.Awake, want)
		}
	})
	t.Run("dropped from above", func(t *testing.T) {
		w, s := gravityWorld(), newStore()
		addFloor(t, w, s, eid(1))
		oneWayPlatform(t, w, s, 0)
		p := add(t, w, s, eid(3), def(entity.Dynamic, circle(0.3)), -1, 6)
		steps(w, s, 200)
		if want := 3 + 0.3 + skin - slop; math.Abs(p.t.Y-want) > 0.01 {
			t.Errorf("rests at y = %g, want %g on the platform", p.t.Y, want)
		}
	})
	t.Run("from the side", func(t *testing.T) {
		w, s := New(Config{}), newStore()
		oneWayPlatform(t, w, s, 0)
		p := add(t, w, s, eid(3), def(entity.Dynamic, box(0.2, 0.2)), -4, 2.85)
		p.rb.VX = 5
		steps(w, s, 128)
		if p.t.X < 3 {
			t.Errorf("a box thrown at the platform's side stopped at x = %g", p.t.X)
		}
	})
	t.Run("upside down", func(t *testing.T) {
		w, s := gravityWorld(), newStore()
		addFloor(t, w, s, eid(1))
		oneWayPlatform(t, w, s, math.Pi)
		p := add(t, w, s, eid(3), def(entity.Dynamic, box(0.5, 0.5)), 0.5, 5)
		steps(w, s, 100)
		if p.t.Y > 1 {
			t.Errorf("a box dropped on a platform facing down stopped at y = %g", p.t.Y)
		}
		p.t.Y, p.rb.VY, p.rb.Awake = 0.26, 12, true
		top := 0.0
		for range 100 {
			w.Step(s)
			top = math.Max(top, p.t.Y)
		}
		if top > 2.71-0.25+0.05 {
			t.Errorf("thrown up into a platform facing down it rose to %g, want stopped under it", top)
		}
	})
}

// TestOneWayControllerFallsNotStands checks that a character rising up
// through a one-way platform is not grounded on it halfway, and is once it
// stands on top; and that a character whose mask leaves out a floor falls
// through it without being grounded.
func TestOneWayControllerFallsNotStands(t *testing.T) {
	w, s := gravityWorld(), newStore()
	addFloor(t, w, s, eid(1))
	oneWayPlatform(t, w, s, 0)
	ch := character(box(0.6, 1))
	id := eid(3)
	p := add(t, w, s, id, ch, 0.5, 2.4) // its head in the platform
	c := tuning()
	p.rb.VY = 8
	w.Step(s) // the first touch decides: it came from below
	w.UpdateController(id, &c, &p.rb)
	if c.Grounded {
		t.Error("grounded on a one-way platform it is passing up through")
	}
	for range 120 {
		w.UpdateController(id, &c, &p.rb)
		w.Step(s)
	}
	w.UpdateController(id, &c, &p.rb)
	if !c.Grounded || p.t.Y < 3 {
		t.Errorf("standing on the platform at y = %g: grounded %v, want true", p.t.Y, c.Grounded)
	}

	w2, s2 := gravityWorld(), newStore()
	add(t, w2, s2, eid(1), def(entity.Static, filtered(40, 1, 1<<3, 0, 0)), 0, -0.5)
	add(t, w2, s2, eid(4), def(entity.Static, box(40, 1)), 0, -5.5)
	gh := character(filtered(0.6, 1, 1<<1, ^uint16(1<<3), 0))
	q := add(t, w2, s2, id, gh, 0, 0.51)
	c2 := tuning()
	w2.UpdateController(id, &c2, &q.rb)
	if c2.Grounded {
		t.Error("grounded on a floor its mask leaves out")
	}
	steps(w2, s2, 100)
	if q.t.Y > -4 {
		t.Errorf("the character whose mask leaves out the floor is at y = %g, want through it", q.t.Y)
	}
}

// TestRejectsAOneWaySensor checks CheckShape's one-way rule.
func TestRejectsAOneWaySensor(t *testing.T) {
	s := box(1, 1)
	s.OneWay, s.Sensor = true, true
	if e := CheckShape(&s); e == nil || e.Key != "oneWay" {
		t.Errorf("CheckShape(one-way sensor) = %v, want a oneWay error", e)
	}
}

// TestOneWayReplaysExactly saves a world while a box is passing up
// through a one-way platform, and replays: the let-through decision is
// restored with the contact, so the replay hashes as the run did.
func TestOneWayReplaysExactly(t *testing.T) {
	w, s := New(Config{GravityY: -10, Quantize: wireRound}), newStore()
	addFloor(t, w, s, eid(1))
	oneWayPlatform(t, w, s, 0)
	for i := range uint32(6) {
		p := add(t, w, s, eid(3+i), def(entity.Dynamic, box(0.4, 0.4)), -1.5+0.6*float64(i), 0.21)
		p.rb.VY = 9 + float64(i)
	}
	steps(w, s, 22)
	passing := 0
	for c := w.b2.GetContactList(); c != nil; c = c.GetNext() {
		if letThrough(contactData(c)) {
			passing++
		}
	}
	var st State
	w.Save(&st)
	comps := snapshot(s)
	var first []uint64
	for range 60 {
		w.Step(s)
		first = append(first, w.Hash())
	}
	w.Restore(&st)
	putBack(s, comps)
	for i := range 60 {
		w.Step(s)
		if h := w.Hash(); h != first[i] {
			t.Fatalf("tick %d of the replay hashes %x, the run %x", i+1, h, first[i])
		}
	}
	t.Logf("saved with %d contacts passing through the platform; 60 ticks replayed exactly", passing)
	if passing == 0 {
		t.Error("no contact was passing through at the save: the test tests nothing")
	}
}

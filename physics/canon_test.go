package physics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"vkm/internal/entity"
)

// wireRound rounds a pose to the millimetre and a velocity to the centimetre a
// second, as a wire would.
func wireRound(t *entity.Transform, rb *entity.Rigidbody) {
	r := func(v, step float64) float64 { return math.Round(v/step) * step }
	t.X, t.Y, t.Angle = r(t.X, 0.001), r(t.Y, 0.001), r(t.Angle, 1e-5)
	rb.VX, rb.VY, rb.AngularVelocity = r(rb.VX, 0.01), r(rb.VY, 0.01), r(rb.AngularVelocity, 0.01)
}

// crateSlots are the slots of crates' bodies: a floor, two crates on it, a
// third across them and a pusher to their left.
var crateSlots = []uint32{1, 2, 3, 4, 5}

// crates adds crateSlots' bodies to w in the order given, each with its state
// in states when it has one, and at rest where the pile starts otherwise.
func crates(tb testing.TB, w *World, s *store, order []uint32, states map[uint32]pose) {
	tb.Helper()
	start := map[uint32][2]float64{1: {0, -0.5}, 2: {-0.55, 0.52}, 3: {0.55, 0.52}, 4: {0, 1.6}, 5: {-3, 0.52}}
	for _, slot := range order {
		d := def(entity.Dynamic, box(1, 1))
		if slot == 1 {
			d = def(entity.Static, box(40, 1))
		}
		p, ok := states[slot]
		if !ok {
			p = pose{t: entity.Transform{X: start[slot][0], Y: start[slot][1], Scale: 1}, rb: entity.Rigidbody{Awake: true}}
		}
		if err := w.Add(eid(slot), d, p.t, p.rb); err != nil {
			tb.Fatal(err)
		}
		s.poses[eid(slot)] = &p
	}
}

// TestAWorldBuiltFromAnotherStepsTheSameBits settles a pile in one world,
// builds a second world from nothing but the first one's rounded
// components, making its bodies in another order after making and
// removing others (so its body list, contact lists and broad-phase proxy
// IDs all differ), and then pushes the pile in both: every tick leaves
// every body with the same bits in both. This is a client that starts to
// simulate what a server's snapshot told it.
func TestAWorldBuiltFromAnotherStepsTheSameBits(t *testing.T) {
	a, sa := New(Config{GravityY: -10, Quantize: wireRound}), newStore()
	crates(t, a, sa, crateSlots, nil)
	for range 4 * 64 {
		a.Step(sa)
	}
	for _, slot := range crateSlots[1:] {
		if sa.poses[eid(slot)].rb.Awake {
			t.Fatalf("crate %d still awake after 4 s", slot)
		}
	}

	b, sb := New(Config{GravityY: -10, Quantize: wireRound}), newStore()
	for i := range uint32(6) {
		add(t, b, sb, eid(100+i), def(entity.Dynamic, circle(0.3)), float64(i), 5)
	}
	b.Step(sb)
	for i := range uint32(6) {
		b.Remove(eid(100 + i))
		delete(sb.poses, eid(100+i))
	}
	told := map[uint32]pose{}
	for _, slot := range crateSlots {
		told[slot] = *sa.poses[eid(slot)]
	}
	crates(t, b, sb, []uint32{5, 4, 1, 3, 2}, told)

	push := func(s *store) { s.poses[eid(5)].rb.VX, s.poses[eid(5)].rb.Awake = 3, true }
	for tick := range 2 * 64 {
		if tick < 64 {
			push(sa)
			push(sb)
		}
		a.Step(sa)
		b.Step(sb)
		for _, slot := range crateSlots {
			if pa, pb := *sa.poses[eid(slot)], *sb.poses[eid(slot)]; pa != pb {
				t.Fatalf("tick %d, body %d: %+v in the world that settled, %+v in the one built from it", tick, slot, pa, pb)
			}
		}
	}
	if x := sa.poses[eid(4)].t.X; x < 0.5 {
		t.Fatalf("the top crate is at x = %v: the push moved nothing, the test proves nothing", x)
	}
}

// TestANewPairDoesNotWakeASleeper brings a body within a sleeping body's
// fattened bounds without touching it: the sleeper stays asleep. Touching
// it wakes it.
func TestANewPairDoesNotWakeASleeper(t *testing.T) {
	w, s := New(Config{}), newStore()
	sleeper := add(t, w, s, eid(1), def(entity.Dynamic, box(1, 1)), 0, 0)
	sleeper.rb.Awake = false
	mover := add(t, w, s, eid(2), def(entity.Dynamic, box(1, 1)), 5, 0)
	w.Step(s)

	mover.t.X = 1.05 // 5 cm off
	w.Step(s)
	if n := w.byID[eid(1)].b.GetContactList(); n == nil {
		t.Fatal("no contact between the two: the test proves nothing")
	}
	if sleeper.rb.Awake || w.byID[eid(1)].b.IsAwake() {
		t.Fatal("a body 5 cm away woke the sleeper")
	}

	mover.rb.VX = -2
	steps(w, s, 8)
	if !w.byID[eid(1)].b.IsAwake() {
		t.Fatal("touching did not wake the sleeper")
	}
}

// TestQuantizeRoundsWhatAStepLeaves checks that with Config.Quantize set a
// falling body's components and the body itself hold the rounded values.
func TestQuantizeRoundsWhatAStepLeaves(t *testing.T) {
	w, s := New(Config{GravityY: -10, Quantize: wireRound}), newStore()
	p := add(t, w, s, eid(1), def(entity.Dynamic, box(1, 1)), 0.1234567, 3)
	p.rb.AngularVelocity = 0.123456
	steps(w, s, 5)
	want := *p
	wireRound(&want.t, &want.rb)
	if *p != want {
		t.Fatalf("components %+v, rounded %+v", *p, want)
	}
	b := w.byID[eid(1)].b
	if pos, v := b.GetPosition(), b.GetLinearVelocity(); pos.X != p.t.X || pos.Y != p.t.Y ||
		b.GetAngle() != p.t.Angle || v.X != p.rb.VX || v.Y != p.rb.VY || b.GetAngularVelocity() != p.rb.AngularVelocity {
		t.Fatalf("the body holds pos %+v angle %v v %+v w %v; the components %+v", pos, b.GetAngle(), v, b.GetAngularVelocity(), *p)
	}
}

// TestAdoptKeepsWhatTheStepSolved pushes a body this end does not simulate:
// box2d moves it, writeback does not, and Adopt takes what box2d solved.
func TestAdoptKeepsWhatTheStepSolved(t *testing.T) {
	w, s := New(Config{Quantize: wireRound}), newStore()
	add(t, w, s, eid(1), def(entity.Dynamic, box(1, 1)), 0, 0).rb.VX = 4
	crate := add(t, w, s, eid(2), def(entity.Dynamic, box(1, 1)), 1.1, 0)
	s.off[eid(2)] = true
	before := *crate
	steps(w, s, 4)
	if *crate != before {
		t.Fatalf("a body this end does not simulate was written back: %+v", *crate)
	}
	if !w.Adopt(eid(2), &crate.t, &crate.rb) {
		t.Fatal("Adopt refused a dynamic body")
	}
	if crate.rb.VX <= 0 || crate.t.X <= before.t.X {
		t.Fatalf("adopted %+v: the push is not in it", *crate)
	}
	want := *crate
	wireRound(&want.t, &want.rb)
	if *crate != want {
		t.Fatalf("adopted %+v, not rounded as Step rounds", *crate)
	}
	if w.Adopt(eid(9), &crate.t, &crate.rb) {
		t.Fatal("Adopt took an unknown body")
	}
}

// TestSortContactsMergesTheMade: sorting a list whose tail is in order by
// sorting its head and merging gives what a whole sort gives, and a tail
// out of order is sorted whole.
func TestSortContactsMergesTheMade(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	w := &World{}
	for trial := range 500 {
		n := rng.IntN(40)
		keys := make([]contactRank, n)
		for i := range keys {
			keys[i] = contactRank{a: fixtureKey{int32(rng.IntN(9)), int32(rng.IntN(2)), 0}, b: fixtureKey{int32(i), 0, 0}}
		}
		made := rng.IntN(n + 1)
		if trial%5 != 0 {
			slices.SortFunc(keys[made:], contactRankCmp)
		}
		want := slices.Clone(keys)
		slices.SortFunc(want, contactRankCmp)
		w.sortContacts(keys, made)
		if !slices.Equal(keys, want) {
			t.Fatalf("trial %d (%d contacts, %d made): %v, want %v", trial, n, made, keys, want)
		}
	}
}

package physics

import (
	"math/rand/v2"
	"testing"

	"vkm/internal/entity"
)

// busyWorld is a hall of falling, bouncing and piling bodies from seed,
// some of them bullets, with a chain of links hanging from the roof and a
// few pairs tied by springs: contacts begin and end in nearly every step,
// and joints carry impulses through all of it.
func busyWorld(tb testing.TB, seed uint64, n int) (*World, *store) {
	tb.Helper()
	w, s := New(Config{GravityY: -10, Quantize: wireRound}), newStore()
	rng := rand.New(rand.NewPCG(seed, 7))
	add(tb, w, s, eid(1), def(entity.Static, chain(entity.Vec2{X: -12, Y: 20}, entity.Vec2{X: -12, Y: 0}, entity.Vec2{X: 12, Y: 0}, entity.Vec2{X: 12, Y: 20})), 0, 0)
	for i := range uint32(n) {
		shape := box(0.3+rng.Float64()*0.6, 0.3+rng.Float64()*0.6)
		if i%3 == 1 {
			shape = circle(0.2 + rng.Float64()*0.4)
		}
		d := def(entity.Dynamic, shape)
		d.Bullet = i%11 == 5
		p := add(tb, w, s, eid(10+i), d, rng.Float64()*20-10, 1+rng.Float64()*15)
		p.rb.VX, p.rb.VY = rng.Float64()*10-5, rng.Float64()*10-5
		if d.Bullet {
			p.rb.VX *= 12
		}
	}
	for i := range uint32(5) {
		add(tb, w, s, eid(100+i), def(entity.Dynamic, box(0.15, 0.8)), 6, 15-0.9*float64(i))
		other, anchor := eid(99+i), entity.Vec2{Y: -0.4}
		if i == 0 {
			other, anchor = entity.None, entity.Vec2{X: 6, Y: 15.4}
		}
		addJoint(tb, w, eid(100+i), other, entity.JointDef{Kind: entity.Revolute, AnchorA: entity.Vec2{Y: 0.4}, AnchorB: anchor})
	}
	for i := uint32(0); i+1 < uint32(n); i += 7 {
		addJoint(tb, w, eid(10+i), eid(11+i), entity.JointDef{Kind: entity.Distance, Frequency: 3, DampingRatio: 0.3})
	}
	return w, s
}

// TestRestoreRepeatsABusyWorld saves a busy world in mid-fall, runs it on
// (contacts made and ended, bodies falling asleep and woken, bullets
// stepping through their impacts), and restores it twice: each replay
// hashes as the run did after every tick, for three seeds.
func TestRestoreRepeatsABusyWorld(t *testing.T) {
	const lead, run = 90, 40
	for _, seed := range []uint64{1, 2, 3} {
		w, s := busyWorld(t, seed, 60)
		steps(w, s, lead)
		var st State
		w.Save(&st)
		comps := snapshot(s)
		contacts := w.b2.GetContactCount()
		var first []uint64
		for range run {
			w.Step(s)
			first = append(first, w.Hash())
		}
		changed := contacts != w.b2.GetContactCount()
		for pass := range 2 {
			w.Restore(&st)
			putBack(s, comps)
			for i := range run {
				w.Step(s)
				if h := w.Hash(); h != first[i] {
					t.Fatalf("seed %d, replay %d: tick %d hashes %x, the run %x", seed, pass+1, lead+i+1, h, first[i])
				}
			}
		}
		t.Logf("seed %d: 60 bodies, %d joints, %d contacts at the save (count changed over the run: %v), %d moving; two replays of %d ticks exact",
			seed, w.JointCount(), contacts, changed, moving(w), run)
	}
}

// TestRestoreUndoesWhatChangedAJoint changes a joint's motor after a save
// and restores: the replay runs on the motor as it was.
func TestRestoreUndoesWhatChangedAJoint(t *testing.T) {
	w, s, id := jointWorld(t, jointScenes[0])
	steps(w, s, 30)
	var st State
	w.Save(&st)
	comps := snapshot(s)
	var first []uint64
	for range 10 {
		w.Step(s)
		first = append(first, w.Hash())
	}
	d, _ := w.Joint(id)
	d.MotorSpeed, d.Upper = -3, 0.9
	if err := w.SetJoint(id, &d); err != nil {
		t.Fatal(err)
	}
	w.Restore(&st)
	putBack(s, comps)
	for i := range 10 {
		w.Step(s)
		if h := w.Hash(); h != first[i] {
			t.Fatalf("tick %d after the restore hashes %x, the run %x", i+1, h, first[i])
		}
	}
	if got, _ := w.Joint(id); got.MotorSpeed != 1.5 || got.Upper != 0.3 {
		t.Errorf("the restored joint runs at %g rad/s up to %g, want 1.5 up to 0.3", got.MotorSpeed, got.Upper)
	}
}

// TestRestoreAfterTheWorldChanged restores a state into a world that has
// since lost a body and a joint and gained others: what both hold goes
// back, the rest is left alone, and nothing breaks.
func TestRestoreAfterTheWorldChanged(t *testing.T) {
	w, s := busyWorld(t, 4, 30)
	steps(w, s, 60)
	var st State
	w.Save(&st)
	before := *s.poses[eid(12)]
	steps(w, s, 20)
	w.Remove(eid(11))  // a body, with its spring to 10
	w.Remove(eid(102)) // a link: both its joints go
	w.RemoveJoint(1)   // the chain's pin to the roof
	add(t, w, s, eid(200), def(entity.Dynamic, box(1, 1)), 0, 10)
	addJoint(t, w, eid(200), eid(12), entity.JointDef{Kind: entity.Rope, Length: 5})
	added := *s.poses[eid(200)]
	w.Restore(&st)
	b := w.byID[eid(12)].b
	if p := b.M_xf.P; p.X != before.t.X || p.Y != before.t.Y {
		t.Errorf("body 12 restored to (%g, %g), want where it was saved (%g, %g)", p.X, p.Y, before.t.X, before.t.Y)
	}
	if p := w.byID[eid(200)].b.M_xf.P; p.X != added.t.X || p.Y != added.t.Y {
		t.Errorf("a body added after the save moved to (%g, %g)", p.X, p.Y)
	}
	if w.Has(eid(11)) || w.JointCount() != 10-1-2-1+1 {
		t.Errorf("restore brought back what was removed: body 11 %v, %d joints", w.Has(eid(11)), w.JointCount())
	}
	putBack(s, map[entity.ID]pose{eid(12): before})
	steps(w, s, 60)
	w.canonicalize()
	if err := inCanonicalOrder(w); err != nil {
		t.Error(err)
	}
}

// TestSaveAllocatesNothingOnceGrown saves a busy world every tick: after
// the first saves have grown the State, a save allocates nothing.
func TestSaveAllocatesNothingOnceGrown(t *testing.T) {
	w, s := busyWorld(t, 5, 40)
	var st State
	for range 30 {
		w.Step(s)
		w.Save(&st)
	}
	if a := testing.AllocsPerRun(20, func() { w.Save(&st) }); a != 0 {
		t.Errorf("Save allocates %.1f times a call", a)
	}
	var empty State
	w.Restore(&empty) // never saved: nothing happens
	if empty.Saved() || !st.Saved() {
		t.Error("Saved does not say which states hold a save")
	}
}

// BenchmarkSaveRestore measures a save, the cost a client pays on every
// tick it predicts, and a restore, paid at each correction, for a busy
// world of 60 bodies with 13 joints.
func BenchmarkSaveRestore(b *testing.B) {
	w, s := busyWorld(b, 6, 60)
	steps(w, s, 90)
	var st State
	b.Run("save", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			w.Save(&st)
		}
	})
	b.Run("restore", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			w.Restore(&st)
		}
	})
}

// TestGatherTakesOnlyWhatIsSimulated gathers components into the bodies
// an end simulates and leaves the others where they stand.
func TestGatherTakesOnlyWhatIsSimulated(t *testing.T) {
	w, s := gravityWorld(), newStore()
	a := add(t, w, s, eid(1), def(entity.Dynamic, box(1, 1)), 0, 5)
	b := add(t, w, s, eid(2), def(entity.Dynamic, box(1, 1)), 3, 5)
	s.off[eid(2)] = true
	a.t.X, b.t.X = 1, 4
	w.Gather(s)
	if x := w.byID[eid(1)].b.M_xf.P.X; x != 1 {
		t.Errorf("the simulated body is at x = %g, want its component's 1", x)
	}
	if x := w.byID[eid(2)].b.M_xf.P.X; x != 3 {
		t.Errorf("the body this end does not simulate moved to x = %g", x)
	}
}

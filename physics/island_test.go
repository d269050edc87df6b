package physics

import (
	"slices"
	"testing"

	"vkm/internal/entity"
)

// island collects what Island reports for id.
func island(w *World, id entity.ID) []entity.ID {
	var ids []entity.ID
	w.Island(id, collect(&ids))
	return ids
}

// pileWorld is a character (slot 1) resting on crate 7 resting on crate 4
// on a static floor (slot 2), and crate 9 resting on the floor alone, 5 m
// away, settled for a second.
func pileWorld(t *testing.T) (*World, *store) {
	t.Helper()
	w, s := gravityWorld(), newStore()
	addFloor(t, w, s, eid(2))
	add(t, w, s, eid(4), def(entity.Dynamic, box(1, 1)), 0, 0.5)
	add(t, w, s, eid(7), def(entity.Dynamic, box(1, 1)), 0, 1.5)
	add(t, w, s, eid(1), def(entity.Dynamic, box(0.6, 1)), 0, 2.5)
	add(t, w, s, eid(9), def(entity.Dynamic, box(1, 1)), 5, 0.5)
	steps(w, s, 64)
	return w, s
}

func TestIslandFollowsThePileNotTheFloor(t *testing.T) {
	w, _ := pileWorld(t)
	got := island(w, eid(1))
	// Found as 7 then 4; reported in slot order. The floor (2) is neither
	// reported nor searched through, so crate 9 on it is not joined.
	want := []entity.ID{eid(4), eid(7)}
	if !slices.Equal(got, want) {
		t.Fatalf("island of the character = %v, want %v", got, want)
	}
	if got := island(w, eid(9)); len(got) != 0 {
		t.Errorf("island of a crate on the floor alone = %v, want none", got)
	}
	if got := island(w, eid(4)); !slices.Equal(got, []entity.ID{eid(1), eid(7)}) {
		t.Errorf("island of the bottom crate = %v, want [1#1 7#1]", got)
	}
	if got := island(w, eid(2)); len(got) != 0 {
		t.Errorf("island of the floor = %v, want none: a floor joins nothing", got)
	}
	if got := island(w, eid(99)); len(got) != 0 {
		t.Errorf("island of an entity without a body = %v, want none", got)
	}
}

func TestIslandStopsWhenToldTo(t *testing.T) {
	w, _ := pileWorld(t)
	var got []entity.ID
	w.Island(eid(1), func(id entity.ID) bool {
		got = append(got, id)
		return false
	})
	if !slices.Equal(got, []entity.ID{eid(4)}) {
		t.Fatalf("got %v, want only the first, 4#1", got)
	}
}

func TestIslandIgnoresSensors(t *testing.T) {
	w, s := gravityWorld(), newStore()
	addFloor(t, w, s, eid(2))
	add(t, w, s, eid(1), def(entity.Dynamic, box(0.6, 1)), 0, 0.5)
	// A floating pickup overlapping the character, and a crate inside the
	// pickup: joined only if a sensor joined.
	pickup := box(2, 2)
	pickup.Sensor = true
	pd := def(entity.Dynamic, pickup)
	pd.GravityScale = 0
	add(t, w, s, eid(3), pd, 0.5, 1)
	add(t, w, s, eid(5), def(entity.Dynamic, box(0.5, 0.5)), 1.2, 0.25)
	steps(w, s, 4)

	var touching []entity.ID
	w.Touching(eid(1), collect(&touching))
	if !slices.Contains(touching, eid(3)) {
		t.Fatalf("setup: the pickup does not overlap the character (touching %v)", touching)
	}
	if got := island(w, eid(1)); len(got) != 0 {
		t.Errorf("island of the character = %v, want none: a sensor joins nothing", got)
	}
	if got := island(w, eid(3)); len(got) != 0 {
		t.Errorf("island of the pickup = %v, want none", got)
	}
}

func TestIslandDoesNotCrossKinematicBodies(t *testing.T) {
	w, s := gravityWorld(), newStore()
	add(t, w, s, eid(2), def(entity.Kinematic, box(10, 1)), 0, -0.5)
	add(t, w, s, eid(1), def(entity.Dynamic, box(0.6, 1)), 0, 0.5)
	add(t, w, s, eid(3), def(entity.Dynamic, box(1, 1)), 3, 0.5)
	steps(w, s, 32)

	var touching []entity.ID
	w.Touching(eid(1), collect(&touching))
	if !slices.Equal(touching, []entity.ID{eid(2)}) {
		t.Fatalf("setup: the character touches %v, want the platform 2#1", touching)
	}
	if got := island(w, eid(1)); len(got) != 0 {
		t.Errorf("island of a character on a platform = %v, want none", got)
	}
}

func TestIslandAllocatesNothingAfterWarmUp(t *testing.T) {
	w, _ := pileWorld(t)
	n := 0
	count := func(entity.ID) bool { n++; return true }
	w.Island(eid(1), count)
	allocs := testing.AllocsPerRun(100, func() { w.Island(eid(1), count) })
	if allocs != 0 {
		t.Errorf("Island allocates %v times a call, want 0", allocs)
	}
	// AllocsPerRun makes one call of its own before it counts.
	if n != 2*102 {
		t.Errorf("reported %d entities over 102 calls, want %d", n, 2*102)
	}
}

func TestIslandCallbackMayQueryAgain(t *testing.T) {
	w, _ := pileWorld(t)
	var outer, inner []entity.ID
	w.Island(eid(1), func(id entity.ID) bool {
		outer = append(outer, id)
		inner = append(inner, island(w, id)...)
		return true
	})
	if !slices.Equal(outer, []entity.ID{eid(4), eid(7)}) {
		t.Errorf("outer = %v, want [4#1 7#1]", outer)
	}
	want := []entity.ID{eid(1), eid(7), eid(1), eid(4)}
	if !slices.Equal(inner, want) {
		t.Errorf("inner = %v, want %v", inner, want)
	}
}

// TestIslandHoldsWhatTouchesAfterTheStep throws one body at another: the
// island reports it from the step that brings the two into touch, while
// box2d's own flag, set before that step moved anything, still says they
// do not.
func TestIslandHoldsWhatTouchesAfterTheStep(t *testing.T) {
	w, s := New(Config{}), newStore()
	add(t, w, s, eid(1), def(entity.Dynamic, box(1, 1)), 0, 0)
	add(t, w, s, eid(2), def(entity.Dynamic, box(1, 1)), 1.6, 0).rb.VX = -10
	for step := 1; step <= 8; step++ {
		w.Step(s)
		var ids []entity.ID
		w.Island(eid(1), collect(&ids))
		if len(ids) == 0 {
			continue
		}
		touching := false
		for e := w.byID[eid(1)].b.GetContactList(); e != nil; e = e.Next {
			touching = touching || e.Contact.IsTouching()
		}
		if touching {
			t.Fatalf("step %d: reported only once box2d's flag said so", step)
		}
		return
	}
	t.Fatal("the thrown body never joined the island")
}

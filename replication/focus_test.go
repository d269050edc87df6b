package replication

import (
	"math"
	"testing"

	"vkm/internal/entity"
)

// TestFocus: a connection with no own entity (a spectator's) whose focus
// is a body at the origin looks from there as a player's looks from its
// own: every body within reach each round, a farther one on its turn; the
// header names no own entity. With no focus it looks at everything every
// round.
func TestFocus(t *testing.T) {
	m := newSim(t, 22)
	m.check = true
	reach := Reach{Near: 24, Every: ReachEvery}
	m.reach(reach)
	followed := m.w.spawn(0, Described, 0)
	followed.rb = &entity.Rigidbody{}
	m.p.SetFocus(followed.id)
	var bodies []*wEnt
	for i := range 30 {
		bodies = append(bodies, m.w.spawn(uint32(1+i), Described, float64(2*i)))
	}
	near := func(e *wEnt) bool { return math.Hypot(e.t.X, e.t.Y) <= reach.Near }
	m.settle(8)
	every := uint64(reach.Every)
	round := func() map[uint32]bool {
		for _, e := range bodies {
			moving(e, 0.5)
		}
		m.step()
		m.deliver()
		written := map[uint32]bool{}
		for _, en := range m.rc.sn.Entries {
			written[en.ID.Slot] = true
		}
		if !m.rc.sn.Own.IsNone() {
			t.Fatalf("a spectator's snapshot names own entity %v", m.rc.sn.Own)
		}
		return written
	}
	for r := range 16 {
		written := round()
		for _, e := range bodies {
			turn := (m.p.writes+uint64(e.id.Slot))%every == 0
			if near(e) && !written[e.id.Slot] {
				t.Fatalf("round %d: body at %.1f m, near the focus, not written", r, e.t.X)
			}
			if !near(e) && written[e.id.Slot] != turn {
				t.Fatalf("round %d: far body at %.1f m written %v, its turn %v", r, e.t.X, written[e.id.Slot], turn)
			}
		}
	}
	m.p.SetFocus(entity.None)
	for r := range 4 {
		written := round()
		for _, e := range bodies {
			if !written[e.id.Slot] {
				t.Fatalf("round %d without a focus: body at %.1f m not written", r, e.t.X)
			}
		}
	}
}

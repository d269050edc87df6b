package replication

import (
	"testing"

	"vkm/wire"
)

// TestRemovalsAfterUnwrittenRounds checks that a connection told of a
// settled world reports every occupant the world has lost since, when it
// looks only at the slots whose occupants changed: one destroyed in a
// round no connection was written from, and ones lost while the round's
// log of changes had let go of the rounds since the connection's last
// look, as it does when many come and go.
func TestRemovalsAfterUnwrittenRounds(t *testing.T) {
	s := testSchema(t)
	w := crowdWorld(1, 40)
	r := NewRound(s)
	own := w.ents[100].id
	p := NewPeer(s)
	acks := AckFunc(func(wire.Seq) (bool, bool) { return true, false })
	var buf []byte
	seq := wire.Seq(0)
	tick := uint32(0)
	build := func() {
		tick++
		buildFrom(t, w, w.slots(), r, tick)
	}
	write := func() WriteStats {
		p.Acknowledge(acks)
		buf = p.Write(buf[:0], r, own, budgetBytes)
		seq++
		p.Sent(seq)
		return p.Stats()
	}
	settle := func(when string) {
		t.Helper()
		for range 6 {
			build()
			write()
		}
		if p.remQuiet == 0 {
			t.Fatalf("%s: the last look for removals is not known to have found none", when)
		}
	}
	settle("at first")

	// Destroyed in a round built and never written from.
	w.destroy(1003)
	build()
	build()
	if st := write(); st.Removals != 1 {
		t.Fatalf("a crate destroyed in a round no connection was written from: %d removals, want 1", st.Removals)
	}
	settle("after the first removal")

	// Many occupants come and go, more than the round's log keeps, while
	// the connection is not written to; then one more is destroyed.
	for i := range maxOccLog {
		slot := uint32(5000 + i%8)
		if i%2 == 0 {
			w.spawn(slot, Described, float64(i))
		} else {
			w.destroy(slot - 1)
		}
		build()
	}
	w.destroy(1010)
	build()
	if _, logged := r.occChangedSince(p.remQuiet); logged {
		t.Fatalf("the round's log still reaches the connection's last look, round %d: the test did not run past it", p.remQuiet)
	}
	if st := write(); st.Removals != 1 || !p.reported(1010) {
		t.Fatalf("a crate destroyed after %d changes of occupant: %d removals (slot 1010 reported: %v), want it alone", maxOccLog, st.Removals, p.reported(1010))
	}
}

// reported says whether the last snapshot written reported the removal of
// slot's occupant.
func (p *Peer) reported(slot uint32) bool {
	c := p.pending[len(p.pending)-1]
	for _, id := range c.rem {
		if id.Slot == slot {
			return true
		}
	}
	return false
}

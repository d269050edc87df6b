package replication

import (
	"testing"

	"vkm/wire"
)

// TestQuietMarksOutliveTheirWidth checks that a connection's quiet marks,
// two bytes a slot counted from a round of their own, keep standing for
// what they mean once round numbers have run past their width: a crate
// that moves and comes to rest again, rounds later than a mark can
// reach, is skipped again as soon as a plan finds nothing to say of it,
// and every mark decodes to a round no later than the one written.
func TestQuietMarksOutliveTheirWidth(t *testing.T) {
	s := testSchema(t)
	w := crowdWorld(1, 20)
	r := NewRound(s)
	slots := w.slots()
	own := w.ents[100].id
	crate := w.ents[1005]
	p := NewPeer(s)
	acks := AckFunc(func(wire.Seq) (bool, bool) { return true, false })
	var buf []byte
	seq := wire.Seq(0)
	tick := uint32(0)
	round := func() {
		tick++
		buildFrom(t, w, slots, r, tick)
		p.Acknowledge(acks)
		buf = p.Write(buf[:0], r, own, budgetBytes)
		seq++
		p.Sent(seq)
		for i := range r.ents {
			e := &r.ents[i]
			bi := p.index.get(e.id.Slot) - 1
			if bi < 0 {
				continue
			}
			if m := p.quiets[bi]; m != 0 && p.quietFrom+uint64(m) > r.n {
				t.Fatalf("round %d: slot %d marked quiet at round %d, after the round written", r.n, e.id.Slot, p.quietFrom+uint64(m))
			}
		}
	}
	settled := func(when string) {
		t.Helper()
		for range 8 {
			round()
		}
		for i := range r.ents {
			e := &r.ents[i]
			if e.id == own || e.silence != Described {
				continue // the own entity is planned every round; a static body is never described
			}
			bi := p.index.get(e.id.Slot) - 1
			if bi < 0 || !p.quietAt(p.quiets[bi], e.chg) {
				t.Fatalf("%s: slot %d not found quiet in a settled world (mark %d from round %d, changed at round %d)", when, e.id.Slot, p.quiets[max(bi, 0)], p.quietFrom, e.chg)
			}
		}
	}
	settled("before")
	for jump := range 3 {
		// Other rounds of the process (other worlds, other tests) take
		// the round numbers between, a mark's width and then some.
		roundNumbers.Add(maxQuiet + uint64(jump))
		for range 3 {
			moving(crate, 2)
			round()
		}
		moving(crate, 0)
		settled("after the round numbers ran past the marks' width")
	}
}

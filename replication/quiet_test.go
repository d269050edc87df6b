package replication

import (
	"fmt"
	"testing"

	"vkm/internal/entity"
	"vkm/wire"
)

// quietSetDiff returns how p's quietSet, after a Write from r, differs
// from the entities of r whose quiet mark holds (quietAt), or "".
func quietSetDiff(p *Peer, r *Round) string {
	if len(p.quietSet) != (len(r.ents)+63)/64 {
		return fmt.Sprintf("quiet set of %d words for %d entities", len(p.quietSet), len(r.ents))
	}
	for i := range r.ents {
		e := &r.ents[i]
		bi := p.index.get(e.id.Slot) - 1
		want := bi >= 0 && p.quietAt(p.quiets[bi], e.chg)
		if got := p.quietSet[i>>6]&(1<<(i&63)) != 0; got != want {
			return fmt.Sprintf("%v (entity %d): in the quiet set %v, its mark holds %v", e.id, i, got, want)
		}
	}
	return ""
}

// TestQuietSetFollowsMarks: a connection's quietSet, kept from Write to
// Write, holds exactly the entities whose quiet mark holds, and its
// snapshots are those of a connection that builds it anew every Write:
// while crates move and settle, when rounds go unwritten, when an entity
// comes and goes (the entities' indices shift), when more marks are
// cleared between two Writes than it lists, and when snapshots are lost.
func TestQuietSetFollowsMarks(t *testing.T) {
	s := testSchema(t)
	w := crowdWorld(2, 300)
	r := NewRound(s)
	own := w.ents[100].id
	p, twin := NewPeer(s), NewPeer(s)
	lose := false
	acks := AckFunc(func(q wire.Seq) (bool, bool) { return !lose, lose })
	var seq wire.Seq
	tick, incremental := uint32(0), 0
	build := func() {
		tick++
		buildFrom(t, w, w.slots(), r, tick)
	}
	write := func(what string) {
		t.Helper()
		for _, q := range []*Peer{p, twin} {
			q.Acknowledge(acks)
		}
		if p.quietSeq != 0 && r.seq == p.quietSeq+1 && r.occupiedSince() <= p.quietN {
			incremental++
		}
		got := p.Write(nil, r, own, budgetBytes)
		if d := quietSetDiff(p, r); d != "" {
			t.Fatalf("%s, tick %d: %s", what, tick, d)
		}
		twin.quietSeq = 0
		want := twin.Write(nil, r, own, budgetBytes)
		if string(got) != string(want) {
			t.Fatalf("%s, tick %d: wrote %x; building the quiet set anew, %x", what, tick, got, want)
		}
		seq++
		p.Sent(seq)
		twin.Sent(seq)
	}
	step := func(what string, n int, change func(k int)) {
		t.Helper()
		for k := range n {
			if change != nil {
				change(k)
			}
			build()
			write(what)
		}
	}
	crate := func(k int) *wEnt { return w.ents[uint32(1000+k)] }
	step("settling", 12, nil)
	step("crates moving", 12, func(k int) {
		moving(crate(k), 2)
		moving(crate(k+40), float64(k%3))
	})
	step("settling again", 12, func(k int) { moving(crate(k), 0) })
	// Rounds no one writes, in which a crate moves and stops: the round
	// written next did not change it.
	moving(crate(7), 3)
	build()
	moving(crate(7), 0)
	build()
	build()
	step("after unwritten rounds", 8, nil)
	step("an entity comes and goes", 12, func(k int) {
		switch k {
		case 2:
			e := w.spawn(500, Described, 3)
			e.rb = &entity.Rigidbody{}
		case 7:
			delete(w.ents, 500)
		}
	})
	for i := range 300 {
		p.Hold(crate(i).id) // more marks cleared than quietSet lists
		twin.Hold(crate(i).id)
	}
	step("after holding every crate again", 12, nil)
	step("snapshots lost", 4, func(k int) {
		lose = true
		moving(crate(k), 1)
	})
	lose = false
	step("settling at last", 16, func(k int) { moving(crate(k%4), 0) })
	if incremental < 60 {
		t.Fatalf("quiet set kept from the Write before in %d Writes: the test does not exercise it", incremental)
	}
	t.Logf("quiet set kept from the Write before in %d Writes", incremental)
}

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

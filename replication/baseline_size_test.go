package replication

import (
	"testing"
	"unsafe"

	"vkm/wire"
)

// TestBaselineFitsTheWorld checks that a connection's baseline, once every
// entity of a crowd is confirmed, holds about one entry a slot: sized to
// the world its rounds carry, not to a doubling that can leave a third of
// the array unused in every connection. It also pins an entry's size,
// which every connection pays for every slot of the world.
func TestBaselineFitsTheWorld(t *testing.T) {
	if n := unsafe.Sizeof(slotBase{}); n > 96 {
		t.Errorf("a baseline entry takes %d bytes, want at most 96", n)
	}
	s := testSchema(t)
	w := crowdWorld(64, 500)
	r := NewRound(s)
	slots := w.slots()
	p := NewPeer(s)
	for _, slot := range slots[:40] { // the statics, as a scene's are held
		p.Hold(w.ents[slot].id)
	}
	acks := AckFunc(func(wire.Seq) (bool, bool) { return true, false })
	var buf []byte
	for tick := range 64 {
		buildFrom(t, w, slots, r, uint32(tick))
		p.Acknowledge(acks)
		buf = p.Write(buf[:0], r, w.ents[100].id, budgetBytes)
		p.Sent(wire.Seq(tick + 1))
	}
	n := len(r.ents)
	if len(p.bases) != n {
		t.Fatalf("%d baseline entries for a world of %d entities", len(p.bases), n)
	}
	if c := cap(p.bases); c > n+n/16+8 || cap(p.quiets) != c {
		t.Errorf("baseline room %d (quiet marks %d) for %d entities, want at most %d", c, cap(p.quiets), n, n+n/16+8)
	}
	t.Logf("%d entities, baseline room %d, %d bytes an entry", n, cap(p.bases), unsafe.Sizeof(slotBase{}))

	// Reserved for the world up front, the baseline is never regrown.
	q := NewPeer(s)
	q.Reserve(r.Len())
	first := unsafe.SliceData(q.bases)
	for _, slot := range slots[:40] {
		q.Hold(w.ents[slot].id)
	}
	for tick := range 64 {
		buildFrom(t, w, slots, r, uint32(64+tick))
		q.Acknowledge(acks)
		buf = q.Write(buf[:0], r, w.ents[100].id, budgetBytes)
		q.Sent(wire.Seq(tick + 1))
	}
	if len(q.bases) != n || unsafe.SliceData(q.bases) != first {
		t.Errorf("a baseline reserved for %d entities was regrown (%d entries, room %d)", n, len(q.bases), cap(q.bases))
	}
}

// TestClaimsLetGoAfterABurst checks that the claims a slow start put in
// flight are let go once the link answers every round again, and that the
// steady rounds after that allocate nothing.
func TestClaimsLetGoAfterABurst(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop what it is given")
	}
	s := testSchema(t)
	w := crowdWorld(8, 100)
	r := NewRound(s)
	slots := w.slots()
	p := NewPeer(s)
	answered := false
	acks := AckFunc(func(wire.Seq) (bool, bool) { return answered, false })
	var buf []byte
	seq := wire.Seq(0)
	round := func() {
		for i := range 8 {
			moving(w.ents[uint32(100+i)], 2)
		}
		buildFrom(t, w, slots, r, uint32(seq))
		p.Acknowledge(acks)
		buf = p.Write(buf[:0], r, w.ents[100].id, budgetBytes)
		seq++
		p.Sent(seq)
	}
	for range 20 { // a client that has not answered yet
		round()
	}
	if n := len(p.pending); n != 20 {
		t.Fatalf("%d claims in flight, want 20", n)
	}
	answered = true
	for range 2 * claimWindow {
		round()
	}
	if n := len(p.pending) + len(p.free); n > 3 {
		t.Errorf("%d claims held (%d in flight) two windows after the burst, want at most 3", n, len(p.pending))
	}
	if n := testing.AllocsPerRun(3*claimWindow, round); n > 0 {
		t.Errorf("%.2f allocations a round on a steady link", n)
	}
}

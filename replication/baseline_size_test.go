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
}

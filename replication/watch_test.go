package replication

import (
	"testing"

	"vkm/internal/entity"
)

// TestWatchCountsOneEntity: a watched entity's entries and bits are
// counted as they are written, and no other's; its priority rises while a
// crowded snapshot defers it and falls to 0 when it goes out; Watch
// again starts from zero, and entity.None stops.
func TestWatchCountsOneEntity(t *testing.T) {
	m := newSim(t, 9)
	m.budget = 200 // room for about ten bodies of forty
	var last *wEnt
	for i := range 40 {
		last = m.w.spawn(uint32(i), Described, float64(i))
		last.rb = &entity.Rigidbody{}
	}
	m.p.Watch(last.id)
	var written, deferred int
	maxPrio := uint32(0)
	for range 12 {
		for _, e := range m.w.ents {
			moving(e, 1)
		}
		before := m.p.Watched()
		m.step()
		m.deliver()
		after := m.p.Watched()
		if contains(entrySlots(&m.rc.sn), last.id.Slot) {
			written++
			if after.Entries != before.Entries+1 || after.Bits <= before.Bits || after.LastTick == 0 || after.Priority != 0 {
				t.Fatalf("written, but watched %+v after %+v", after, before)
			}
		} else {
			deferred++
			if after.Entries != before.Entries || after.Bits != before.Bits || after.Priority == 0 {
				t.Fatalf("not written, but watched %+v after %+v", after, before)
			}
		}
		maxPrio = max(maxPrio, after.Priority)
	}
	w := m.p.Watched()
	if written == 0 || deferred == 0 || maxPrio < 2 || w.ID != last.id {
		t.Fatalf("written %d, deferred %d rounds, priority up to %d: %+v", written, deferred, maxPrio, w)
	}
	t.Logf("seed 9: slot %d written in %d of 12 rounds, %d bits in %d entries, priority up to %d", last.id.Slot, written, w.Bits, w.Entries, maxPrio)
	m.p.Watch(last.id)
	if w := m.p.Watched(); w.Bits != 0 || w.Entries != 0 || w.LastTick != 0 {
		t.Fatalf("watched again: %+v", w)
	}
	m.p.Watch(entity.None)
	for _, e := range m.w.ents {
		moving(e, 1)
	}
	m.step()
	if w := m.p.Watched(); w.Bits != 0 || w.Entries != 0 || w.Priority != 0 {
		t.Fatalf("watching none: %+v", w)
	}
}

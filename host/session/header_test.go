package session

import (
	"testing"
	"time"

	"vkm/internal/entity"
	"vkm/transport/memnet"
)

// TestClientReadsTheHeaderTheServerWrote plays a wander bot over an awful
// link while the server hands the seat's own entity about (another body,
// none, back to the character): every snapshot the client reads carries
// the tick, own entity and command feedback the server wrote, resolved
// from the header's short forms, and the client ends holding the own
// entity the server last said.
func TestClientReadsTheHeaderTheServerWrote(t *testing.T) {
	h := newHarness(t, loadArena(t))
	a := h.seated(memnet.Awful, 31, true)
	var st *seat
	for _, s := range h.server.seats {
		st = s
	}
	character := st.entity
	var other entity.ID
	h.server.Game().Store().Each(func(id entity.ID) bool {
		if id != character && h.server.Game().Store().Rigidbody(id) != nil {
			other = id
			return false
		}
		return true
	})
	if other.IsNone() {
		t.Fatal("the arena has no other body")
	}
	type header struct {
		own            entity.ID
		newest, judged uint32
	}
	wrote := map[uint32]header{} // by tick
	owns := []entity.ID{other, entity.None, character}
	from := h.server.Game().Tick() // rounds up to here went unrecorded
	last := a.c.snap.Tick
	checked := 0
	seen := map[entity.ID]int{}
	for step := range 6000 {
		if step%700 == 350 {
			st.entity = owns[(step/700)%len(owns)]
		}
		rounds := h.server.rounds
		h.step()
		if h.server.rounds != rounds {
			// The round just sent: nothing has moved the queue since.
			wrote[h.server.Game().Tick()] = header{st.entity, st.queue.Newest(), st.queue.Judged()}
		}
		sn := &a.c.snap
		if sn.Tick == last || sn.Tick <= from || a.c.badSnapshots != 0 {
			continue
		}
		last = sn.Tick
		w, ok := wrote[sn.Tick]
		if !ok {
			t.Fatalf("step %d: the client read tick %d, which no round had", step, sn.Tick)
		}
		if sn.Own != w.own || !sn.HasCommands || sn.Commands.Newest != w.newest || sn.Commands.Judged != w.judged {
			t.Fatalf("step %d, tick %d: read own %v, %+v; the server wrote own %v, newest %d, judged %d",
				step, sn.Tick, sn.Own, sn.Commands, w.own, w.newest, w.judged)
		}
		checked++
		seen[sn.Own]++
	}
	st.entity = character
	h.run(3 * time.Second)
	if a.c.badSnapshots != 0 {
		t.Fatalf("%d snapshots did not decode", a.c.badSnapshots)
	}
	if got := a.c.Game().Own(); got != character {
		t.Fatalf("the client's own entity is %v, want %v", got, character)
	}
	if checked < 300 || len(seen) != len(owns) {
		t.Fatalf("only %d snapshots checked, own entities read %v", checked, seen)
	}
	t.Logf("%d snapshots read as written, own entities %v", checked, seen)
}

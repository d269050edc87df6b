package replication

import (
	"vkm/internal/entity"
	"vkm/wire"
)

// A developer's inspector asks how one entity is replicated to one
// connection: its priority (the rounds it has waited with something to
// say, see Relevance), and the entries and bits the connection's
// snapshots have spent on it. Watch names the entity; the Peer then
// counts its entries as it writes them, which costs a Write one
// comparison an entry.

// watch is the watched entity and what was written of it since Watch.
type watch struct {
	id      entity.ID
	bits    uint64
	entries uint64
	last    uint32 // the round's tick of the newest entry; 0: none
}

// Watched is what a Peer has written of the watched entity since Watch.
type Watched struct {
	ID entity.ID
	// Priority is the rounds it has waited with something to say since
	// it was last written (0 when it waits for nothing, or is not known
	// to this connection).
	Priority uint32
	// Bits and Entries are what its entries took, and how many there
	// were; LastTick is the tick of the round of the newest (0: none).
	Bits     uint64
	Entries  uint64
	LastTick uint32
}

// Watch starts counting what the Peer's Writes spend on id, from zero;
// entity.None stops.
func (p *Peer) Watch(id entity.ID) { p.watch = watch{id: id} }

// Watched returns what has been written of the watched entity since
// Watch.
func (p *Peer) Watched() Watched {
	w := Watched{ID: p.watch.id, Bits: p.watch.bits, Entries: p.watch.entries, LastTick: p.watch.last}
	if b := p.base(w.ID.Slot); b != nil && !w.ID.IsNone() {
		w.Priority = b.prio
	}
	return w
}

// watched counts an entry of the watched entity that began at bit from.
func (p *Peer) watched(from int, w *wire.Writer, r *Round) {
	p.watch.bits += uint64(w.Len() - from)
	p.watch.entries++
	p.watch.last = r.tick
}

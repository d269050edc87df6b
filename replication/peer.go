package replication

import (
	"math"

	"vkm/internal/entity"
	"vkm/wire"
)

// maxPending bounds the snapshots a Peer holds awaiting an answer: two
// seconds at 64 a second, far past any round trip a session survives. Past
// it the oldest is given up as lost, which is always safe (it costs a
// resend, never a missing value), so a peer that stops answering cannot
// grow the server's memory. Tuning constant.
const maxPending = 128

// Acks answers what became of a sent snapshot, by the sequence of the
// packet that carried it. *transport.Conn satisfies it: Acked reports
// whether the peer acknowledged seq (known false for a sequence the
// connection no longer remembers, which is then taken as lost), and Lost
// whether seq can no longer be acknowledged. A snapshot neither acked nor
// lost is still in flight.
type Acks interface {
	Acked(seq wire.Seq) (acked, known bool)
	Lost(seq wire.Seq) bool
}

// AckFunc adapts a function answering (acked, lost) for a sequence to Acks.
// A sequence that is neither is in flight.
type AckFunc func(seq wire.Seq) (acked, lost bool)

// Acked implements Acks: every sequence is known to an AckFunc.
func (f AckFunc) Acked(seq wire.Seq) (acked, known bool) {
	acked, _ = f(seq)
	return acked, true
}

// Lost implements Acks.
func (f AckFunc) Lost(seq wire.Seq) bool {
	_, lost := f(seq)
	return lost
}

var _ Acks = AckFunc(nil)

// Commands is the command feedback a snapshot header carries once a player
// has sent a command (the command queue fills it): the newest command sequence the
// server has received, the client tick whose command the server judged
// this tick, and the lowest depth the player's queue reached since the
// last snapshot, in 4 bits (saturating at 15).
type Commands struct {
	Newest   uint32
	Judged   uint32
	LowWater uint8
}

// compState is what a connection has confirmed of one component.
type compState uint8

const (
	absent  compState = iota // confirmed not held (or never heard of)
	present                  // confirmed held, with these bytes
	unknown                  // a snapshot that may have been applied was judged lost
)

// baseComp is the confirmed state of one component of one slot's occupant:
// for a present one, the version of the bits confirmed (roundComp.ver),
// which is all a comparison with a round needs.
//
// Its order (see order) and its state share one word: a baseline holds one
// of these per wire type per slot per connection, so its size is the
// baseline's, and 16 bytes is two to a cache line where 24 was not.
type baseComp struct {
	so  uint64 // order<<2 | state
	ver uint64
}

// state returns the component's state.
func (bc *baseComp) state() compState { return compState(bc.so & 3) }

// order returns, for an unknown component, the order of the newest lost
// snapshot behind the doubt, and for a present or absent one the order of
// the snapshot that confirmed it: one field, since each state reads only
// its own. Orders count snapshots sent, far below 2^62.
func (bc *baseComp) order() uint64 { return bc.so >> 2 }

// set gives the component a state and an order.
func (bc *baseComp) set(st compState, order uint64) { bc.so = order<<2 | uint64(st) }

// slotBase is what a connection has confirmed of one slot: its occupant
// and, by wire type, that occupant's components. It also carries the
// slot's accumulated send priority.
type slotBase struct {
	slot uint32
	prio uint32
	occ  entity.ID // entity.None: confirmed empty (or never confirmed)
	// The components are by wire type, as many as the highest type any
	// claim about the slot has named (ntypes; a type beyond it is
	// confirmed absent, as of no snapshot in particular): a crate's two
	// engine types take two, not one per type in the schema. Doubt about
	// every type makes them whole. The first baseHead types, a body's
	// Transform and Rigidbody, are held in the slotBase itself, beside
	// its occupant, and the rest in tail: a plan or a fold of a body
	// reads one place in memory, not two.
	//
	// The fields every fold and plan reads come first, in the first 60
	// bytes, and the turn last: half the entries of a 64-byte-aligned
	// array then have all but their turn in one cache line.
	head   [baseHead]baseComp
	tail   *baseTail
	ntypes int32
	// ref is the newest acknowledged state of the occupant's turn.
	ref turnRef
}

// baseTail holds a slotBase's components past its head. It is kept
// behind a pointer, 8 bytes in the slotBase where a slice took 24: every
// connection holds a slotBase for every slot in the world, and most
// occupants (crates, platforms) have no type past the head.
type baseTail struct {
	c []baseComp
}

// doubt is an occupant the receiver may hold at its slot although nothing
// confirmed it: a snapshot that introduced it was judged lost, and a lost
// snapshot may still have been applied if every acknowledgement of it was
// lost on the way back. It is reported removed, when it is not the round's
// occupant, until a removal or a newer fresh entry at its slot is confirmed.
type doubt struct {
	id    entity.ID
	since uint64
}

// claim is what one sent snapshot said: the removals, then each entry with
// its components (each by the version of its bits). It is folded into the
// baseline only when the snapshot is acknowledged.
//
// Every connection holds the claims of its snapshots in flight, and reads
// each one back when it is answered, a round trip after writing it: they
// are kept narrow (an entry's components are where the entry before left
// off, and a component's type and presence share a word apart from its
// version) so that the round's claims displace less of the world.
type claim struct {
	seq      wire.Seq
	order    uint64 // 1, 2, 3... in send order; never wraps, unlike seq
	tick     uint32 // the header's
	own      entity.ID
	commands bool // the header carried command feedback
	news     bool // WriteStats.News of the snapshot, in flight alone
	rem      []entity.ID
	ents     []claimEnt
	comps    []claimComp
	vers     []uint64 // of comps, by index: the version of the bits written (when present)
}

type claimEnt struct {
	id  entity.ID
	end int32 // comps[the previous entry's end:end] are its components
	// base is the index in Peer.bases of its slot's baseline, when the
	// Peer had one as it wrote the entry (a slot's stays at its index),
	// so that its fold need not look the slot up; -1 otherwise.
	base  int32
	turn  turn
	fresh bool
	// hasTurn says the entry carried a Transform and a Rigidbody, whose
	// turn the receiver then keeps as a state of the snapshot's tick.
	hasTurn bool
}

// claimComp is a component an entry named: its wire type, and whether its
// bits were written (present) or it was marked removed.
type claimComp uint32

func compClaim(typ int, present bool) claimComp {
	c := claimComp(typ) << 1
	if present {
		c |= 1
	}
	return c
}

func (cc claimComp) typ() int      { return int(cc >> 1) }
func (cc claimComp) present() bool { return cc&1 != 0 }

// first returns where in comps the components of the i-th entry begin.
func (c *claim) first(i int) int32 {
	if i == 0 {
		return 0
	}
	return c.ents[i-1].end
}

func (c *claim) reset() {
	c.rem, c.ents, c.comps, c.vers = c.rem[:0], c.ents[:0], c.comps[:0], c.vers[:0]
}

// Peer is one connection's side of replication: the baseline it has
// confirmed (per slot, the occupant and its components' quantised bits),
// the claims of snapshots in flight, and the accumulated priorities of
// what waits to be said. Each send round the host calls Acknowledge, then
// Write, then Sent with the sequence of the packet that carried the
// snapshot:
//
//	Acknowledge(conn) ──▶ Write(dst, round, own, budget) ──▶ Sent(seq)
//	   │ acked: fold the claims into the baseline, in send order
//	   │ lost:  drop them (what they touched must be said again)
//	   └ neither: keep waiting
//
// Nothing is confirmed at send time: a claim reaches the baseline only when
// the packet's acknowledgement comes back. A new Peer's baseline holds
// nothing, so its first snapshots describe the whole (non-silent) world
// because everything differs, not as an exception.
//
// After its first rounds a Peer allocates nothing. The zero value is not
// usable: make one with NewPeer. A Peer is not safe for concurrent use, but
// different Peers may Write from one Round concurrently.
type Peer struct {
	schema *Schema
	ntypes int

	index slotTable // slot → index in bases + 1
	bases []slotBase
	// quiets holds, beside bases, each slot's quiet mark: the round
	// (Round.n) at which a plan of the slot's occupant, not as the own
	// entity, found nothing to say, with the baseline as it still stands,
	// as its distance from quietFrom; 0 when unknown. Every change to the
	// slot's baseline clears it. The marks are kept apart from the rest of
	// the baseline and as narrow as they can be: two bytes a slot in one
	// array, a cache line for 32 slots, where a round's full number took
	// eight (a Write reads them through quietSet, and all of them only when
	// it builds that anew). When a round comes more than maxQuiet rounds past
	// quietFrom, Write forgets every mark and counts from that round
	// (forgetting a mark only costs a plan that finds nothing again).
	quiets    []uint16
	quietFrom uint64
	// quietSet holds a bit for each entity of the last round written, by
	// index in its ents, whose quiet mark says it has nothing to say
	// (quietAt), so that a Write passes over them a word at a time rather
	// than looking each one up: on a crowded server most of what a
	// connection looks at every round is quiet. Write brings it up to date
	// (syncQuiet) from quietSeq, the Round.seq it was last brought to
	// (0: to be built anew), and quietN, that round's number; hushed lists
	// the slots whose mark a baseline change cleared since (at most
	// maxHushed: past it, quietSeq is forgotten instead).
	quietSet []uint64
	quietSeq uint64
	quietN   uint64
	hushed   []uint32
	doubts   []doubtAt

	round *Round // the last Write's: the rounds its quiet marks count in
	// remQuiet is the round at which the last look for removals found
	// none, with the baseline's occupants and the doubts as they still
	// are; 0 when unknown. remMoved lists the slots whose occupant the
	// baseline has changed since (at most maxRemMoved: past it, remQuiet
	// is forgotten instead). The next look visits those slots and those
	// whose occupant the round has changed since (Round.occLog), not the
	// whole baseline: in a world that spawns and destroys as it plays,
	// every connection looked at every slot of the world each time it
	// did.
	remQuiet uint64
	remMoved []uint32
	remAt    []int32 // writeRemovals' scratch: the baseline entries to look at

	pending []*claim // sent, awaiting an answer, in send order
	free    []*claim
	// rounds counts Acknowledges, and flightPeak is the most claims in
	// flight at one in the current window (see trimClaims).
	rounds     uint64
	flightPeak int
	draft      *claim // the last Write's, until Sent
	// sentOwn and sentCommands are what the header of the last snapshot
	// sent said: the own occupant, and whether command feedback came.
	sentOwn      entity.ID
	sentCommands bool
	orders       uint64 // the last order given
	folded       uint64 // the order of the newest claim folded

	// The header's short forms (see shortTick, statesOwn): sentTick is the
	// tick of the last snapshot sent; ackOrder and ackTick the order and
	// tick of the newest acknowledged (order 0: none yet); backOrder the
	// order of the newest sent whose tick is below its predecessor's.
	// ownRun is the order of the first snapshot of the current run, those
	// sent since the own occupant last changed, and ownKnown says one of
	// the run has been acknowledged.
	sentTick  uint32
	ackTick   uint32
	ackOrder  uint64
	backOrder uint64
	ownRun    uint64
	ownKnown  bool

	commands    Commands
	hasCommands bool

	// focus is what a connection with no own entity looks from (SetFocus).
	focus entity.ID

	// tickRate is the server's ticks a second (SetTickRate); hdrGap the
	// gap the header of the snapshot being written names (headerGap).
	tickRate float64
	hdrGap   int

	// eagerPlans makes every candidate's plan up front, as if no plan
	// were lazy (see lazy plans): the replication harness's twin Peer
	// writes so, to show that lazy plans never change a snapshot.
	eagerPlans bool
	// ownTurns makes the Peer choose every moving body's state itself
	// rather than take the choice the round kept for another connection
	// holding the same state (Round.turnFor): the harness's twin writes
	// so, to show that kept choices never change a snapshot.
	ownTurns bool
	// generalPlans makes every plan walk the entity's types, a bare
	// moving body's included (roundEnt.bare): the harness's twin plans
	// so, to show that the short way finds what the walk does.
	generalPlans bool
	// fieldWrites writes every entry in the general form field by field,
	// not gathered into words (writeGeneral): the harness's twin writes
	// so, to show the two the same to the bit.
	fieldWrites bool
	// heapRanks takes every snapshot's candidates off the heap, never in
	// rankOrder's order: the harness's twin writes so, to show the two
	// orders the same.
	heapRanks bool

	// nearSq and every are the Reach (SetReach): the square of Near,
	// and Every (1: everything is near); writes counts Writes, whose
	// residue picks the slots a far entity's turn falls on.
	nearSq float32
	every  uint64
	writes uint64

	// watch is the entity a developer inspects (Watch).
	watch watch

	w       wire.Writer
	buf     []byte
	acts    []action
	pl      planned  // the last plan's findings besides acts
	blocked []uint32 // slots whose removal did not fit this snapshot
	stats   WriteStats
}

// doubtAt is a doubt with its slot.
type doubtAt struct {
	slot uint32
	doubt
}

// NewPeer returns a connection's replication state for schema s, with an
// empty baseline. s must not change while the Peer is in use, and every
// Round it writes from must be over s.
func NewPeer(s *Schema) *Peer {
	n := EngineTypes + len(s.Types)
	return &Peer{schema: s, ntypes: n, acts: make([]action, n), every: 1}
}

// Hold records that the connection already holds occupant id with none of
// its components confirmed: an entity both ends built from the same scene
// file before the connection began (the join's world fingerprint proved
// the file the same). Its components are then said as usual, and its
// removal, should it die, is reported like anyone's. Without it, an entity
// that is never described (a static body) could be destroyed on the server
// and never leave the client.
func (p *Peer) Hold(id entity.ID) {
	b := p.baseOrNew(id.Slot)
	b.occ = id
	b.truncate()
	p.unhush(b)
	p.remQuiet = 0
}

// SetCommands sets the command feedback every later snapshot header
// carries. Until it is first called headers carry none.
func (p *Peer) SetCommands(c Commands) {
	p.commands, p.hasCommands = c, true
}

// InFlight returns how many sent snapshots await an answer.
func (p *Peer) InFlight() int { return len(p.pending) }

// base returns slot's baseline, or nil when the Peer has none.
func (p *Peer) base(slot uint32) *slotBase {
	if i := p.index.get(slot); i > 0 {
		return &p.bases[i-1]
	}
	return nil
}

// unhush clears the quiet mark of b's slot (see quiets).
func (p *Peer) unhush(b *slotBase) {
	p.unhushAt(int(p.index.get(b.slot) - 1))
}

// unhushAt clears the quiet mark of the bi-th baseline entry, and has the
// next Write clear its bit in quietSet. Without a mark the bit is clear.
func (p *Peer) unhushAt(bi int) {
	if p.quiets[bi] == 0 {
		return
	}
	p.quiets[bi] = 0
	switch {
	case p.quietSeq == 0:
	case len(p.hushed) == maxHushed:
		p.quietSeq, p.hushed = 0, p.hushed[:0]
	default:
		p.hushed = append(p.hushed, p.bases[bi].slot)
	}
}

// maxHushed is the most quiet marks cleared between two Writes before the
// next rebuilds quietSet rather than clearing their bits. Tuning constant.
const maxHushed = 256

// syncQuiet brings quietSet to round r, after Write has forgotten any
// marks it forgets. From the round of r before the last it wrote, with
// the same occupants at every slot (so the same entities at the same
// indices), an entity's mark goes on holding unless r changed it or a
// baseline change cleared its mark: those bits are cleared, a word at a
// time and by the slots hushed. Otherwise every entity is looked at.
func (p *Peer) syncQuiet(r *Round) {
	words := (len(r.ents) + 63) / 64
	if p.quietSeq != 0 && r.seq == p.quietSeq+1 && r.occupiedSince() <= p.quietN && len(p.quietSet) == words {
		for w, c := range r.changed {
			p.quietSet[w] &^= c
		}
		for _, slot := range p.hushed {
			if i := r.bySlot.get(slot) - 1; i >= 0 {
				p.quietSet[i>>6] &^= 1 << (i & 63)
			}
		}
	} else {
		p.quietSet = zeroed(p.quietSet, words)
		for i := range r.ents {
			e := &r.ents[i]
			if bi := p.index.get(e.id.Slot) - 1; bi >= 0 && p.quietAt(p.quiets[bi], e.chg) {
				p.quietSet[i>>6] |= 1 << (i & 63)
			}
		}
	}
	p.hushed = p.hushed[:0]
	p.quietSeq, p.quietN = r.seq, r.n
}

// maxQuiet is the furthest past Peer.quietFrom a quiet mark reaches.
const maxQuiet = math.MaxUint16

// quietAt reports whether a quiet mark says a slot was found with nothing
// to say at a round no older than chg (see quiets).
func (p *Peer) quietAt(mark uint16, chg uint64) bool {
	return mark != 0 && chg <= p.quietFrom+uint64(mark)
}

// quietMark returns the mark of round n, the round being written.
func (p *Peer) quietMark(n uint64) uint16 { return uint16(n - p.quietFrom) }

// baseOrNew returns slot's baseline, creating an empty one.
func (p *Peer) baseOrNew(slot uint32) *slotBase {
	return &p.bases[p.baseIndexOrNew(slot)]
}

// baseIndexOrNew returns the index in bases (and quiets) of slot's
// baseline, creating an empty one.
func (p *Peer) baseIndexOrNew(slot uint32) int {
	if i := p.index.get(slot); i > 0 {
		return int(i - 1)
	}
	if len(p.bases) == cap(p.bases) {
		p.fitBases(len(p.bases) + 1)
	}
	p.bases = append(p.bases, slotBase{slot: slot})
	p.quiets = append(p.quiets, 0)
	p.index.set(slot, int32(len(p.bases)))
	return len(p.bases) - 1
}

// fitBases gives bases and quiets room for at least need slots, sized to
// the world the last Write saw: every connection comes to hold a baseline
// for nearly every slot in the world, so growing by doubling would leave
// up to half of each connection's largest array unused, and the arrays it
// outgrew as garbage at every join. Before the first Write (and without a
// Reserve) it grows by halves; once a round is known, to the round's
// entities.
func (p *Peer) fitBases(need int) {
	if p.round != nil {
		need = max(need, len(p.round.ents))
	} else {
		need = max(need, len(p.bases)+len(p.bases)/2, 16)
	}
	p.Reserve(need)
}

// Reserve gives the baseline room for n slots, and a sixteenth more so
// that a world that spawns as it plays regrows it rarely. The host passes
// the size of the world a new connection joins, before Hold: the baseline
// is then allocated once, rather than grown (and the arrays it outgrew
// left as garbage) as the join's first snapshots describe the world to
// every new player at once. It changes nothing else.
func (p *Peer) Reserve(n int) {
	n += n/16 + 8
	if n <= cap(p.bases) {
		return
	}
	bases := make([]slotBase, len(p.bases), n)
	copy(bases, p.bases)
	quiets := make([]uint16, len(p.quiets), n)
	copy(quiets, p.quiets)
	p.bases, p.quiets = bases, quiets
}

// Sent binds the claims of the last Write to seq, the sequence of the
// packet that carried its snapshot. A Write not followed by Sent (the
// packet was never sent) claims nothing: the next Write replaces it.
func (p *Peer) Sent(seq wire.Seq) {
	c := p.draft
	if c == nil {
		return
	}
	p.draft = nil
	p.orders++
	c.seq, c.order = seq, p.orders
	p.sentHeader(c)
	p.sentOwn, p.sentCommands = c.own, c.commands
	if len(p.pending) == maxPending {
		p.lose(p.pending[0])
		p.free = append(p.free, p.pending[0])
		copy(p.pending, p.pending[1:])
		p.pending = p.pending[:len(p.pending)-1]
	}
	p.pending = append(p.pending, c)
}

// Acknowledge settles every snapshot in flight that a has an answer for:
// an acknowledged one is folded into the baseline (in send order), a lost
// one dropped. Call it each round before Write.
//
// An acknowledgement of a snapshot older than one already folded is taken
// as a loss: the receiver applies ever newer packets only, so folding it
// late could undo what the newer one said. A transport that refuses stale
// packets never gives such an answer.
func (p *Peer) Acknowledge(a Acks) {
	p.trimClaims()
	kept := p.pending[:0]
	for _, c := range p.pending {
		acked, known := a.Acked(c.seq)
		switch {
		case acked && c.order > p.folded:
			p.fold(c)
			p.ackHeader(c)
		case acked || !known || a.Lost(c.seq):
			p.lose(c)
		default:
			kept = append(kept, c)
			continue
		}
		p.free = append(p.free, c)
	}
	clear(p.pending[len(kept):])
	p.pending = kept
}

// claimWindow is how many rounds (Acknowledges) the free claims are
// measured over before those the window did not need are let go: four
// seconds at 64 rounds a second, long enough that a link whose rounds in
// flight rise and fall (a loaded machine's, a jittery one's) keeps what
// it keeps needing rather than making it anew. Tuning constant.
const claimWindow = 256

// trimClaims keeps, once a window, only as many claims (in flight and
// free) as the window's fullest round held, and one for the next Write.
// The free claims are those that came back: a claim keeps the room of the
// largest snapshot it described, and the rounds in flight at a join, when
// a client is slow to answer its first snapshots, outnumber the steady
// state's several times over (about 20 against 1 to 3 for each of a
// crowd's 64 players, 9.5 KB a claim), so without it the join's
// high-water mark would be held for good. A steady link needs no more
// than the window before it did, so trimming allocates nothing there; a
// stall that puts more in flight makes new claims, as a join did.
func (p *Peer) trimClaims() {
	p.flightPeak = max(p.flightPeak, len(p.pending))
	if p.rounds++; p.rounds%claimWindow != 0 {
		return
	}
	if keep := max(p.flightPeak+1-len(p.pending), 0); len(p.free) > keep {
		clear(p.free[keep:])
		p.free = p.free[:keep]
	}
	p.flightPeak = len(p.pending)
}

// fold applies an acknowledged claim to the baseline exactly as the
// receiver applied the snapshot: removals, then entries. A fresh entry
// makes the slot's occupant exactly what it lists.
func (p *Peer) fold(c *claim) {
	p.folded = c.order
	for _, id := range c.rem {
		if b := p.base(id.Slot); b != nil && b.occ == id {
			b.occ, b.ref = entity.None, turnRef{}
			p.unhush(b)
			p.occMoved(id.Slot)
			p.resetComps(b, c.order)
		}
		p.dropDoubt(id.Slot, func(d *doubt) bool { return d.id == id })
	}
	first := int32(0)
	for i := range c.ents {
		e := &c.ents[i]
		bi := int(e.base)
		if bi < 0 {
			bi = p.baseIndexOrNew(e.id.Slot)
		}
		b := &p.bases[bi]
		p.unhushAt(bi)
		if e.fresh || b.occ != e.id {
			// A delta for an occupant the baseline does not hold says only
			// part of what the receiver holds: trust none of the rest.
			suspect := !e.fresh
			b.occ, b.ref = e.id, turnRef{}
			p.occMoved(e.id.Slot)
			p.resetComps(b, c.order)
			if suspect {
				p.markUnknown(b, c.order)
			}
		}
		for ci := first; ci < e.end; ci++ {
			cc := c.comps[ci]
			bc := b.compFor(cc.typ())
			if bc.state() == unknown && bc.order() > c.order {
				continue // a newer snapshot that may have been applied touched it
			}
			if cc.present() {
				bc.set(present, c.order)
				bc.ver = c.vers[ci]
			} else {
				bc.set(absent, c.order)
			}
		}
		first = e.end
		if e.hasTurn {
			b.ref = turnRef{tick: c.tick, t: e.turn, ok: true}
		}
		if len(p.doubts) > 0 {
			p.settleDoubts(b, e, c.order)
		}
	}
}

// maxRemMoved is the most occupants the baseline changes before the next
// look for removals visits every slot rather than those (see remMoved).
const maxRemMoved = 64

// occMoved records that the baseline's occupant of slot has changed.
func (p *Peer) occMoved(slot uint32) {
	switch {
	case p.remQuiet == 0:
	case len(p.remMoved) == maxRemMoved:
		p.remQuiet, p.remMoved = 0, p.remMoved[:0]
	default:
		p.remMoved = append(p.remMoved, slot)
	}
}

// settleDoubts resolves the doubts at an entry's slot once the entry is
// confirmed. A fresh entry newer than a doubt replaced whatever the receiver
// held, so the doubt is gone. A doubt about the entry's own occupant that
// the entry does not settle becomes doubt about all its components.
func (p *Peer) settleDoubts(b *slotBase, e *claimEnt, order uint64) {
	if len(p.doubts) == 0 {
		return // the usual case: nothing to settle
	}
	p.dropDoubt(e.id.Slot, func(d *doubt) bool {
		settled := e.fresh && order > d.since
		if d.id == e.id && !settled {
			p.markUnknown(b, d.since)
			return true
		}
		return settled
	})
}

// lose drops a claim whose snapshot will never be acknowledged. It may still
// have been applied (every acknowledgement of it lost on the way back), so
// whatever it touched is marked unknown and will be said again: a lost
// snapshot costs a resend, never a missing value.
func (p *Peer) lose(c *claim) {
	for i := range c.ents {
		e := &c.ents[i]
		bi := int(e.base)
		if bi < 0 {
			bi = int(p.index.get(e.id.Slot)) - 1
		}
		if bi < 0 || p.bases[bi].occ != e.id {
			p.addDoubt(e.id, c.order)
			continue
		}
		b := &p.bases[bi]
		p.unhushAt(bi)
		if e.fresh {
			b.compFor(p.ntypes - 1)
			for t := range b.ntypes {
				doubtOne(b.at(int(t)), c.order)
			}
			continue
		}
		for _, cc := range c.comps[c.first(i):e.end] {
			doubtOne(b.compFor(cc.typ()), c.order)
		}
	}
}

// doubtOne marks a component a lost snapshot touched unknown, unless a
// newer snapshot's word on it has been confirmed since: the receiver
// applies ever newer packets only, so whatever the lost one may have set
// was overwritten by the confirmed one. Without that exception every loss
// would put settled values back in doubt a round trip later, and on a
// lossy link their resends, losing in turn, would keep a settled world
// talking for good.
func doubtOne(bc *baseComp, order uint64) {
	if bc.state() != unknown && bc.order() > order {
		return
	}
	markOne(bc, order)
}

// resetComps empties a slot's components, keeping those a newer lost
// snapshot left unknown.
func (p *Peer) resetComps(b *slotBase, order uint64) {
	for t := range b.ntypes {
		if bc := b.at(int(t)); bc.state() != unknown || bc.order() <= order {
			bc.set(absent, order)
		}
	}
}

// markUnknown puts every type of b's occupant in doubt, those no claim
// has named included.
func (p *Peer) markUnknown(b *slotBase, since uint64) {
	b.compFor(p.ntypes - 1)
	for t := range b.ntypes {
		markOne(b.at(int(t)), since)
	}
}

// comp returns b's state of wire type t, or nil for a type beyond its
// comps (confirmed absent).
func (b *slotBase) comp(t int) *baseComp {
	if t < int(b.ntypes) {
		return b.at(t)
	}
	return nil
}

// baseHead is how many wire types a slotBase holds in itself.
const baseHead = 2

// at returns b's state of wire type t, which must be below b.ntypes.
func (b *slotBase) at(t int) *baseComp {
	if t < baseHead {
		return &b.head[t]
	}
	return &b.tail.c[t-baseHead]
}

// truncate forgets every type's state (each is then confirmed absent).
func (b *slotBase) truncate() {
	b.ntypes = 0
	if b.tail != nil {
		b.tail.c = b.tail.c[:0]
	}
}

// compFor returns b's state of wire type t, first lengthening b's comps to
// hold it (the new ones absent).
func (b *slotBase) compFor(t int) *baseComp {
	for int(b.ntypes) <= t {
		if b.ntypes < baseHead {
			b.head[b.ntypes] = baseComp{}
		} else {
			if b.tail == nil {
				b.tail = new(baseTail)
			}
			b.tail.c = append(b.tail.c, baseComp{})
		}
		b.ntypes++
	}
	return b.at(t)
}

func markOne(bc *baseComp, since uint64) {
	order := bc.order()
	if bc.state() != unknown || order < since {
		order = since
	}
	bc.set(unknown, order)
}

func (p *Peer) addDoubt(id entity.ID, since uint64) {
	p.remQuiet = 0
	for i := range p.doubts {
		if d := &p.doubts[i]; d.slot == id.Slot && d.id == id {
			d.since = max(d.since, since)
			return
		}
	}
	p.doubts = append(p.doubts, doubtAt{slot: id.Slot, doubt: doubt{id: id, since: since}})
}

// dropDoubt removes the doubts at slot that drop reports true for.
func (p *Peer) dropDoubt(slot uint32, drop func(*doubt) bool) {
	kept := p.doubts[:0]
	for _, d := range p.doubts {
		if d.slot != slot || !drop(&d.doubt) {
			kept = append(kept, d)
		}
	}
	if len(kept) != len(p.doubts) {
		p.remQuiet = 0
	}
	p.doubts = kept
}

// newClaim returns an empty claim from the free list.
func (p *Peer) newClaim() *claim {
	if p.draft != nil {
		c := p.draft
		p.draft = nil
		c.reset()
		return c
	}
	if n := len(p.free); n > 0 {
		c := p.free[n-1]
		p.free = p.free[:n-1]
		c.reset()
		return c
	}
	return new(claim)
}

// sameBits reports whether a confirmed component holds exactly the bits of
// the round's component rc (by their versions: see roundComp).
func (bc *baseComp) sameBits(rc *roundComp) bool {
	return bc.state() == present && bc.ver == rc.ver
}

package replication

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"vkm/internal/entity"
	"vkm/wire"
)

// Header widths (protocol constants; see the package doc for the layout).
const (
	tickBits     = 32
	shortBits    = 16 // the short forms of the tick, newest and judged
	lowWaterBits = 4
	maxLowWater  = 1<<lowWaterBits - 1
	// maxShortAhead is the furthest a short tick may be past the newest
	// acknowledged snapshot's: the receiver resolves the low bits to the
	// value nearest its reference, within 2^15 − 1 either way.
	maxShortAhead = 1<<(shortBits-1) - 1
)

// action is what an entry says of one component type.
type action uint8

const (
	actNone   action = iota
	actWrite         // the component's bits follow
	actRemove        // the entity no longer has it
)

// candidate is an entity with something to say, waiting for room. Once
// planned, its plan is pls[at] and candActs[acts:] of the Write's
// scratch, kept in the order the plans were made: a lazy candidate (see
// lazy plans) takes no room for a plan until it is made, and a busy
// world's snapshot never plans most of them.
type candidate struct {
	ent  int32  // in the round
	base int32  // its slot's baseline, in Peer.bases
	prio uint32 // its accumulated priority, this Write's round included
	bits int32  // its entry, continuation bit included; negative: lazy
	at   int32  // its plan's place, once planned
	// acts is where its plan's actions start in candActs, or -1 for a
	// moving-body entry, whose emit reads none: they are a Transform and
	// a Rigidbody written and nothing else.
	acts int32
}

// planned is what a plan found besides its actions and width, kept so
// that the entry is written without working it out again: whether the
// entry is fresh, whether it takes the moving-body form, and, when it
// does, how its turn goes.
type planned struct {
	fresh, moving bool
	delta         bool  // the entry is the round's assembled one (roundEnt.dBits)
	top           int32 // no type from top on has an action
	turn          turnChoice
}

// writeScratch is what one Write works in and then forgets: its
// candidates, their plans and their ranks. Peers share scratches through a
// pool rather than each keeping its own between Writes: on a crowded
// server 64 connections' candidate lists were a fifth of the live heap.
type writeScratch struct {
	cands    []candidate // in slot order
	pls      []planned   // their plans' findings, in the order made
	candActs []action    // their plans' actions, ntypes each, in the same order
	ranks    []uint64    // their ranks (see Relevance)
	visit    []uint64    // the entities to visit, by index in the round's ents
	// rankOrder's: the candidates' pairs, each candidate's pair, the
	// pairs highest first, and the order.
	keys  []rankCount
	keyOf []uint8
	byKey []uint8
	order []int32
}

var scratches = sync.Pool{New: func() any { return new(writeScratch) }}

// Relevance: a snapshot that cannot hold every entity with something to
// say fills by rank, and an entity's rank is its accumulated priority (the
// rounds it has waited with something to say, so what was deferred goes
// before anything written last round, and nothing starves), then its
// nearness to the connection's own entity (so of the entities that have
// waited equally, those near the player go first, and a mover far away is
// the one that waits a round). A rank packs the three into one word, which
// sorts as a plain integer:
//
//	priority (rankPrioBits) | nearness (16) | candidate index, inverted (24)
//
// Nearness is the top 16 bits of the squared distance's float32 pattern
// (sign, exponent, 7 mantissa bits: monotonic for a non-negative float, to
// within 1 %), inverted; an entity without a position, or a connection
// without a placed own entity, is nearest of all. Ties go to the lower
// slot, as candidates are gathered in slot order.
const (
	rankIndexBits = 24 // entity.MaxSlot+1 candidates at most
	rankNearBits  = 16
	rankPrioBits  = 64 - rankIndexBits - rankNearBits
	maxPrio       = 1<<rankPrioBits - 1
)

// Reach is how far a connection's snapshots look every round. An entity
// farther than Near metres from the connection's own entity is considered
// one round in Every, the rounds spread over slots so that about as many
// far entities come up each round; one within Near, every round. On a
// level much larger than what a player is shown, a server otherwise spends
// each snapshot's bytes, and its own time, on entities none of its players
// can see: in the crowd (64 players in a 256 m hall, the reference
// client's view 32 m wide), a snapshot held a fifth of the entities with
// something to say, near and far alike, so every mover in view was told
// of one round in four or five. A far entity is not forgotten, only told
// of less often, so everything still converges and a settled world still
// goes quiet; an entity coming into reach is considered from the round it
// does.
//
// Rounds are counted by the Peer's own Writes, so every slot comes up once
// in Every Writes whatever numbering the server gives its rounds. An
// entity without a position, and every entity when the connection has no
// own entity placed, is near. The zero Reach, a new Peer's, makes every
// entity near: what a level the size of the view wants.
type Reach struct {
	Near  float64 // metres; 0 (or less) makes every entity near
	Every int     // a far entity is considered one round in Every; ≤ 1 is every round
}

// ReachEvery is the Every a project's reach is served with: a far entity
// is told of 16 times a second at 64 snapshots a second, a quarter of the
// rounds, which is what a crowd's snapshots managed for everything before.
// Tuning constant.
const ReachEvery = 4

// SetReach sets how far the connection's snapshots look every round.
func (p *Peer) SetReach(r Reach) {
	p.nearSq, p.every = 0, 1
	if r.Near > 0 && r.Every > 1 {
		p.nearSq, p.every = float32(r.Near*r.Near), uint64(r.Every)
	}
}

// farOff reports whether e is out of reach this Write: farther than Near
// from the own entity at (ox, oy), on a round that is not its own.
func (p *Peer) farOff(e *roundEnt, ox, oy float32) bool {
	dx, dy := e.x-ox, e.y-oy
	if !(dx*dx+dy*dy > p.nearSq) { // NaN: near, as an entity without a position is
		return false
	}
	k := p.writes + uint64(e.id.Slot)
	if p.every&(p.every-1) == 0 {
		return k&(p.every-1) != 0 // no division for a power of two, the usual Every
	}
	return k%p.every != 0
}

// rank returns a candidate's sort key (see Relevance).
func rank(prio uint32, near uint16, index int) uint64 {
	return uint64(prio)<<(rankNearBits+rankIndexBits) | uint64(near)<<rankIndexBits | uint64(1<<rankIndexBits-1-index)
}

// nearness returns the 16-bit nearness of an entity at (x, y) to a
// connection whose own entity is at (ox, oy).
func nearness(x, y, ox, oy float32) uint16 {
	dx, dy := x-ox, y-oy
	d2 := dx*dx + dy*dy
	if !(d2 >= 0) { // NaN: no distance to speak of
		return 0
	}
	return ^uint16(math.Float32bits(d2) >> 16)
}

// WriteStats describes the last snapshot a Peer wrote.
type WriteStats struct {
	Bytes            int  // the payload's length
	Removals         int  // occupants reported gone
	RemovalsDeferred int  // removals that did not fit (said next time)
	Entries          int  // entries written, the own entity's included
	Deferred         int  // entities with something to say that did not fit
	OwnWritten       bool // the own entity's entry is in it
	// News says the snapshot tells the connection something it has not
	// confirmed, or would have but for the budget: a removal, an entry
	// other than the own entity's, an own entity whose bits differ from
	// the confirmed ones, or another own occupant or command presence than
	// the last snapshot sent; or a snapshot in flight had news, until it
	// is answered. A snapshot without news repeats the connection's
	// confirmed world; only its command feedback is new. (A snapshot in
	// flight is judged lost only once 32 newer ones are acknowledged, and
	// one that carried news and is lost puts what it said in doubt, so a
	// sender that slows down for snapshots without news waits for those
	// answers at full rate.)
	News bool
}

// Stats returns what the last Write wrote.
func (p *Peer) Stats() WriteStats { return p.stats }

// Write appends one snapshot payload for this connection to dst and returns
// it; at most budget bytes are appended. r is this round's world and own the
// connection's own entity (entity.None for none). The snapshot holds, in
// order:
//
//   - the header: the round's tick, own, and the command feedback, each in
//     a short form where the receiver can resolve it (see writeHeader);
//   - removals: each occupant the connection holds (confirmed, or possibly
//     held after a lost snapshot) that is no longer the round's occupant of
//     its slot, until the report is confirmed;
//   - the own entity, every snapshot, with all its components moved or
//     not (its NetSpawn only until confirmed, like anyone's), never
//     deferred;
//   - other entities whose quantised bits differ from what the connection
//     has confirmed, by accumulated priority, as many as fit. Only the
//     components that differ are written (a component the entity lost is
//     marked removed); an occupant the connection does not hold is written
//     whole, marked fresh. What does not fit waits, its priority rising by
//     one each round it waits, so it goes before newer news next time.
//
// A budget too small for the header appends nothing. An own entity too
// large for the budget (a schema no datagram can carry) is left out, which
// Stats reports. The claims of what was written are held until Sent binds
// them to the packet's sequence.
func (p *Peer) Write(dst []byte, r *Round, own entity.ID, budget int) []byte {
	if r.schema != p.schema {
		panic("replication: Peer.Write with a Round over another schema")
	}
	r.seal()
	if r != p.round || r.n-p.quietFrom > maxQuiet {
		// Quiet marks count in one Round's numbers, from quietFrom.
		if r != p.round {
			p.round, p.remQuiet, p.remMoved = r, 0, p.remMoved[:0]
		}
		clear(p.quiets)
		p.quietFrom = r.n - min(r.n, 1) // a round not begun (0) marks nothing
		p.quietSeq = 0
	}
	p.syncQuiet(r)
	p.writes++
	p.hdrGap = p.headerGap(r.tick)
	c := p.newClaim()
	p.stats = WriteStats{}
	p.blocked = p.blocked[:0]
	limit := 8 * budget
	w := &p.w
	w.ResetOwned(p.buf)
	p.writeHeader(w, r.tick, own)
	if w.Len() > limit {
		p.buf = w.Bytes()[:0]
		p.free = append(p.free, c)
		return dst
	}
	p.draft = c
	c.own, c.commands, c.tick = own, p.hasCommands, r.tick
	news := own != p.sentOwn || p.hasCommands != p.sentCommands

	ownAt := -1
	ownBits := 0
	if !own.IsNone() {
		if i := r.index(own); i >= 0 && r.ents[i].silence != InInstance {
			ownAt = i
			if !news {
				bits, _ := p.plan(r, &r.ents[i], false)
				news = bits != 0
			}
			ownBits, _ = p.plan(r, &r.ents[i], true)
		}
	}
	reserve := 1 + ownBits + 1 // removals' end, the own entry, entries' end
	if w.Len()+reserve > limit {
		ownAt, reserve = -1, 2
	}
	p.writeRemovals(w, r, c, limit-reserve)
	w.WriteBool(false)
	if ownAt >= 0 {
		p.emit(w, r, &r.ents[ownAt], c, int(p.index.get(own.Slot))-1)
		p.stats.OwnWritten = true
	}
	p.writeOthers(w, r, ownAt, c, limit-1)
	w.WriteBool(false)
	p.buf = w.Bytes()
	st := &p.stats
	st.Bytes = len(p.buf)
	ownEntries := 0
	if st.OwnWritten {
		ownEntries = 1
	}
	st.News = news || ownAt >= 0 && !st.OwnWritten || st.Removals+st.RemovalsDeferred+st.Deferred > 0 || st.Entries > ownEntries
	c.news = st.News
	for _, pc := range p.pending {
		st.News = st.News || pc.news
	}
	return append(dst, p.buf...)
}

// writeHeader writes the header (see the package doc, "Header"): the full
// bit, the tick in 32 bits or its low 16, the own occupant stated or said
// to be the last one stated, and the command feedback with newest and
// judged in the same width as the tick, then low water 4.
func (p *Peer) writeHeader(w *wire.Writer, tick uint32, own entity.ID) {
	full := !p.shortTick(tick) || p.hasCommands && p.commands.Judged == 0
	width := shortBits
	if full {
		width = tickBits
	}
	w.WriteBool(full)
	w.WriteBits(uint64(tick), width)
	stated := p.statesOwn(own)
	w.WriteBool(stated)
	if stated {
		w.WriteBool(!own.IsNone())
		if !own.IsNone() {
			writeID(w, own)
		}
	}
	w.WriteBool(p.hasCommands)
	if p.hasCommands {
		w.WriteBits(uint64(p.commands.Newest), width)
		w.WriteBits(uint64(p.commands.Judged), width)
		w.WriteBits(uint64(min(p.commands.LowWater, maxLowWater)), lowWaterBits)
	}
	w.WriteBool(p.hdrGap != 0)
	if p.hdrGap != 0 {
		w.WriteBits(uint64(p.hdrGap-1), turnGapBits)
	}
}

// headerGap returns the gap, in ticks, the header of a snapshot of tick
// names for the turns predicted from the newest acknowledged snapshot's
// states (most of them): tick less that snapshot's, when it is 1 to
// MaxTurnGap; 0 (none named) otherwise, or with no tick rate set.
func (p *Peer) headerGap(tick uint32) int {
	if p.ackOrder == 0 || p.tickRate <= 0 {
		return 0
	}
	if g := int32(tick - p.ackTick); g >= 1 && g <= MaxTurnGap {
		return int(g)
	}
	return 0
}

// refOf returns the state of e's turn the connection has acknowledged,
// when it holds e.
func (p *Peer) refOf(b *slotBase, e *roundEnt, fresh bool) turnRef {
	if fresh || b == nil || b.occ != e.id {
		return turnRef{}
	}
	return b.ref
}

// SetTickRate sets the server's ticks a second, which a moving body's
// predicted state is reckoned in (see turn.go). Until it is set, every
// moving body's state goes whole.
func (p *Peer) SetTickRate(hz int) { p.tickRate = float64(hz) }

// shortTick reports whether tick may go in its short form: the receiver's
// reference is the tick of the newest snapshot it has read, which is the
// acknowledged snapshot of the highest order or one sent after it. When no
// sent tick has gone below its predecessor's since that one, and tick is
// not below the last sent, every such reference lies between the
// acknowledged tick and tick, so tick is at most maxShortAhead past any of
// them once it is at most that past the acknowledged one.
func (p *Peer) shortTick(tick uint32) bool {
	return p.ackOrder != 0 && p.backOrder <= p.ackOrder && tick >= p.sentTick && tick-p.ackTick <= maxShortAhead
}

// statesOwn reports whether the header states own rather than saying "the
// same as the last stated": it does unless own is the occupant of the
// current run (the snapshots sent since the own occupant last changed) and
// the connection has acknowledged a snapshot of that run. The receiver
// reads snapshots in send order only, so once it has read that one, every
// snapshot it reads after it, up to this one, is of the run too and named
// own, stated or not.
func (p *Peer) statesOwn(own entity.ID) bool {
	return !p.ownKnown || own != p.sentOwn
}

// ackHeader takes what an acknowledged snapshot (c, folded in send order)
// tells of the references its receiver holds.
func (p *Peer) ackHeader(c *claim) {
	if c.order > p.ackOrder {
		p.ackOrder, p.ackTick = c.order, c.tick
	}
	if p.ownRun != 0 && c.order >= p.ownRun {
		p.ownKnown = true
	}
}

// sentHeader records the header of c, just sent, for the short forms.
func (p *Peer) sentHeader(c *claim) {
	if p.ownRun == 0 || c.own != p.sentOwn {
		p.ownRun, p.ownKnown = c.order, false
	}
	if c.order > 1 && c.tick < p.sentTick {
		p.backOrder = c.order
	}
	p.sentTick = c.tick
}

// writeRemovals reports each occupant the connection holds or may hold that
// the round no longer has at its slot, while they fit in limit bits. A slot
// whose removal did not fit is blocked: its newcomer waits for a snapshot
// that can say the removal first.
func (p *Peer) writeRemovals(w *wire.Writer, r *Round, c *claim, limit int) {
	if p.remQuiet != 0 && r.occupiedSince() <= p.remQuiet && len(p.remMoved) == 0 {
		return // the same occupants on both sides as when none was found
	}
	defer func() {
		if len(c.rem) == 0 && len(p.blocked) == 0 {
			p.remQuiet, p.remMoved = r.n, p.remMoved[:0]
		}
	}()
	var moved []occChange
	all := p.remQuiet == 0
	if !all {
		moved, all = r.occChangedSince(p.remQuiet)
		all = !all
	}
	if all {
		for i := range p.bases {
			p.removalAt(w, r, i, c, limit)
		}
	} else {
		// Only an occupant changed on either side since the last look
		// found none can differ now: those slots' entries, in the order
		// the whole baseline would be looked at in.
		at := p.remAt[:0]
		for _, slot := range p.remMoved {
			if i := p.index.get(slot); i > 0 {
				at = append(at, i-1)
			}
		}
		for _, m := range moved {
			if i := p.index.get(m.slot); i > 0 {
				at = append(at, i-1)
			}
		}
		slices.Sort(at)
		at = slices.Compact(at)
		for _, i := range at {
			p.removalAt(w, r, int(i), c, limit)
		}
		p.remAt = at
	}
	for _, d := range p.doubts {
		if r.occupant(d.slot) == d.id {
			continue // alive: it is written fresh instead
		}
		if b := p.base(d.slot); b != nil && b.occ == d.id {
			continue // already reported from the baseline
		}
		p.writeRemoval(w, d.id, c, limit)
	}
}

// removalAt reports the occupant of the i-th baseline entry when the
// round no longer has it at its slot.
func (p *Peer) removalAt(w *wire.Writer, r *Round, i int, c *claim, limit int) {
	if b := &p.bases[i]; !b.occ.IsNone() && r.occupant(b.slot) != b.occ {
		p.writeRemoval(w, b.occ, c, limit)
	}
}

func (p *Peer) writeRemoval(w *wire.Writer, id entity.ID, c *claim, limit int) {
	if w.Len()+1+idBits(id) > limit {
		p.blocked = append(p.blocked, id.Slot)
		p.stats.RemovalsDeferred++
		return
	}
	w.WriteBool(true)
	writeID(w, id)
	c.rem = append(c.rem, id)
	p.stats.Removals++
}

// writeOthers writes the entities other than the own one that have
// something to say, while they fit in limit bits: all of them, in slot
// order, when they fit; otherwise by rank (see Relevance), skipping what
// does not fit.
func (p *Peer) writeOthers(w *wire.Writer, r *Round, ownAt int, c *claim, limit int) {
	sc := scratches.Get().(*writeScratch)
	defer scratches.Put(sc)
	sc.cands, sc.pls, sc.candActs, sc.ranks = sc.cands[:0], sc.pls[:0], sc.candActs[:0], sc.ranks[:0]
	ox, oy, placed := p.center(r, ownAt)
	reach := placed && p.every > 1
	total := 0   // the planned candidates' bits
	lazyLow := 0 // the least the lazy ones take (see lazy plans)
	// Not the entities whose quiet mark holds: described as they were
	// when the plan last found nothing to say, to a baseline untouched
	// since, they have nothing to say again (see quietSet).
	var visit []uint64
	if reach {
		visit = p.reachVisits(r, sc, ox, oy, p.quietSet)
	}
	if visit == nil {
		visit = zeroed(sc.visit, len(p.quietSet))
		for w := range visit {
			visit[w] = ^p.quietSet[w]
		}
		if n := len(r.ents) & 63; n != 0 {
			visit[len(visit)-1] &= 1<<n - 1
		}
		sc.visit = visit
	}
	for i := -1; ; {
		if i = nextVisit(visit, i+1); i < 0 {
			break
		}
		e := &r.ents[i]
		if i == ownAt || e.silence == InInstance {
			continue
		}
		if reach && e.placed && p.farOff(e, ox, oy) {
			continue // out of reach this round (see Reach)
		}
		var b *slotBase
		bi := int(p.index.get(e.id.Slot)) - 1
		if bi >= 0 {
			b = &p.bases[bi]
		}
		var bits int
		if low := int(e.news); low > 0 && !p.eagerPlans {
			// News to every connection (see lazy plans): planned only if
			// it may fit.
			bits = -low
			lazyLow += low
		} else {
			bits, _ = p.planOf(r, e, b, false)
			if bits == 0 {
				if b != nil {
					b.prio, p.quiets[bi] = 0, p.quietMark(r.n)
					p.quietSet[i>>6] |= 1 << (i & 63)
				}
				continue
			}
			total += bits
		}
		if b == nil {
			bi = p.baseIndexOrNew(e.id.Slot)
			b = &p.bases[bi]
		}
		if b.prio < maxPrio {
			b.prio++
		}
		if len(p.blocked) > 0 && slices.Contains(p.blocked, e.id.Slot) {
			p.stats.Deferred++
			continue
		}
		cd := candidate{ent: int32(i), base: int32(bi), prio: b.prio, bits: int32(bits)}
		if bits > 0 {
			// A lazy plan's actions and findings are kept when it is made.
			cd.at, cd.acts = sc.keepPlan(p)
		}
		sc.cands = append(sc.cands, cd)
	}
	if w.Len()+total+lazyLow <= limit && p.writeInOrder(w, r, sc, c, limit, total+lazyLow) {
		return
	}
	// They do not all fit: their ranks (see Relevance), and the least
	// width of any.
	least := math.MaxInt
	for j := range sc.cands {
		cd := &sc.cands[j]
		e := &r.ents[cd.ent]
		near := uint16(math.MaxUint16)
		if placed && e.placed {
			near = nearness(e.x, e.y, ox, oy)
		}
		least = min(least, max(int(cd.bits), -int(cd.bits)))
		sc.ranks = append(sc.ranks, rank(cd.prio, near, j))
	}
	// Highest rank first, taken from a heap rather than sorting every
	// candidate: once the room left is less than the narrowest candidate's
	// least width, nothing more fits, and the rest are only counted. A
	// busy world's snapshot holds a fifth of what moves, so most are never
	// ordered at all; the order of those that are is the sort's.
	//
	// When the candidates' ranks hold few priorities and nearnesses (a
	// connection with no placed entity of its own has one nearness for
	// all), they are put in order at once by those instead (rankOrder), in
	// two passes over them: the same order as the heap's.
	ranks := sc.ranks
	order := sc.rankOrder(ranks, p.heapRanks)
	if order == nil {
		heapifyRanks(ranks)
	}
	for k := 0; ; k++ {
		left := len(ranks)
		if order != nil {
			left = len(order) - k
		}
		if left == 0 {
			break
		}
		if limit-w.Len() < least {
			p.stats.Deferred += left
			break
		}
		var i int
		if order != nil {
			i = int(order[k])
		} else {
			var top uint64
			top, ranks = popRank(ranks)
			i = 1<<rankIndexBits - 1 - int(top&(1<<rankIndexBits-1))
		}
		if b := int(sc.cands[i].bits); b < 0 && w.Len()-b > limit {
			p.stats.Deferred++ // not even its news fits: no need to plan it
			continue
		}
		if w.Len()+p.planCandidate(r, sc, i) > limit {
			p.stats.Deferred++
			continue
		}
		p.emitCandidate(w, r, sc, i, c)
	}
}

// writeInOrder writes every candidate in slot order, when they all fit
// in limit bits, and reports whether they did. least is the planned
// candidates' width and the lazy ones' news (see lazy plans), no more
// than what they all take. Each lazy plan is made as its candidate's turn
// comes and written at once, not kept and copied back; as soon as the
// plans made, with the news of those still lazy, exceed limit, what was
// written is undone (the bits, the claim's entries, the counts, the
// priorities reset) and it reports false, the candidates as they were,
// to be written by rank. So it writes exactly when every plan made up
// front would show that all fit, and then what they would have written.
func (p *Peer) writeInOrder(w *wire.Writer, r *Round, sc *writeScratch, c *claim, limit, least int) bool {
	need := w.Len() + least // the plans made so far, and the rest's news
	from := w.Len()
	ents, comps, vers := len(c.ents), len(c.comps), len(c.vers)
	entries, watched := p.stats.Entries, p.watch
	for i := range sc.cands {
		cd := &sc.cands[i]
		e := &r.ents[cd.ent]
		if cd.bits < 0 {
			bits, _ := p.planOf(r, e, &p.bases[cd.base], false)
			if need += bits + int(cd.bits); need > limit {
				w.Truncate(from)
				c.ents, c.comps, c.vers = c.ents[:ents], c.comps[:comps], c.vers[:vers]
				p.stats.Entries, p.watch = entries, watched
				for j := range i {
					p.bases[sc.cands[j].base].prio = sc.cands[j].prio
				}
				return false
			}
		} else {
			p.restorePlan(sc, cd)
		}
		p.emit(w, r, e, c, int(cd.base))
		p.bases[cd.base].prio = 0
	}
	return true
}

// rankKeys is the most distinct priority and nearness pairs among a
// Write's candidates that rankOrder puts in order; with more, the heap
// does. Tuning constant: a pair costs a step of a linear search for each
// candidate.
const rankKeys = 16

// rankOrder returns the indices of the candidates whose ranks are ranks
// (the j-th candidate's at j, as writeOthers gathers them), highest rank
// first, or nil when they hold more than rankKeys distinct pairs of
// priority and nearness (or heap is set). A rank's lowest bits are its
// candidate's index inverted, so among the candidates of one pair the
// lower index ranks higher: counted into their pair's place in index
// order, they come out in the order of their ranks, all distinct.
func (sc *writeScratch) rankOrder(ranks []uint64, heap bool) []int32 {
	if heap {
		return nil
	}
	keys := sc.keys[:0]
	sc.keyOf = slices.Grow(sc.keyOf[:0], len(ranks))[:len(ranks)]
	last := 0
	for j, rk := range ranks {
		k := rk >> rankIndexBits
		if last >= len(keys) || keys[last].key != k {
			last = slices.IndexFunc(keys, func(c rankCount) bool { return c.key == k })
			if last < 0 {
				if len(keys) == rankKeys {
					sc.keys = keys
					return nil
				}
				last = len(keys)
				keys = append(keys, rankCount{key: k})
			}
		}
		keys[last].n++
		sc.keyOf[j] = uint8(last)
	}
	sc.keys = keys
	// The pairs, highest first (few: by insertion), then each pair's
	// first place in the order.
	byKey := sc.byKey[:0]
	for i := range keys {
		byKey = append(byKey, uint8(i))
		for j := len(byKey) - 1; j > 0 && keys[byKey[j-1]].key < keys[byKey[j]].key; j-- {
			byKey[j-1], byKey[j] = byKey[j], byKey[j-1]
		}
	}
	sc.byKey = byKey
	at := int32(0)
	for _, i := range byKey {
		keys[i].n, at = at, at+keys[i].n
	}
	order := slices.Grow(sc.order[:0], len(ranks))[:len(ranks)]
	for j, i := range sc.keyOf {
		order[keys[i].n] = int32(j)
		keys[i].n++
	}
	sc.order = order
	return order
}

// rankCount is a pair of priority and nearness (a rank without its index)
// and a count of the candidates holding it, then their next place.
type rankCount struct {
	key uint64
	n   int32
}

// heapifyRanks orders ranks as a binary max-heap.
func heapifyRanks(ranks []uint64) {
	for i := len(ranks)/2 - 1; i >= 0; i-- {
		siftRank(ranks, i)
	}
}

// popRank takes the highest rank off the heap ranks and returns it and the
// heap left.
func popRank(ranks []uint64) (uint64, []uint64) {
	top, n := ranks[0], len(ranks)-1
	ranks[0] = ranks[n]
	ranks = ranks[:n]
	if n > 0 {
		siftRank(ranks, 0)
	}
	return top, ranks
}

// siftRank moves ranks[i] down the max-heap ranks to its place.
func siftRank(ranks []uint64, i int) {
	v, n := ranks[i], len(ranks)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && ranks[c+1] > ranks[c] {
			c++
		}
		if ranks[c] <= v {
			break
		}
		ranks[i] = ranks[c]
		i = c
	}
	ranks[i] = v
}

// Lazy plans: an entity of which something changed this round (a
// component whose version this round made) has news for every connection,
// whatever its baseline holds, so it is a candidate before it is planned.
// Its width is known to be at least the bits of what changed (plus the
// entry's least framing, roundEnt.news). When every candidate may fit,
// each lazy plan is made as the candidate is written, in slot order, and
// what was written is undone once the plans show they do not all fit
// (writeInOrder). When a snapshot cannot hold every candidate, the plan
// is made only when the candidate's turn comes and its news alone still
// fits: on a crowded server, where each snapshot holds about half of what
// moves, that is half the plans. Every decision is the one the plans made
// up front would give, so the snapshot is the same to the bit.

// planCandidate makes the i-th candidate's plan if it is lazy, keeping it
// with the candidate, and returns the candidate's width.
func (p *Peer) planCandidate(r *Round, sc *writeScratch, i int) int {
	cd := &sc.cands[i]
	if cd.bits < 0 {
		bits, _ := p.planOf(r, &r.ents[cd.ent], &p.bases[cd.base], false)
		cd.bits = int32(bits)
		cd.at, cd.acts = sc.keepPlan(p)
	}
	return int(cd.bits)
}

// keepPlan keeps the plan p last made (p.pl, and p.acts unless it is a
// moving-body entry's) and returns their places.
func (sc *writeScratch) keepPlan(p *Peer) (at, acts int32) {
	sc.pls = append(sc.pls, p.pl)
	acts = -1
	if !p.pl.moving {
		acts = int32(len(sc.candActs))
		sc.candActs = append(sc.candActs, p.acts...)
	}
	return int32(len(sc.pls) - 1), acts
}

// emitCandidate writes the i-th candidate's entry as its plan had it, and
// resets its priority. The plan must have been made (planCandidate).
func (p *Peer) emitCandidate(w *wire.Writer, r *Round, sc *writeScratch, i int, c *claim) {
	cd := &sc.cands[i]
	p.restorePlan(sc, cd)
	p.emit(w, r, &r.ents[cd.ent], c, int(cd.base))
	p.bases[cd.base].prio = 0
}

// restorePlan makes the plan kept for cd the last plan made, for emit.
func (p *Peer) restorePlan(sc *writeScratch, cd *candidate) {
	if cd.acts >= 0 {
		copy(p.acts, sc.candActs[cd.acts:])
	}
	p.pl = sc.pls[cd.at]
}

// plan decides what e's entry says of each component type, leaving it in
// p.acts and the rest of what it found in p.pl, and returns the entry's
// width (its continuation bit included), or 0 when a non-own entity has
// nothing to say. An occupant the connection does not hold is fresh: every
// component the entity's class puts on the wire is written. Otherwise a component is written when its bits differ
// from the confirmed ones (or are unknown), and marked removed when the
// connection holds one the entity no longer has. The own entity's
// components are written whether or not they differ, bar its NetSpawn.
func (p *Peer) plan(r *Round, e *roundEnt, own bool) (bits int, fresh bool) {
	return p.planOf(r, e, p.base(e.id.Slot), own)
}

// planOf is plan with e's slot's baseline b (nil when the Peer has none)
// already looked up.
func (p *Peer) planOf(r *Round, e *roundEnt, b *slotBase, own bool) (bits int, fresh bool) {
	fresh = b == nil || b.occ != e.id
	if e.bare && !own && !p.generalPlans && (fresh && e.end-e.first == 2 || !fresh && b.holdsRest(r, e)) {
		// A moving body whose Transform and Rigidbody are this round's
		// and the rest of it not (roundEnt.bare), to a connection that
		// holds that rest as it is and no other type of it, or that
		// does not hold the body, which has no rest: the two are written
		// and nothing else, in the moving-body form, whatever the
		// baseline holds of them. The general walk below finds exactly
		// that, and its bound on the types.
		clear(p.acts)
		p.acts[TypeTransform], p.acts[TypeRigidbody] = actWrite, actWrite
		top := int32(baseHead)
		if !fresh {
			top = min(b.ntypes, int32(p.ntypes)) // holding the rest, b has every type of e
		}
		p.pl = planned{fresh: fresh, moving: true, top: top}
		return p.planMotion(r, e, b, fresh), fresh
	}
	if e.dBits != 0 && !own && !fresh && !p.generalPlans && e.silence == Described && b.holdsUnchanged(r, e) {
		// An entity the round assembled this round's changes of
		// (Round.assembleDelta), to a connection that holds the rest of
		// it as it is and no other type of it: exactly those changes
		// are written, in the entry the round assembled, which the
		// general walk below finds with the same bound on the types.
		clear(p.acts)
		last := 0
		for i := e.first; i < e.end; i++ {
			if c := &r.comps[i]; c.ver == r.n {
				p.acts[c.typ] = actWrite
			}
			last = int(r.comps[i].typ)
		}
		p.pl = planned{delta: true, top: int32(min(p.ntypes, max(last+1, int(b.ntypes))))}
		return int(e.dBits), false
	}
	lo, hi := 0, p.ntypes
	switch e.silence {
	case StaticBody:
		lo, hi = TypeNetSpawn, TypeNetSpawn+1
	case InInstance:
		lo, hi = 0, 0
	}
	// No type above the highest the entity or the baseline has can have
	// anything to say: a crate's plan looks at its two types, not at every
	// type in the schema.
	top := 0
	if e.end > e.first {
		top = int(r.comps[e.end-1].typ) + 1 // sorted by type
	}
	if !fresh {
		top = max(top, int(b.ntypes))
	}
	hi = min(hi, top)
	clear(p.acts)
	n, proj := 0, false
	stale := false // an action other than writing a component this round changed
	// The entity's components in [lo, hi) in type order, and between
	// them (and after them) the types only the baseline may hold.
	held := 0 // the baseline's types looked at: below held, b.comp is not nil
	if !fresh {
		held = min(int(b.ntypes), hi)
	}
	t := lo // the next type not looked at
	for ci := e.first; ; ci++ {
		ct := hi // the next type the entity has, or hi
		var rc *roundComp
		if ci < e.end {
			rc = &r.comps[ci]
			if ct = int(rc.typ); ct < lo {
				continue
			}
			ct = min(ct, hi)
		}
		for ; t < min(ct, held); t++ {
			// The entity has no component of type t: removed, when the
			// connection holds one or may.
			if b.at(t).state() != absent {
				p.acts[t] = actRemove
				bits++
				stale = true
				n++
				proj = proj || t >= EngineTypes
			}
		}
		if ct == hi {
			break
		}
		t = ct + 1
		// A version this round made is news to every baseline: no need
		// to read the baseline's (a cache miss per component on a
		// crowded server).
		if rc.ver != r.n && ct < held && b.at(ct).sameBits(rc) && (!own || ct == TypeNetSpawn) {
			continue
		}
		p.acts[ct] = actWrite
		bits += 1 + int(rc.nbits)
		stale = stale || rc.ver != r.n
		n++
		proj = proj || ct >= EngineTypes
	}
	if n == 0 && !own {
		return 0, fresh
	}
	// The commonest entry of all, a body in motion, has a form of its own
	// on the wire: a Transform and a Rigidbody written and nothing else,
	// the Rigidbody moving. One bit stands for the types' masks and
	// carried bits, and the Rigidbody's moving bit goes without saying.
	moving := e.moving && n == 2 && p.acts[TypeTransform] == actWrite && p.acts[TypeRigidbody] == actWrite
	p.pl = planned{fresh: fresh, moving: moving, top: int32(max(hi, 0))}
	// What the round assembled for every connection that confirmed all
	// but this round's changes (Round.assembleDelta).
	p.pl.delta = !moving && !fresh && !stale && e.dBits != 0 && n == int(e.dN) && e.silence == Described
	if p.pl.moving {
		return p.planMotion(r, e, b, fresh), fresh
	}
	bits += 1 + int(e.idn) + 1 + 1 + EngineTypes
	if np := p.ntypes - EngineTypes; np > 0 {
		bits++
		if proj {
			bits += np
		}
	}
	return bits, fresh
}

// holdsRest reports whether b holds the components of e past its
// Transform and Rigidbody, the first two, with their bits as they are,
// and no other type of e past those two (each confirmed absent).
func (b *slotBase) holdsRest(r *Round, e *roundEnt) bool {
	rest := r.comps[e.first+baseHead : e.end]
	if b.ntypes <= baseHead {
		return len(rest) == 0
	}
	tail := b.tail.c[:b.ntypes-baseHead]
	for j := range tail {
		bc := &tail[j]
		if len(rest) > 0 && int(rest[0].typ) == baseHead+j {
			if !bc.sameBits(&rest[0]) {
				return false
			}
			rest = rest[1:]
		} else if bc.state() != absent {
			return false
		}
	}
	return len(rest) == 0
}

// holdsUnchanged reports whether b holds every component of e this round
// did not change with its bits as they are, and no other type of e (each
// confirmed absent).
func (b *slotBase) holdsUnchanged(r *Round, e *roundEnt) bool {
	cs := r.comps[e.first:e.end]
	for t := range int(b.ntypes) {
		bc := b.at(t)
		if len(cs) > 0 && int(cs[0].typ) == t {
			if cs[0].ver != r.n && !bc.sameBits(&cs[0]) {
				return false
			}
			cs = cs[1:]
		} else if bc.state() != absent {
			return false
		}
	}
	for i := range cs { // past the baseline's types, each written
		if cs[i].ver != r.n {
			return false
		}
	}
	return true
}

// planMotion chooses the state of a moving-body entry for e (the
// moving-body form: no masks, no carried bits, the body's state against
// what the connection holds), leaving it in p.pl.turn, and returns the
// entry's width.
func (p *Peer) planMotion(r *Round, e *roundEnt, b *slotBase, fresh bool) int {
	if ref := p.refOf(b, e, fresh); ref.ok && p.tickRate > 0 && !p.ownTurns {
		r.turnFor(&p.pl.turn, p, e, &ref, p.hdrGap)
	} else {
		p.pl.turn = p.chooseTurn(e.turn, ref, r.tick, p.hdrGap) // whole, at once (or chosen by the connection itself)
	}
	// The continuation bit, the occupant, the fresh and moving bits, the
	// state.
	return 3 + int(e.idn) + int(p.pl.turn.bits)
}

// emit writes e's entry as the last plan left it in p.acts and p.pl, and
// records it in the claim: a continuation bit, the occupant, the fresh
// bit, then a bit for the moving-body form (a Transform and a Rigidbody
// and nothing else: their bits follow at once). Otherwise the engine
// types' mask (4 bits), then, when the schema has project types, a bit
// saying whether any changed and if so their mask; then for each type in
// the masks, in order, a bit (1: its bits follow; 0: removed) and its
// bits. What the round assembled for the entry is copied whole. base is
// the index in bases of e's slot's baseline, or -1 when it has none.
func (p *Peer) emit(w *wire.Writer, r *Round, e *roundEnt, c *claim, base int) {
	if e.id == p.watch.id {
		defer p.watched(w.Len(), w, r)
	}
	fresh, moving := p.pl.fresh, p.pl.moving
	// bare: the components' bits, and their masks, are in what the round
	// assembled, or in the moving-body form's motion. Otherwise the entry
	// is in the general form, written by words (writeGeneral) unless
	// fields says field by field, here.
	bare := moving || p.pl.delta
	fields := !bare && p.fieldWrites
	state := moving // the moving body's state is still to write
	switch {
	case p.pl.delta:
		// Exactly this round's changes, which the round has assembled
		// (Round.assembleDelta).
		w.WriteBitString(r.data[e.dOff:], int(e.dBits))
	case moving && !fresh && e.mvBits != 0:
		// The commonest entry, a body that moved this round and is not
		// fresh, the round has begun (Round.seal).
		if t := &p.pl.turn; e.mvBits <= 64 && t.form != turnWhole && int(e.mvBits)+int(t.bits) <= 64 {
			// Begun and predicted, in one go: the commonest of all.
			w.WriteBits(e.mvPre|t.packed[0]<<e.mvBits, int(e.mvBits)+int(t.bits))
			state = false
		} else if e.mvBits <= 64 {
			w.WriteBits(e.mvPre, int(e.mvBits))
		} else {
			w.WriteBitString(r.data[e.mvOff:], int(e.mvBits))
		}
	case !bare && !fields:
		p.writeGeneral(w, r, e, fresh)
	default:
		w.WriteBool(true)
		writeID(w, e.id)
		w.WriteBool(fresh)
		w.WriteBool(moving)
	}
	if state {
		writeTurn(w, &p.pl.turn, e.turn)
	}
	if fields {
		proj := false
		for t, a := range p.acts[:max(int(p.pl.top), EngineTypes)] {
			if t < EngineTypes {
				w.WriteBool(a != actNone)
			} else if a != actNone {
				proj = true
			}
		}
		if p.ntypes > EngineTypes {
			w.WriteBool(proj)
			if proj {
				for _, a := range p.acts[EngineTypes:] {
					w.WriteBool(a != actNone)
				}
			}
		}
	}
	ce := claimEnt{id: e.id, base: int32(base), fresh: fresh}
	if moving {
		// A Transform and a Rigidbody written, nothing else: the
		// entity's first two components, as types sort.
		rc := r.comps[e.first : e.first+2]
		c.comps = append(c.comps, compClaim(TypeTransform, true), compClaim(TypeRigidbody, true))
		c.vers = append(c.vers, rc[0].ver, rc[1].ver)
		ce.end = int32(len(c.comps))
		ce.turn, ce.hasTurn = p.pl.turn.sent(e.turn), true
		c.ents = append(c.ents, ce)
		p.stats.Entries++
		return
	}
	ci := e.first
	for t, a := range p.acts[:p.pl.top] {
		if a == actNone {
			continue
		}
		if fields {
			w.WriteBool(a == actWrite)
		}
		ver := uint64(0)
		if a == actWrite {
			for int(r.comps[ci].typ) != t {
				ci++
			}
			rc := &r.comps[ci]
			if fields {
				w.WriteBitString(r.bits(rc), int(rc.nbits))
			}
			ver = rc.ver
		}
		c.comps = append(c.comps, compClaim(t, a == actWrite))
		c.vers = append(c.vers, ver)
	}
	ce.end = int32(len(c.comps))
	// An entry carrying both its Transform and its Rigidbody leaves the
	// receiver a state to predict the next from: with the velocity's turn
	// the moving-body form predicted with, and none from the general form.
	if p.acts[TypeTransform] == actWrite && p.acts[TypeRigidbody] == actWrite {
		ce.turn, ce.hasTurn = e.turn, true
		ce.turn.vt = 0
		if moving {
			ce.turn = p.pl.turn.sent(e.turn)
		}
	}
	c.ents = append(c.ents, ce)
	p.stats.Entries++
}

// writeGeneral writes e's entry in the general form as the last plan left
// it in p.acts and p.pl (not fresh unless fresh): the continuation bit,
// the occupant, the fresh and moving bits, the masks, then each type's
// carried bit and bits. It gathers them into words, each written when
// the next field would not fit, rather than field by field: a general
// entry took a dozen writes. The bits are those emit writes field by
// field (Peer.fieldWrites).
func (p *Peer) writeGeneral(w *wire.Writer, r *Round, e *roundEnt, fresh bool) {
	var run bitRun
	if pre, n := entryPrefix(e.idw, int(e.idn), fresh, false); n > 0 {
		run.v, run.n = pre, n
	} else {
		w.WriteBool(true)
		writeID(w, e.id)
		w.WriteBool(fresh)
		w.WriteBool(false)
	}
	// The masks. Past the plan's top every action is none (plan clears
	// them).
	acts := p.acts
	run.add(w, actMask(acts[:EngineTypes]), EngineTypes)
	if np := p.ntypes - EngineTypes; np > 0 {
		switch pm := actMask(acts[EngineTypes:]); {
		case pm == 0:
			run.add(w, 0, 1)
		case np < 64:
			run.add(w, 1|pm<<1, np+1)
		default:
			run.add(w, 1, 1)
			for _, a := range acts[EngineTypes:] {
				run.add(w, bit(a != actNone), 1)
			}
		}
	}
	ci := e.first
	for t, a := range acts[:p.pl.top] {
		switch a {
		case actNone:
			continue
		case actRemove:
			run.add(w, 0, 1)
			continue
		}
		for int(r.comps[ci].typ) != t {
			ci++
		}
		rc := &r.comps[ci]
		if rc.nbits < 64 {
			run.add(w, 1|r.word(rc)<<1, int(rc.nbits)+1)
			continue
		}
		run.add(w, 1, 1)
		run.flush(w)
		w.WriteBitString(r.bits(rc), int(rc.nbits))
	}
	run.flush(w)
}

// actMask returns a bit for each of acts that is not actNone, the first
// lowest. Past the 64th, an action's bit falls on one of the first 64's,
// so the mask is 0 only when every one is none.
func actMask(acts []action) uint64 {
	m := uint64(0)
	for t, a := range acts {
		if a != actNone {
			m |= 1 << (t & 63)
		}
	}
	return m
}

// bitRun gathers fields for a Writer into one word, lowest first: v holds
// n bits (at most 64), none above them.
type bitRun struct {
	v uint64
	n int
}

// add appends the k low bits of v (1 ≤ k ≤ 64, v none above them),
// first writing the word gathered when they would not fit in it.
func (b *bitRun) add(w *wire.Writer, v uint64, k int) {
	if b.n+k > 64 {
		b.flush(w)
	}
	b.v |= v << b.n // a shift of 64 gives 0: b.n is 64 only for k = 0
	b.n += k
}

// flush writes the word gathered and empties it.
func (b *bitRun) flush(w *wire.Writer) {
	w.WriteBits(b.v, b.n)
	b.v, b.n = 0, 0
}

// bit returns 1 for true.
func bit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// String returns a one-line summary, for logs and test output.
func (s WriteStats) String() string {
	return fmt.Sprintf("%d bytes: %d removals (%d deferred), %d entries, %d deferred, own %v",
		s.Bytes, s.Removals, s.RemovalsDeferred, s.Entries, s.Deferred, s.OwnWritten)
}

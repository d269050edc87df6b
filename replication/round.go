package replication

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"vkm/internal/entity"
	"vkm/wire"
)

// Silence says how much of an entity a send round describes. The server
// classifies its world once per round (DESIGN.md: "a silence map"), because
// the answer depends on the world and not on who receives it.
type Silence uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Silence -linecomment

// The silence classes. String returns a class's name, the line comment.
const (
	// Described: every replicated component goes on the wire.
	Described Silence = iota // described
	// StaticBody: a static body is never described, because the scene file
	// is exact where the wire is not. Only its NetSpawn, when it has one,
	// is written: a spawned static root must still reach the client.
	StaticBody // static
	// InInstance: an entity below the root of a prefab instance says
	// nothing; the client built it from the root's NetSpawn and the
	// hierarchy carries it. (A prefab's part, a body below the root that
	// moves on its own, is Described: the host classifies it so.)
	InInstance // in-instance
)

// Round is the world of one send round, each component encoded once to the
// quantised bits every connection compares against its baseline and copies
// into its snapshot. The server builds one Round per round, whatever the
// number of peers, then calls Peer.Write for each.
//
// Build it with Begin, then for each live entity in ascending slot order
// Entity followed by that entity's components (in any order): every live
// entity, silent ones included, since a slot missing from the round is a
// slot whose occupant has gone. Component calls for a silent entity are
// accepted and skip what its class keeps off the wire.
//
// After the first few rounds a Round allocates nothing. The zero value is
// not usable: make one with NewRound. A Round is not safe for concurrent
// mutation; once built, any number of goroutines may Write from it.
type Round struct {
	schema *Schema
	tick   uint32
	// prevTick is the tick of the round before (the velocity's turn of a
	// moving body is measured over the ticks between; see Rigidbody).
	prevTick uint32
	// n is this round's number: every Begin of every Round in the process
	// takes the next one, so numbers rise through a Round and no two
	// rounds share one (a component's version is one of them; see ver).
	n uint64
	// seq counts the Round's own Begins: a Peer that wrote from round
	// seq − 1 of this Round, and from no other since, wrote from the one
	// before (see Peer.syncQuiet).
	seq uint64
	// changed holds a bit for each entity this round changed (roundEnt.chg
	// is n), by index in ents; seal fills it.
	changed []uint64
	// occSince is the round from which every slot has held the occupant it
	// holds, final for the previous round (see occupiedSince); occSame
	// counts this round's entities whose occupant the previous round held
	// at their slot.
	occSince uint64
	occSame  int
	// occLog lists, in round order, the slots whose occupant (or
	// emptiness) a round changed: a new occupant is logged as its round is
	// built, a slot left empty as the round is sealed. Every change made
	// after round occLogFrom is in it, so a connection that last found
	// nothing to remove at a round no older than that looks only at the
	// slots logged since, not at its whole baseline (see writeRemovals).
	// It keeps at most maxOccLog changes, letting the older half go.
	occLog     []occChange
	occLogFrom uint64
	ents       []roundEnt
	comps      []roundComp
	data       []byte      // every component's bits, each from a byte boundary
	bySlot     slotTable   // slot → index in ents + 1
	w          wire.Writer // encodes one component at a time
	enc        []byte      // w's storage
	// keys holds, for each component memo records, the inputs its bits
	// were encoded from, and strs the strings among them (a NetSpawn's
	// prefab); see memo.
	keys []uint64
	strs []string

	// sealed says seal has run since Begin; sealMu guards it, as Writes
	// from several goroutines may be the first.
	sealMu sync.Mutex
	sealed bool

	// The previous round, which each entity is compared with as it is
	// built (see changedAt); Begin swaps the two.
	prevEnts   []roundEnt
	prevComps  []roundComp
	prevData   []byte
	prevBySlot slotTable
	prevKeys   []uint64
	prevStrs   []string

	// reach indexes the entities for connections with a Reach (see
	// reachIndex); the first Write of the round that can use it builds
	// it (reachBuilt, guarded by sealMu), so a round none of whose
	// connections has a Reach (a watched busy world) never does.
	reach      reachIndex
	reachBuilt bool

	// turns holds the choices of moving bodies' states this round's
	// Writes have worked out, and turnIdx, for each moving body one has
	// been kept for (roundEnt.turnAt), where in turns the choice against
	// a state of each gap is, by slot (index + 1; 0: none); turnMu guards
	// them and every roundEnt's turnAt, as Writes from several goroutines
	// may share them. seal empties them. turnsAsked counts the choices
	// Writes asked turnFor for this round, and turnsMade those it worked
	// out rather than found.
	turnMu     sync.Mutex
	turns      []turnMemo
	turnIdx    [][turnSlots]int32
	turnsAsked int
	turnsMade  int
}

// occChange is a change of a slot's occupant, in round n.
type occChange struct {
	n    uint64
	slot uint32
}

// maxOccLog is the most changes of occupant a Round keeps (see occLog):
// enough for seconds of a world that spawns and destroys a few entities a
// round. A connection that found nothing to remove longer ago than the
// oldest looks at its whole baseline instead. Tuning constant.
const maxOccLog = 1024

// logOcc records that round r changed the occupant of slot.
func (r *Round) logOcc(slot uint32) {
	if len(r.occLog) == maxOccLog {
		drop := maxOccLog / 2
		r.occLogFrom = r.occLog[drop-1].n
		n := copy(r.occLog, r.occLog[drop:])
		r.occLog = r.occLog[:n]
	}
	r.occLog = append(r.occLog, occChange{n: r.n, slot: slot})
}

// logVacated logs the slots an occupant of the round before left empty
// in this one (those it left to a newcomer are logged already).
func (r *Round) logVacated() {
	if r.occSame == len(r.prevEnts) {
		return
	}
	for i := range r.prevEnts {
		if id := r.prevEnts[i].id; r.bySlot.get(id.Slot) == 0 {
			r.logOcc(id.Slot)
		}
	}
}

// occChangedSince returns the changes of occupant made after round n, and
// whether the log holds all of them.
func (r *Round) occChangedSince(n uint64) ([]occChange, bool) {
	if n < r.occLogFrom {
		return nil, false
	}
	i, _ := slices.BinarySearchFunc(r.occLog, n+1, func(c occChange, n uint64) int {
		return cmp.Compare(c.n, n)
	})
	return r.occLog[i:], true
}

// roundEnt is one entity of a round; its components are comps[first:end],
// kept sorted by wire type.
type roundEnt struct {
	id entity.ID
	// idw and idn are the occupant as packID packs it: what an entry
	// writes of it, and its width, worked out once for the round's
	// connections (and carried from the round before while it is the
	// slot's occupant).
	idw        uint64
	idn        int32
	silence    Silence
	first, end int32
	// since is the round from which the slot has been described exactly
	// so: the previous round's since while the entity matches it, which
	// changedAt confirms once every component has been compared; Begin
	// makes it final.
	since uint64
	prev  int32 // the same occupant and class in the previous round: its index there, or -1
	same  int32 // components whose bits match the previous round's
	// x and y are where its Transform puts it, when placed: what each
	// connection's relevance measures from its own entity.
	x, y   float32
	placed bool
	// mvOff and mvBits locate in data the first part of the entity's
	// entry in the moving-body form, not fresh, when seal assembled one
	// (its continuation bit, occupant, fresh and moving bits: its state
	// each connection writes against what it has acknowledged); mvBits
	// is 0 otherwise. mvPre holds those bits as well when they are no
	// more than 64 (as a Writer lays them out), to be written in one go.
	mvOff, mvBits uint32
	mvPre         uint64
	// dOff and dBits locate in data the entity's entry in the general
	// form, not fresh, that writes exactly the components this round
	// changed (their versions this round's) and nothing else, when seal
	// assembled one; dBits is 0 otherwise. dN is how many components
	// that is. A connection that confirmed everything else of the entity
	// sends that entry, and every such connection sends the same bits.
	dOff, dBits uint32
	dN          int32
	// turn is its Transform's position, angle and scale and its
	// Rigidbody's velocity and angular velocity, in codes, when it has
	// both, with the velocity's turn measured since the round before.
	// vx and vy are its Rigidbody's velocity as simulated, when hasV, and
	// vturn the velocity's turn a tick, smoothed (see velocityTurn).
	turn   turn
	vx, vy float64
	vturn  float64
	hasV   bool
	// What seal works out once for every connection, so that none of them
	// works it out again: chg is changedAt's answer; the rest survey's.
	// news is, when a component e puts on the wire has a version this
	// round made, a lower bound on the width of any entry for e (those
	// components' bits and an entry's least framing, or a moving-body
	// entry's least), else 0; moving says its Rigidbody's moving bit is
	// set.
	chg    uint64
	news   int32
	moving bool
	// bare says it is a described moving body whose first components
	// are a Transform and a Rigidbody, both of this round's making, and
	// whose others (a spawned body's NetSpawn, say) are not: news to
	// every connection, whose plan for it is the moving-body form when
	// its baseline holds those others as they are and no other type.
	bare bool
	// turnAt locates, for a moving body, its choices of state this
	// round: turnIdx[turnAt−1] (see turnFor); 0 until one is kept.
	turnAt int32
}

// roundComp is one encoded component: nbits bits at data[off:].
//
// ver is the number of the round from which the slot's occupant has held
// exactly these bits of this type without a break (the same occupant and
// class in every round since). Two components of one slot and type with
// the same ver hold the same bits, so a baseline keeps the version it
// confirmed instead of the bits, and a connection compares one word where
// it would compare bytes. The converse does not hold (bits that change and
// change back get a new version), which costs at most a component written
// that need not have been.
type roundComp struct {
	typ   uint16
	nbits uint32
	off   uint32
	ver   uint64
	// kOff and kLen locate in the round's keys the inputs the bits were
	// encoded from, when they were recorded (kLen > 0; see memo).
	kOff, kLen uint32
}

// roundNumbers gives every Begin of every Round its number (Round.n).
var roundNumbers atomic.Uint64

// NewRound returns an empty round over schema s, which must not change
// while the round is in use.
func NewRound(s *Schema) *Round { return &Round{schema: s} }

// Schema returns the schema the round encodes with.
func (r *Round) Schema() *Schema { return r.schema }

// Begin empties the round for server tick tick, keeping its storage. The
// round it held becomes the one the next is compared with.
func (r *Round) Begin(tick uint32) {
	if !r.sealed {
		r.logVacated() // a round no connection was written from
	}
	for i := range r.ents {
		e := &r.ents[i]
		e.since = r.changedAt(e)
	}
	r.occSince, r.occSame = r.occupiedSince(), 0
	for _, e := range r.prevEnts {
		r.prevBySlot.set(e.id.Slot, 0)
	}
	r.ents, r.prevEnts = r.prevEnts[:0], r.ents
	r.comps, r.prevComps = r.prevComps[:0], r.comps
	r.data, r.prevData = r.prevData[:0], r.data
	r.keys, r.prevKeys = r.prevKeys[:0], r.keys
	clear(r.prevStrs) // let go of the strings two rounds old
	r.strs, r.prevStrs = r.prevStrs[:0], r.strs
	r.bySlot, r.prevBySlot = r.prevBySlot, r.bySlot
	r.prevTick, r.tick = r.tick, tick
	r.n = roundNumbers.Add(1)
	r.seq++
	r.sealed = false
}

// occupiedSince returns the round from which every slot has held the
// occupant it holds in this round (the empty ones included).
func (r *Round) occupiedSince() uint64 {
	if r.occSame != len(r.ents) || len(r.ents) != len(r.prevEnts) {
		return r.n
	}
	return r.occSince
}

// changedAt returns the round from which e's slot has been described as
// this round describes it: the same occupant, class and component bits.
// A Peer that found nothing to say of the slot at a round no older than
// that, its baseline untouched since, has nothing to say of it now.
func (r *Round) changedAt(e *roundEnt) uint64 {
	if e.prev < 0 {
		return r.n
	}
	p := &r.prevEnts[e.prev]
	if n := e.end - e.first; e.same != n || p.end-p.first != n {
		return r.n
	}
	return e.since
}

// seal assembles, once per round, the start of the entry most connections
// will be sent for each moving body whose Transform or Rigidbody changed
// this round: the moving-body form, not fresh (the continuation bit, the
// occupant, the fresh and moving bits). A connection whose plan for the
// entity is that form copies it, then writes the body's state against
// what it has acknowledged. It also works out, for every
// entity, what each connection's look at the round would otherwise work
// out for itself (whether it changed, the bounds on its entry's width,
// whether it is a moving body): one pass over the world a round instead of
// one a connection. Write calls it; the first call does the work.
func (r *Round) seal() {
	r.sealMu.Lock()
	defer r.sealMu.Unlock()
	if r.sealed {
		return
	}
	r.sealed = true
	r.logVacated()
	ntypes := EngineTypes + len(r.schema.Types)
	r.turns, r.turnIdx = r.turns[:0], r.turnIdx[:0]
	r.turnsAsked, r.turnsMade = 0, 0
	r.changed = zeroed(r.changed, (len(r.ents)+63)/64)
	for i := range r.ents {
		e := &r.ents[i]
		e.chg = r.changedAt(e)
		if e.chg == r.n {
			r.changed[i>>6] |= 1 << (i & 63)
		}
		e.turnAt = 0
		sv := r.survey(e)
		if e.silence != Described {
			continue
		}
		r.assembleDelta(e, ntypes, sv.mask, sv.changed)
		t, b := sv.t, sv.b
		if t == nil || b == nil || t.ver != r.n && b.ver != r.n || !e.moving {
			continue
		}
		e.mvOff = uint32(len(r.data))
		if pre, n := entryPrefix(e.idw, int(e.idn), false, true); n > 0 {
			e.mvBits, e.mvPre = uint32(n), pre
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], e.mvPre)
			r.data = append(r.data, b[:(n+7)/8]...)
			continue
		}
		w := r.begin()
		w.WriteBool(true)
		writeID(w, e.id)
		w.WriteBool(false) // fresh
		w.WriteBool(true)  // moving
		bits := w.Bytes()
		r.enc = bits[:0]
		e.mvBits = uint32(w.Len())
		r.data = append(r.data, bits...)
	}
	r.reachBuilt = false // built by the first Write that asks (reachVisits)
}

// entryPrefix returns the first part of an entry for the occupant that
// packID packs as idw, idn, as a Writer lays it out in one word (the
// continuation bit, the occupant, the fresh bit and the moving bit), and
// its width; 0 when it takes more than a word (a slot or generation of
// 2^21 or more).
func entryPrefix(idw uint64, idn int, fresh, moving bool) (uint64, int) {
	n := 3 + idn
	if n > 64 {
		return 0, 0
	}
	return 1 | idw<<1 | bit(fresh)<<(n-2) | bit(moving)<<(n-1), n
}

// assembleDelta assembles, for a described entity of which some
// component changed this round, its general-form entry, not fresh, that
// writes those components and nothing else (see roundEnt.dBits): the
// continuation bit, the occupant, the fresh and moving bits (both 0), the
// engine types' mask, the project types' bit and mask, then for each
// component a 1 and its bits. A body whose entry would take the
// moving-body form gets none.
//
// mask is the wire types of e's components this round changed, and
// changed their count (survey works them out).
func (r *Round) assembleDelta(e *roundEnt, ntypes int, mask uint64, changed int32) {
	e.dBits, e.dN = 0, changed
	if e.dN == 0 || e.moving && mask == 1<<TypeTransform|1<<TypeRigidbody || ntypes > 64 {
		e.dN = 0
		return
	}
	w := r.begin()
	w.WriteBool(true)
	writeID(w, e.id)
	w.WriteBool(false) // fresh
	w.WriteBool(false) // moving
	w.WriteBits(mask, EngineTypes)
	if ntypes > EngineTypes {
		proj := mask >> EngineTypes
		w.WriteBool(proj != 0)
		if proj != 0 {
			w.WriteBits(proj, ntypes-EngineTypes)
		}
	}
	for i := e.first; i < e.end; i++ {
		if c := &r.comps[i]; c.ver == r.n {
			w.WriteBool(true)
			w.WriteBitString(r.bits(c), int(c.nbits))
		}
	}
	bits := w.Bytes()
	r.enc = bits[:0]
	e.dOff, e.dBits = uint32(len(r.data)), uint32(w.Len())
	r.data = append(r.data, bits...)
}

// surveyed is what survey found of an entity besides what it set: the
// mask of its types this round changed (by wire type; see assembleDelta),
// how many, and its Transform and Rigidbody (nil when it has none).
type surveyed struct {
	mask    uint64
	changed int32
	t, b    *roundComp
}

// survey sets e.moving, e.news and e.bare (see roundEnt) in one
// pass over e's components, and returns what assembleDelta and the
// moving-body form need besides. seal does this for every entity of every
// round; it did it in four passes, which TestSurveyMatchesParts keeps as
// survey's reference.
func (r *Round) survey(e *roundEnt) (sv surveyed) {
	cs := r.comps[e.first:e.end]
	news, anyNews, restNew := 0, false, false
	for i := range cs {
		c := &cs[i]
		switch int(c.typ) {
		case TypeTransform:
			sv.t = c
		case TypeRigidbody:
			sv.b = c
		}
		if c.ver != r.n {
			continue
		}
		sv.mask |= 1 << c.typ
		sv.changed++
		restNew = restNew || i >= 2
		if e.silence == Described || int(c.typ) == TypeNetSpawn {
			news += int(c.nbits)
			anyNews = true
		}
	}
	b := sv.b
	e.moving = b != nil && b.nbits > 0 && r.data[b.off]&1 == 1
	id := int(e.idn)
	e.news = 0
	if anyNews {
		news += 3 + id + EngineTypes
		if e.moving {
			news = min(news, 3+id+minMotionBits)
		}
		e.news = int32(news)
	}
	e.bare = e.silence == Described && e.moving && len(cs) >= 2 && !restNew &&
		cs[0].typ == TypeTransform && cs[1].typ == TypeRigidbody && cs[0].ver == r.n && cs[1].ver == r.n
	return sv
}

// Tick returns the server tick the round was begun for.
func (r *Round) Tick() uint32 { return r.tick }

// Len returns how many entities the round holds.
func (r *Round) Len() int { return len(r.ents) }

// Entity starts the next entity, the occupant id of its slot, in class
// silence. Slots must ascend strictly through a round; a slot out of order,
// a slot beyond entity.MaxSlot or the zero ID is a programmer error and
// panics.
func (r *Round) Entity(id entity.ID, silence Silence) {
	switch {
	case id.IsNone() || id.Slot > entity.MaxSlot:
		panic(fmt.Sprintf("replication: Round.Entity(%v): not an occupant", id))
	case len(r.ents) > 0 && id.Slot <= r.ents[len(r.ents)-1].id.Slot:
		panic(fmt.Sprintf("replication: Round.Entity(%v): slots must ascend (after %v)", id, r.ents[len(r.ents)-1].id))
	case silence > InInstance:
		panic(fmt.Sprintf("replication: Round.Entity(%v): %v", id, silence))
	}
	n := int32(len(r.comps))
	e := roundEnt{id: id, silence: silence, first: n, end: n, since: r.n, prev: -1}
	if i := r.prevBySlot.get(id.Slot) - 1; i >= 0 && r.prevEnts[i].id == id {
		r.occSame++
		p := &r.prevEnts[i]
		if p.silence == silence {
			e.since, e.prev = p.since, i
		}
		e.idw, e.idn = p.idw, p.idn
	} else {
		r.logOcc(id.Slot)
		idw, idn := packID(id)
		e.idw, e.idn = idw, int32(idn)
	}
	r.ents = append(r.ents, e)
	r.bySlot.set(id.Slot, int32(len(r.ents)))
}

// current returns the entity being built, panicking when there is none.
func (r *Round) current(what string) *roundEnt {
	if len(r.ents) == 0 {
		panic("replication: Round." + what + " before Round.Entity")
	}
	return &r.ents[len(r.ents)-1]
}

// says reports whether the current entity's class puts type typ on the
// wire.
func (r *Round) says(what string, typ int) bool {
	switch r.current(what).silence {
	case Described:
		return true
	case StaticBody:
		return typ == TypeNetSpawn
	}
	return false
}

// begin readies the component encoder; commit appends what it wrote as the
// current entity's component of type typ.
func (r *Round) begin() *wire.Writer {
	r.w.ResetOwned(r.enc)
	return &r.w
}

func (r *Round) commit(typ int) { r.commitKeyed(typ, len(r.keys)) }

// commitKeyed is commit for a component whose inputs memo has put in
// keys[kOff:].
func (r *Round) commitKeyed(typ int, kOff int) {
	e := &r.ents[len(r.ents)-1]
	b := r.w.Bytes()
	r.enc = b[:0]
	nbits := uint32(r.w.Len())
	ver := r.n
	if e.prev >= 0 {
		if v, same := r.sameAsPrev(&r.prevEnts[e.prev], typ, b, nbits); same {
			e.same++
			ver = v
		}
	}
	r.add(e, roundComp{typ: uint16(typ), nbits: nbits, ver: ver, kOff: uint32(kOff), kLen: uint32(len(r.keys) - kOff)}, b)
}

// add appends c, whose bits are b, as e's component (e the current entity).
func (r *Round) add(e *roundEnt, c roundComp, b []byte) {
	// A component after the entity's others in type order (the usual
	// order) can be neither a second of a type nor out of place.
	inOrder := e.end == e.first || c.typ > r.comps[e.end-1].typ
	if !inOrder {
		for _, o := range r.comps[e.first:e.end] {
			if o.typ == c.typ {
				panic(fmt.Sprintf("replication: entity %v given component type %d twice", e.id, c.typ))
			}
		}
	}
	c.off = uint32(len(r.data))
	r.comps = append(r.comps, c)
	r.data = append(r.data, b...)
	e.end++
	if inOrder {
		return
	}
	// Keep the entity's components sorted by type: an insertion step, since
	// an entity has a handful and they usually come in order.
	cs := r.comps[e.first:e.end]
	for j := len(cs) - 1; j > 0 && cs[j].typ < cs[j-1].typ; j-- {
		cs[j], cs[j-1] = cs[j-1], cs[j]
	}
}

// sameAsPrev reports whether the previous round's entity p had a
// component of type typ with exactly these bits, and if so its version.
func (r *Round) sameAsPrev(p *roundEnt, typ int, b []byte, nbits uint32) (ver uint64, same bool) {
	for _, c := range r.prevComps[p.first:p.end] {
		if int(c.typ) == typ {
			if c.nbits == nbits && bytes.Equal(r.prevData[c.off:c.off+(nbits+7)/8], b) {
				return c.ver, true
			}
			return 0, false
		}
	}
	return 0, false
}

// memo commits, for the current entity, its component of type typ from the
// previous round as it stands, when that was encoded from exactly the
// inputs in keys[k:] (the caller's record of them, each float by its bits):
// a quantiser gives the same code for the same bits, so the encoding and
// the comparison of its bytes with the previous round's can both be
// skipped. A body at rest, a component no script has touched, a spawn
// record said until confirmed: on most rounds that is most of a world.
// For a NetSpawn the last key is the prefab's index in strs, and the
// prefabs are compared as strings. It reports whether it committed; if
// not, the caller encodes and commits with commitKeyed(typ, k).
func (r *Round) memo(typ int, k int) bool {
	e := &r.ents[len(r.ents)-1]
	if e.prev < 0 {
		return false
	}
	p := &r.prevEnts[e.prev]
	var pc *roundComp
	for i := p.first; i < p.end; i++ {
		if c := &r.prevComps[i]; int(c.typ) == typ {
			pc = c
			break
		}
	}
	key := r.keys[k:]
	if pc == nil || int(pc.kLen) != len(key) || len(key) == 0 {
		return false
	}
	prev := r.prevKeys[pc.kOff : pc.kOff+pc.kLen]
	n := len(key)
	if typ == TypeNetSpawn {
		n--
		if r.prevStrs[prev[n]] != r.strs[key[n]] {
			return false
		}
	}
	if !slices.Equal(prev[:n], key[:n]) {
		return false
	}
	r.add(e, roundComp{typ: pc.typ, nbits: pc.nbits, ver: pc.ver, kOff: uint32(k), kLen: pc.kLen}, r.prevData[pc.off:pc.off+(pc.nbits+7)/8])
	e.same++
	return true
}

// Transform adds the current entity's Transform and returns the scale every
// end will hold for it (wire.NetScale of t.Scale): what the server simulates
// must be what every client is told, so the host writes it back into its
// component. Positions beyond wire.Position's range are clamped to it (an
// infinity to its end, NaN to 0) and a non-finite angle is 0, so nothing
// non-finite reaches the wire. A silent entity's Transform is not described
// and its scale comes back unchanged.
func (r *Round) Transform(t entity.Transform) (scale float64) {
	if !r.says("Transform", TypeTransform) {
		return t.Scale
	}
	t.Scale = wire.NetScale(t.Scale)
	k := len(r.keys)
	r.keys = append(r.keys, math.Float64bits(t.X), math.Float64bits(t.Y), math.Float64bits(t.Angle), math.Float64bits(t.Scale))
	// The position's and angle's steps, which the turn keeps, are its
	// codes less their zeros' (see transformSteps): encoded once.
	x, y, n := transformSteps(t)
	if !r.memo(TypeTransform, k) {
		writeTransformCodes(r.begin(), codeOf(wire.Position, x), codeOf(wire.Position, y), uint64(int64(n)+angleHalf+1), t.Scale)
		r.commitKeyed(TypeTransform, k)
	}
	e := &r.ents[len(r.ents)-1]
	e.x, e.y, e.placed = float32(t.X), float32(t.Y), true
	if n == -angleHalf {
		n = angleHalf // as turnOf has it
	}
	e.turn.n, e.turn.scale = n, float32(t.Scale)
	e.turn.x, e.turn.y = x, y
	return t.Scale
}

// Rigidbody adds the current entity's Rigidbody. Velocities beyond their
// quantisers' ranges are clamped (an infinity to the end, NaN to 0).
func (r *Round) Rigidbody(b entity.Rigidbody) {
	if !r.says("Rigidbody", TypeRigidbody) {
		return
	}
	k := len(r.keys)
	awake := uint64(0)
	if b.Awake {
		awake = 1
	}
	r.keys = append(r.keys, math.Float64bits(b.VX), math.Float64bits(b.VY), math.Float64bits(b.AngularVelocity), awake)
	e := &r.ents[len(r.ents)-1]
	av := wire.AngularVelocity.Encode(b.AngularVelocity)
	vx, vy := steps(wire.Velocity, b.VX), steps(wire.Velocity, b.VY)
	e.turn.av = uint32(av)
	e.turn.vx, e.turn.vy = int16(vx), int16(vy)
	e.vx, e.vy, e.hasV = b.VX, b.VY, true
	if e.prev >= 0 {
		if p := &r.prevEnts[e.prev]; p.hasV {
			e.vturn = velocityTurn(p.vx, p.vy, p.vturn, b.VX, b.VY, r.tick-r.prevTick)
			e.turn.vt = int16(rounded(e.vturn*(1<<vtShift), maxVT))
		}
	}
	if r.memo(TypeRigidbody, k) {
		return
	}
	writeRigidbodyCodes(r.begin(), codeOf(wire.Velocity, vx), codeOf(wire.Velocity, vy), av, b.Awake)
	r.commitKeyed(TypeRigidbody, k)
}

// CharacterController adds the current entity's CharacterController, of
// which only Grounded replicates.
func (r *Round) CharacterController(c entity.CharacterController) {
	if !r.says("CharacterController", TypeCharacterController) {
		return
	}
	r.begin().WriteBool(c.Grounded)
	r.commit(TypeCharacterController)
}

// NetSpawn adds the current entity's NetSpawn, said until each connection
// confirms it, for static bodies too. A spawn whose path, pose or slots
// would be refused is not added and the reason returned (the server refuses
// such a spawn before building it; see CheckSpawnPath). An instance with
// more than MaxSpawnSlots entities is added with no slots, and ErrSpawnSlots
// returned so the caller can log it.
func (r *Round) NetSpawn(ns entity.NetSpawn) error {
	if !r.says("NetSpawn", TypeNetSpawn) {
		return nil
	}
	k, si := len(r.keys), len(r.strs)
	r.keys = append(r.keys, math.Float64bits(ns.Pose.X), math.Float64bits(ns.Pose.Y), math.Float64bits(ns.Pose.Angle),
		math.Float64bits(ns.Pose.Scale), uint64(len(ns.Slots)))
	for _, sl := range ns.Slots {
		r.keys = append(r.keys, uint64(sl.UID)<<32|uint64(sl.Slot))
	}
	r.keys = append(r.keys, uint64(si)) // the prefab, by its index in strs
	r.strs = append(r.strs, ns.Prefab)
	var err error
	if len(ns.Slots) > MaxSpawnSlots {
		err = ErrSpawnSlots
	}
	if r.memo(TypeNetSpawn, k) {
		return err // the record of the round before, which passed every check
	}
	if e := checkSpawn(&ns); e != nil {
		r.keys, r.strs = r.keys[:k], r.strs[:si]
		return e
	}
	writeSpawn(r.begin(), &ns)
	r.commitKeyed(TypeNetSpawn, k)
	return err
}

// checkSpawn returns why ns would be refused, or nil. Too many slots is
// not a refusal: ns is then written with none (see NetSpawn).
func checkSpawn(ns *entity.NetSpawn) error {
	if err := CheckSpawnPath(ns.Prefab); err != nil {
		return err
	}
	if err := CheckSpawnPose(ns.Pose); err != nil {
		return err
	}
	if len(ns.Slots) > MaxSpawnSlots {
		return nil
	}
	return checkSpawnSlots(ns.Slots)
}

// Project adds the current entity's component of project type typ (its
// index in Schema.Types), each field through its codec. A value beyond a
// field's range is clamped, a non-finite one taken as 0 (Codec.Quantize);
// missing trailing fields are 0. An unknown type or more values than the
// type has fields is refused.
func (r *Round) Project(typ int, v entity.Values) error {
	if typ < 0 || typ >= len(r.schema.Types) {
		return fmt.Errorf("replication: project component type %d is not in the schema", typ)
	}
	t := &r.schema.Types[typ]
	if len(v) > len(t.Fields) {
		return fmt.Errorf("replication: %s has %d fields, given %d values", t.Name, len(t.Fields), len(v))
	}
	if !r.says(t.Name, EngineTypes+typ) {
		return nil
	}
	k := len(r.keys)
	r.keys = append(r.keys, uint64(len(v)))
	for _, x := range v {
		r.keys = append(r.keys, math.Float64bits(x))
	}
	if r.memo(EngineTypes+typ, k) {
		return nil
	}
	writeValues(r.begin(), t, v)
	r.commitKeyed(EngineTypes+typ, k)
	return nil
}

// index returns the position in ents of the occupant id, or -1 when the
// round does not hold it.
func (r *Round) index(id entity.ID) int {
	i := int(r.bySlot.get(id.Slot)) - 1
	if i < 0 || r.ents[i].id != id {
		return -1
	}
	return i
}

// occupant returns who holds slot in this round, or entity.None.
func (r *Round) occupant(slot uint32) entity.ID {
	if i := r.bySlot.get(slot); i > 0 {
		return r.ents[i-1].id
	}
	return entity.None
}

// comp returns entity e's component of type typ, or nil.
func (r *Round) comp(e *roundEnt, typ int) *roundComp {
	for i := e.first; i < e.end; i++ {
		if c := &r.comps[i]; int(c.typ) == typ {
			return c
		} else if int(c.typ) > typ {
			break
		}
	}
	return nil
}

// word returns c's bits, fewer than 64, as one word (lowest first).
func (r *Round) word(c *roundComp) uint64 {
	b := r.data[c.off:]
	var v uint64
	if len(b) >= 8 {
		v = binary.LittleEndian.Uint64(b)
	} else {
		var t [8]byte
		copy(t[:], b)
		v = binary.LittleEndian.Uint64(t[:])
	}
	return v & (1<<c.nbits - 1)
}

// bits returns c's encoded bytes.
func (r *Round) bits(c *roundComp) []byte {
	return r.data[c.off : c.off+(c.nbits+7)/8]
}

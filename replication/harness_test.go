package replication

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"vkm/internal/entity"
	"vkm/wire"
)

// budgetBytes is transport.MaxDataPayload (1200 − 12 − 24 − 10), written as a
// number so replication does not import transport.
const budgetBytes = 1154

// testSchema returns a schema with one project type, Health {hp int
// 0..100}, and a second, Tint {r fixed 0..1 step 1/256}.
func testSchema(t testing.TB) *Schema {
	t.Helper()
	var s Schema
	hp, err := IntCodec(0, 100)
	if err != nil {
		t.Fatal(err)
	}
	tint, err := FixedCodec(0, 1, 1.0/256)
	if err != nil {
		t.Fatal(err)
	}
	for _, ty := range []Type{
		{Name: "Health", Fields: []Field{{Name: "hp", Codec: hp}}, Where: "main.lua:3"},
		{Name: "Tint", Fields: []Field{{Name: "r", Codec: tint}}, Where: "main.lua:4"},
	} {
		if err := s.Add(ty); err != nil {
			t.Fatal(err)
		}
	}
	return &s
}

const (
	typHealth = EngineTypes + 0
	typTint   = EngineTypes + 1
)

// wEnt is one entity of the test server's world.
type wEnt struct {
	id      entity.ID
	silence Silence
	t       *entity.Transform
	rb      *entity.Rigidbody
	cc      *entity.CharacterController
	ns      *entity.NetSpawn
	health  entity.Values
	tint    entity.Values
}

// world is the test server's entity store.
type world struct {
	ents map[uint32]*wEnt
	gens map[uint32]uint32
}

func newWorld() *world {
	return &world{ents: map[uint32]*wEnt{}, gens: map[uint32]uint32{}}
}

// spawn puts a new occupant at slot (its generation one above the last)
// with a Transform at x.
func (w *world) spawn(slot uint32, silence Silence, x float64) *wEnt {
	w.gens[slot]++
	e := &wEnt{id: entity.ID{Slot: slot, Gen: w.gens[slot]}, silence: silence,
		t: &entity.Transform{X: x, Scale: 1}}
	w.ents[slot] = e
	return e
}

func (w *world) destroy(slot uint32) { delete(w.ents, slot) }

func (w *world) slots() []uint32 {
	s := make([]uint32, 0, len(w.ents))
	for k := range w.ents {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}

// build fills r from the world, as a host would.
func (w *world) build(tb testing.TB, r *Round, tick uint32) {
	tb.Helper()
	r.Begin(tick)
	for _, slot := range w.slots() {
		e := w.ents[slot]
		r.Entity(e.id, e.silence)
		if e.t != nil {
			e.t.Scale = r.Transform(*e.t)
		}
		if e.rb != nil {
			r.Rigidbody(*e.rb)
		}
		if e.cc != nil {
			r.CharacterController(*e.cc)
		}
		if e.ns != nil {
			if err := r.NetSpawn(*e.ns); err != nil {
				tb.Fatal(err)
			}
		}
		if e.health != nil {
			if err := r.Project(0, e.health); err != nil {
				tb.Fatal(err)
			}
		}
		if e.tint != nil {
			if err := r.Project(1, e.tint); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// rEnt is one entity as the test client holds it: components by wire type,
// as their canonical encoded bits.
type rEnt struct {
	id    entity.ID
	comps map[int][]byte
}

func (e *rEnt) String() string {
	types := make([]int, 0, len(e.comps))
	for t := range e.comps {
		types = append(types, t)
	}
	sort.Ints(types)
	return fmt.Sprintf("%v%v", e.id, types)
}

// receiver is a tiny client: it decodes each snapshot whole, then applies
// it as Snapshot's doc says, refusing packets older than the newest it
// applied (as the transport does).
type receiver struct {
	s       *Schema
	ents    map[uint32]*rEnt
	newest  wire.Seq
	have    bool
	sn      Snapshot
	refs    Refs // what the command feedback resolves against
	applied int
}

func newReceiver(s *Schema) *receiver {
	rc := &receiver{s: s, ents: map[uint32]*rEnt{}}
	rc.sn.TickRate = harnessTickRate
	return rc
}

// deliver applies payload if seq is newer than anything applied; it
// reports whether it did.
func (rc *receiver) deliver(tb testing.TB, seq wire.Seq, payload []byte) bool {
	tb.Helper()
	if rc.have && !seq.Newer(rc.newest) {
		return false
	}
	if err := rc.sn.Decode(rc.s, payload, rc.refs); err != nil {
		tb.Fatalf("seq %d: %v", seq, err)
	}
	rc.apply(&rc.sn)
	rc.newest, rc.have = seq, true
	rc.applied++
	return true
}

func (rc *receiver) apply(sn *Snapshot) {
	for _, id := range sn.Removals {
		if e := rc.ents[id.Slot]; e != nil && e.id == id {
			delete(rc.ents, id.Slot)
		}
	}
	for i := range sn.Entries {
		en := &sn.Entries[i]
		e := rc.ents[en.ID.Slot]
		if e == nil || e.id != en.ID {
			e = &rEnt{id: en.ID, comps: map[int][]byte{}}
			rc.ents[en.ID.Slot] = e
		}
		if en.Fresh {
			clear(e.comps)
		}
		for _, ch := range en.Changes {
			if ch.Removed {
				delete(e.comps, ch.Type)
			} else {
				e.comps[ch.Type] = encodeChange(rc.s, en, ch)
			}
		}
	}
}

// encodeChange returns the canonical bits of one carried component.
func encodeChange(s *Schema, en *Entry, ch Change) []byte {
	b, _ := encodeChangeBits(s, en, ch)
	return b
}

// encodeChangeBits returns the canonical bits of one carried component and
// how many there are.
func encodeChangeBits(s *Schema, en *Entry, ch Change) ([]byte, int) {
	var w wire.Writer
	switch ch.Type {
	case TypeTransform:
		writeTransform(&w, en.Transform)
	case TypeRigidbody:
		writeRigidbody(&w, en.Rigidbody)
	case TypeCharacterController:
		w.WriteBool(en.Character.Grounded)
	case TypeNetSpawn:
		if en.SpawnRefused {
			return []byte("refused"), 0
		}
		writeSpawn(&w, &en.Spawn)
	default:
		writeValues(&w, &s.Types[ch.Type-EngineTypes], ch.Values)
	}
	return slices.Clone(w.Bytes()), w.Len()
}

// expected returns what a client should hold of round r: every entity the
// round says something of, with the components its class puts on the wire.
func expected(r *Round) map[uint32]*rEnt {
	m := map[uint32]*rEnt{}
	for i := range r.ents {
		e := &r.ents[i]
		if e.silence == InInstance || e.first == e.end {
			continue
		}
		x := &rEnt{id: e.id, comps: map[int][]byte{}}
		for _, c := range r.comps[e.first:e.end] {
			x.comps[int(c.typ)] = slices.Clone(r.bits(&c))
		}
		m[e.id.Slot] = x
	}
	return m
}

// diff describes how got differs from want, or returns "".
func diff(want, got map[uint32]*rEnt) string {
	var out bytes.Buffer
	for slot, w := range want {
		g := got[slot]
		switch {
		case g == nil:
			fmt.Fprintf(&out, "slot %d: missing %v\n", slot, w)
		case g.id != w.id:
			fmt.Fprintf(&out, "slot %d: holds %v, want %v\n", slot, g, w)
		default:
			for t, b := range w.comps {
				if gb, ok := g.comps[t]; !ok || !bytes.Equal(gb, b) {
					fmt.Fprintf(&out, "slot %d %v: type %d = %x, want %x\n", slot, w.id, t, gb, b)
				}
			}
			for t := range g.comps {
				if _, ok := w.comps[t]; !ok {
					fmt.Fprintf(&out, "slot %d %v: stray type %d\n", slot, w.id, t)
				}
			}
		}
	}
	for slot, g := range got {
		if want[slot] == nil {
			fmt.Fprintf(&out, "slot %d: stray %v\n", slot, g)
		}
	}
	return out.String()
}

// packet is a snapshot on the simulated link.
type packet struct {
	seq  wire.Seq
	data []byte
	at   int // the round it arrives in
}

// sim runs a server world, one Peer, a link and a receiver, round by round.
// Acknowledgements reach the server one round after the receiver applies a
// packet, cumulatively (as an ack field does). A packet is lost, to the
// server, once a newer one is acknowledged and it was not applied (the
// receiver refuses it now) or its acknowledgement was lost on the way back.
type sim struct {
	tb     testing.TB
	rng    *rand.Rand
	s      *Schema
	w      *world
	r      *Round
	p      *Peer
	rc     *receiver
	own    entity.ID
	budget int

	loss, dup, reorder, ackLoss float64
	foldAtSend                  bool // the wrong variant: claims folded when sent
	clean                       bool // settling: no loss whatever decide says

	round    int
	seq      wire.Seq
	queue    []packet
	applied  map[wire.Seq]bool
	ackLost  map[wire.Seq]bool
	ackAt    map[wire.Seq]int // the round the server learns it was applied
	newest   wire.Seq         // newest acknowledged, as the server knows
	haveAck  bool
	sent     int
	bytes    int
	worst    int
	lastSize int
	fates    map[wire.Seq]string // what Acknowledge was told, for the checks

	// decide, when set, makes the link's choices for each packet instead
	// of the random ones (the fuzz target drives it from its input).
	decide func() (lose, dup, ackLost bool, delay int)

	// check, when set, compares the Peer's baseline after each Acknowledge
	// with ref: a client fed only the snapshots acknowledged, in send order.
	check     bool
	ref       *receiver
	refOrder  map[wire.Seq]int
	refFolded int
	payloads  map[wire.Seq][]byte

	// twin, when set, is a second Peer told the same answers that plans
	// every slot and looks for removals every round (its quiet marks
	// cleared before each Write): its snapshots must be m.p's byte for
	// byte, so skipping what is quiet never changes what is said.
	twin *Peer

	// vers holds the bits of every component version the rounds made, so
	// the baseline (which keeps versions) can be read back as bits; a
	// version seen again with other bits fails the test.
	vers map[verKey][]byte
}

// verKey names one version of one slot's component.
type verKey struct {
	slot uint32
	typ  int
	ver  uint64
}

// recordVersions adds the round's component versions to m.vers.
func (m *sim) recordVersions() {
	m.tb.Helper()
	for _, e := range m.r.ents {
		for _, rc := range m.r.comps[e.first:e.end] {
			k := verKey{e.id.Slot, int(rc.typ), rc.ver}
			bits := m.r.bits(&rc)
			if old, ok := m.vers[k]; ok {
				if !bytes.Equal(old, bits) {
					m.tb.Fatalf("round %d: slot %d type %d: version %d was %x and is now %x", m.round, k.slot, k.typ, k.ver, old, bits)
				}
				continue
			}
			m.vers[k] = bytes.Clone(bits)
		}
	}
}

func newSim(tb testing.TB, seed uint64) *sim {
	s := testSchema(tb)
	return &sim{
		tb: tb, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		s: s, w: newWorld(), r: NewRound(s), p: newPeer(s), rc: newReceiver(s),
		budget:  budgetBytes,
		applied: map[wire.Seq]bool{}, ackLost: map[wire.Seq]bool{}, ackAt: map[wire.Seq]int{},
		fates: map[wire.Seq]string{},
		ref:   newReceiver(s), refOrder: map[wire.Seq]int{}, payloads: map[wire.Seq][]byte{},
		vers: map[verKey][]byte{},
	}
}

// stopAndConverge stops every body, runs rounds more on the link as it is,
// settles it (see settle) and fails unless the client then holds the
// server's world; what names the run in the failure.
func (m *sim) stopAndConverge(rounds int, what string) {
	m.tb.Helper()
	for _, e := range m.w.ents {
		if e.rb != nil {
			moving(e, 0)
		}
	}
	for range rounds {
		m.step()
	}
	m.settle(20)
	if d := m.converged(); d != "" {
		m.tb.Fatalf("%s: not converged:\n%s", what, d)
	}
}

// reach sets the Reach of the Peer and of its twin, if it has one.
func (m *sim) reach(r Reach) {
	m.p.SetReach(r)
	if m.twin != nil {
		m.twin.SetReach(r)
	}
}

// fate answers for seq as the server knows at this round.
func (m *sim) fate(seq wire.Seq) (acked, lost bool) {
	if at, ok := m.ackAt[seq]; ok && at <= m.round && !m.ackLost[seq] {
		return true, false
	}
	if m.haveAck && m.newest.Newer(seq) && (!m.applied[seq] || m.ackLost[seq]) {
		return false, true
	}
	if wire.Diff(m.seq, seq) > 200 { // the transport forgets; taken as lost
		return false, true
	}
	return false, false
}

// step runs one send round: deliveries due, acknowledgements learnt,
// Acknowledge, the world built, Write, Sent, and the packet put on the link.
func (m *sim) step() {
	m.tb.Helper()
	m.deliver()
	for seq, at := range m.ackAt {
		if at <= m.round && !m.ackLost[seq] && (!m.haveAck || seq.Newer(m.newest)) {
			m.newest, m.haveAck = seq, true
		}
	}
	m.p.Acknowledge(AckFunc(func(seq wire.Seq) (bool, bool) {
		a, l := m.fate(seq)
		if a && m.fates[seq] != "acked" && m.check {
			// The rule, at the level of whole snapshots: an acknowledged
			// snapshot counts, in send order; one acknowledged after a
			// newer one counted does not.
			if o := m.refOrder[seq]; o > m.refFolded {
				if err := m.ref.sn.Decode(m.s, m.payloads[seq], m.ref.refs); err != nil {
					m.tb.Fatal(err)
				}
				m.ref.apply(&m.ref.sn)
				m.refFolded = o
			}
		}
		if a {
			m.fates[seq] = "acked"
		} else if l {
			m.fates[seq] = "lost"
		}
		return a, l
	}))
	if m.check {
		m.checkBaseline()
	}
	if m.twin != nil {
		m.twin.Acknowledge(AckFunc(m.fate))
	}
	m.w.build(m.tb, m.r, uint32(m.round))
	m.recordVersions()
	watched := m.p.watch
	payload := m.p.Write(nil, m.r, m.own, m.budget)
	if d := quietSetDiff(m.p, m.r); d != "" {
		m.tb.Fatalf("round %d: %s", m.round, d)
	}
	if len(payload) > m.budget {
		m.tb.Fatalf("round %d: %d bytes, over the %d budget", m.round, len(payload), m.budget)
	}
	m.seq++
	m.p.Sent(m.seq)
	if n := len(m.p.pending); n > 0 && m.p.pending[n-1].seq == m.seq {
		// Whatever the snapshot wrote waits for nothing now.
		for _, ce := range m.p.pending[n-1].ents {
			if b := m.p.base(ce.id.Slot); b != nil && b.prio != 0 {
				m.tb.Fatalf("round %d: %v written with priority %d left", m.round, ce.id, b.prio)
			}
		}
	}
	if m.twin != nil {
		m.twin.remQuiet = 0
		clear(m.twin.quiets)
		m.twin.quietSeq = 0
		// The twin also plans every candidate up front, walking every
		// entity's types, chooses every moving body's state itself and
		// writes every entry field by field, the round's assembled
		// moving-body entries hidden from it.
		m.twin.eagerPlans, m.twin.ownTurns, m.twin.generalPlans, m.twin.heapRanks = true, true, true, true
		m.twin.fieldWrites = true
		m.twin.watch = watched
		var assembled, deltas []uint32
		for i := range m.r.ents {
			assembled = append(assembled, m.r.ents[i].mvBits)
			deltas = append(deltas, m.r.ents[i].dBits)
			m.r.ents[i].mvBits, m.r.ents[i].dBits = 0, 0
		}
		full := m.twin.Write(nil, m.r, m.own, m.budget)
		for i := range m.r.ents {
			m.r.ents[i].mvBits, m.r.ents[i].dBits = assembled[i], deltas[i]
		}
		if !bytes.Equal(full, payload) {
			m.tb.Fatalf("round %d: skipping quiet slots, planning lazily and copying assembled entries wrote %x; planning every slot up front and writing every field wrote %x", m.round, payload, full)
		}
		// What the Write counted, and what it counted of the watched
		// entity, are the same too: a Write that wrote ahead and undid
		// it (writeInOrder) counts only what it kept.
		if got, want := m.p.Stats(), m.twin.Stats(); got != want {
			m.tb.Fatalf("round %d: stats %+v; the twin's %+v", m.round, got, want)
		}
		if got, want := m.p.Watched(), m.twin.Watched(); got != want {
			m.tb.Fatalf("round %d: watched %+v; the twin's %+v", m.round, got, want)
		}
		m.twin.Sent(m.seq)
	}
	if m.check {
		m.payloads[m.seq] = payload
		m.refOrder[m.seq] = m.sent + 1
	}
	if m.foldAtSend {
		c := m.p.pending[len(m.p.pending)-1]
		m.p.pending = m.p.pending[:len(m.p.pending)-1]
		m.p.fold(c)
	}
	m.sent++
	m.bytes += len(payload)
	m.worst = max(m.worst, len(payload))
	m.lastSize = len(payload)
	m.send(m.seq, payload)
	m.round++
}

func (m *sim) send(seq wire.Seq, payload []byte) {
	lose, dup, ackLost, delay := m.choose()
	if ackLost {
		m.ackLost[seq] = true
	}
	if lose {
		return
	}
	m.queue = append(m.queue, packet{seq: seq, data: payload, at: m.round + delay})
	if dup {
		m.queue = append(m.queue, packet{seq: seq, data: payload, at: m.round + 1 + m.rng.IntN(4)})
	}
}

// choose makes the link's choices for one packet.
func (m *sim) choose() (lose, dup, ackLost bool, delay int) {
	if m.decide != nil && !m.clean {
		return m.decide()
	}
	delay = 1
	if m.rng.Float64() < m.reorder {
		delay += 1 + m.rng.IntN(3)
	}
	return m.rng.Float64() < m.loss, m.rng.Float64() < m.dup, m.rng.Float64() < m.ackLoss, delay
}

// checkBaseline compares the Peer's baseline with ref, the client that saw
// only acknowledged snapshots: every occupant must match, and every
// component the Peer does not hold unknown must match bit for bit. So no
// unacknowledged claim is in the baseline, and every acknowledged one is.
func (m *sim) checkBaseline() {
	m.tb.Helper()
	for i := range m.p.bases {
		b := &m.p.bases[i]
		re := m.ref.ents[b.slot]
		want := entity.None
		if re != nil {
			want = re.id
		}
		if b.occ != want {
			m.tb.Fatalf("round %d: baseline holds %v at slot %d; acknowledged snapshots say %v", m.round, b.occ, b.slot, want)
		}
		if re == nil {
			continue
		}
		for t := range re.comps {
			if t >= int(b.ntypes) {
				m.tb.Fatalf("round %d: slot %d type %d: beyond the baseline's types, so absent; acknowledged %x", m.round, b.slot, t, re.comps[t])
			}
		}
		for t := range int(b.ntypes) {
			bc := b.at(t)
			got, ok := re.comps[t]
			switch bc.state() {
			case present:
				held := m.vers[verKey{b.slot, t, bc.ver}]
				if !ok || !bytes.Equal(got, held) {
					m.tb.Fatalf("round %d: slot %d type %d: baseline %x (version %d); acknowledged %x", m.round, b.slot, t, held, bc.ver, got)
				}
			case absent:
				if ok {
					m.tb.Fatalf("round %d: slot %d type %d: baseline absent; acknowledged %x", m.round, b.slot, t, got)
				}
			}
		}
	}
	for slot, re := range m.ref.ents {
		if b := m.p.base(slot); b == nil || b.occ != re.id {
			m.tb.Fatalf("round %d: acknowledged %v at slot %d is not in the baseline", m.round, re, slot)
		}
	}
}

func (m *sim) deliver() {
	kept := m.queue[:0]
	for _, pk := range m.queue {
		if pk.at > m.round {
			kept = append(kept, pk)
			continue
		}
		if m.rc.deliver(m.tb, pk.seq, pk.data) {
			m.applied[pk.seq] = true
			m.ackAt[pk.seq] = m.round + 1
		}
	}
	m.queue = kept
}

// converged reports how the receiver differs from the last round built.
func (m *sim) converged() string { return diff(expected(m.r), m.rc.ents) }

// settle runs rounds on a clean link until every packet is answered.
func (m *sim) settle(rounds int) {
	m.loss, m.dup, m.reorder, m.ackLoss = 0, 0, 0, 0
	m.clean = true
	for range rounds {
		m.step()
	}
}

// headerOwnBytes returns the size of a snapshot holding only the header
// and the own entity, as the last round stands.
func (m *sim) headerOwnBytes() int {
	var w wire.Writer
	m.p.writeHeader(&w, m.r.tick, m.own)
	bits := w.Len() + 1 + 1 // removals' end, entries' end
	if i := m.r.index(m.own); i >= 0 {
		b, _ := m.p.plan(m.r, &m.r.ents[i], true)
		bits += b
	}
	return (bits + 7) / 8
}

// moving gives e a Rigidbody moving at v and steps its Transform.
func moving(e *wEnt, v float64) {
	if e.rb == nil {
		e.rb = &entity.Rigidbody{}
	}
	e.rb.VX, e.rb.Awake = v, v != 0
	e.rb.AngularVelocity = v * 64 / 100 // the turn below, a second's worth
	e.t.X += v / 64
	e.t.Angle += v / 100
}

// harnessTickRate is the tick rate the harness's Peers and receivers
// reckon predicted turns in.
const harnessTickRate = 64

// newPeer returns a Peer over s at the harness's tick rate.
func newPeer(s *Schema) *Peer {
	p := NewPeer(s)
	p.SetTickRate(harnessTickRate)
	return p
}

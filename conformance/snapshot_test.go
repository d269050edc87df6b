package conformance

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// transcriptSnapshot is the packet proper of the transcript's first
// snapshot, and the context its client reads it in: nothing read before,
// and the commands of the last command packet it sent (its newest command
// and, at least, that command's tick on its clock).
func transcriptSnapshot(t testing.TB) ([]byte, SnapshotContext) {
	t.Helper()
	tr := readTranscript(t)
	j := decodeJoin(t, tr)
	trace := walkData(t, tr, j)
	d := trace.snapshots[0]
	p, err := ParsePayload(trace.conns[d.n].Payload, true)
	if err != nil || p.Flags != 0 {
		t.Fatalf("datagram %d payload: flags %#x, %v", d.n, p.Flags, err)
	}
	var ctx SnapshotContext
	if cp, ok := lastCommands(t, trace, d); ok {
		n := uint32(len(cp.Commands))
		ctx.NewestCommand, ctx.ClientTick = cp.FirstSequence+n-1, cp.FirstTick+n-1
	}
	return p.Packet, ctx
}

// lastCommands is the last command packet the client sent before
// datagram d, if any.
func lastCommands(t testing.TB, trace dataTrace, d datagram) (CommandPacket, bool) {
	t.Helper()
	var cp CommandPacket
	found := false
	for _, c := range trace.commands {
		if c.at >= d.at {
			continue
		}
		p, err := ParsePayload(trace.conns[c.n].Payload, false)
		if err != nil {
			t.Fatalf("datagram %d: %v", c.n, err)
		}
		axes, buttons := transcriptActions(t)
		if cp, err = ParseCommandPacket(p.Packet, axes, buttons); err != nil {
			t.Fatalf("datagram %d: %v", c.n, err)
		}
		found = true
	}
	return cp, found
}

// TestTranscriptSnapshot decodes the transcript's snapshot whole and
// compares it with what the doc's example says of it: the first of a
// connection, so full; the schema has no project types; own entity 60#1,
// a body moving at (1.5, −2) with velocity (3, 0.25), written as a moving
// body; entity 61#3 at rest at (−4, 0.5), a Transform and a grounded
// CharacterController and no Rigidbody; command feedback newest 2, judged
// 1000, low water 1.
func TestTranscriptSnapshot(t *testing.T) {
	b, ctx := transcriptSnapshot(t)
	s, err := ParseSnapshot(b, ctx)
	if err != nil {
		t.Fatal(err)
	}
	own, other := Entity{60, 1}, Entity{61, 3}
	if !s.Full || !s.Stated || !s.HasOwn || s.Own != own {
		t.Errorf("header full %v stated %v own %v %v; the first snapshot is full and states 60#1", s.Full, s.Stated, s.HasOwn, s.Own)
	}
	if !s.HasFeedback || s.Newest != 2 || s.Judged != 1000 || s.LowWater != 1 {
		t.Errorf("feedback %v: newest %d judged %d low water %d; want 2, 1000, 1", s.HasFeedback, s.Newest, s.Judged, s.LowWater)
	}
	checkFeedback(t, s)
	if len(s.Removals) != 0 || len(s.Entries) != 2 || s.Entries[0].Entity != own || s.Entries[1].Entity != other {
		t.Fatalf("removals %v, entries %v; want none and 60#1 (first: the own entity's) and 61#3", s.Removals, s.Entries)
	}
	checkOwnEntry(t, s.Entries[0])
	checkRestingCharacter(t, s.Entries[1])
	wantBits := s.HeaderBits + 1 + s.Entries[0].Bits + s.Entries[1].Bits + 1
	if (wantBits+7)/8 != len(b) {
		t.Errorf("%d bits in %d bytes", wantBits, len(b))
	}
	checkEngineOnlySchema(t)
}

// checkFeedback holds the header's feedback to "Snapshots": the bit before
// it is 0 until the server holds a command of the client's, the newest
// sequence is not above the newest the client made, and the judged tick is
// one of its commands' ticks or at most 10 past one.
func checkFeedback(t *testing.T, s Snapshot) {
	t.Helper()
	tr := readTranscript(t)
	trace := walkData(t, tr, decodeJoin(t, tr))
	d := trace.snapshots[0]
	cp, held := lastCommands(t, trace, d)
	if s.HasFeedback != held {
		t.Errorf("datagram %d: the feedback bit is %v; the server holds a command of the client's: %v", d.n, s.HasFeedback, held)
	}
	if !held || !s.HasFeedback {
		return
	}
	n := uint32(len(cp.Commands))
	if s.Newest < cp.FirstSequence || s.Newest > cp.FirstSequence+n-1 {
		t.Errorf("newest %d; the server holds commands %d..%d", s.Newest, cp.FirstSequence, cp.FirstSequence+n-1)
	}
	if s.Judged < cp.FirstTick || s.Judged > cp.FirstTick+n-1+10 {
		t.Errorf("judged %d; the commands' ticks are %d..%d, and a judged tick at most 10 past one", s.Judged, cp.FirstTick, cp.FirstTick+n-1)
	}
}

// checkOwnEntry: 60#1 is a fresh body written as a moving body, whole, 93 bits:
// at (1.5, −2), upright, velocity (3, 0.25), not spinning (its turn
// still); a moving body has no CharacterController or NetSpawn.
func checkOwnEntry(t *testing.T, e Entry) {
	t.Helper()
	if !e.Fresh || !e.Moving || e.Bits != 93 || e.Grounded != nil || e.NetSpawn != nil || len(e.Project) != 0 {
		t.Errorf("60#1: fresh %v moving %v, %d bits; a fresh moving body of 93 bits", e.Fresh, e.Moving, e.Bits)
	}
	if e.Turn == nil || e.Turn.Form != "still" {
		t.Errorf("60#1: turn %+v; want still", e.Turn)
	}
	tf, rb := e.Transform, e.Rigidbody
	if tf == nil || rb == nil {
		t.Fatal("60#1 without its Transform and Rigidbody")
	}
	if tf.XCode != PositionCodec.code(1.5) || tf.YCode != PositionCodec.code(-2) || tf.Turned || tf.Scale != 1 {
		t.Errorf("60#1 transform %+v; want (1.5, −2), upright", *tf)
	}
	if !rb.Moving || !rb.Awake || rb.VXCode != VelocityCodec.code(3) || rb.VYCode != VelocityCodec.code(0.25) || rb.Spinning {
		t.Errorf("60#1 rigidbody %+v; want moving (3, 0.25), not spinning", *rb)
	}
}

// checkRestingCharacter: 61#3 is fresh and at rest at (−4, 0.5): a
// Transform and a grounded CharacterController, and no Rigidbody.
func checkRestingCharacter(t *testing.T, e Entry) {
	t.Helper()
	if !e.Fresh || e.Moving || len(e.Removed) != 0 || e.NetSpawn != nil || len(e.Project) != 0 {
		t.Errorf("61#3: fresh %v moving %v removed %v", e.Fresh, e.Moving, e.Removed)
	}
	if e.Transform == nil || e.Transform.XCode != PositionCodec.code(-4) || e.Transform.YCode != PositionCodec.code(0.5) || e.Transform.Turned {
		t.Errorf("61#3 transform %+v; want (−4, 0.5), upright", e.Transform)
	}
	if e.Grounded == nil || !*e.Grounded {
		t.Error("61#3 is not a grounded character")
	}
	if e.Rigidbody != nil {
		t.Errorf("61#3 has a Rigidbody %+v; the doc says none", *e.Rigidbody)
	}
}

// checkEngineOnlySchema: the doc's example says the snapshot's schema has
// no project types, so it decodes (whole, exactly) under a schema with
// none and not under one with a project type, and the transcript's Hellos
// name that schema: the engine-only vector's fingerprint.
func checkEngineOnlySchema(t *testing.T) {
	t.Helper()
	b, ctx := transcriptSnapshot(t)
	ctx.Project = []SchemaType{{Name: "P", Project: []ProjectField{{Name: "b", Kind: CodecBool, Width: 1}}}}
	if _, err := ParseSnapshot(b, ctx); err == nil {
		t.Error("the snapshot also decodes under a schema with a project type")
	}
	j := decodeJoin(t, readTranscript(t))
	want := fingerprintVectors(t, schemaFile)["engine-only"].want
	for _, h := range []Hello{j.first, j.echo} {
		if h.SchemaFP != want {
			t.Errorf("a Hello's schema fingerprint is %#x, not the engine-only schema's %#x: the snapshot decodes under a schema with no project types", h.SchemaFP, want)
		}
	}
}

// TestSnapshotPrefixes: every strict prefix of the transcript's snapshot
// is refused, and so is a byte after it.
func TestSnapshotPrefixes(t *testing.T) {
	b, ctx := transcriptSnapshot(t)
	for n := range len(b) {
		if _, err := ParseSnapshot(b[:n], ctx); err == nil {
			t.Errorf("the %d-byte prefix is accepted", n)
		}
	}
	if _, err := ParseSnapshot(append(bytes.Clone(b), 0), ctx); err == nil {
		t.Error("a byte after the end is accepted")
	}
	padded := bytes.Clone(b)
	padded[len(padded)-1] |= 0x80 // 278 bits: the top two bits of the last byte are padding
	if _, err := ParseSnapshot(padded, ctx); err == nil {
		t.Error("non-zero padding is accepted")
	}
}

// bitWriter builds bit fields as "Conventions" packs them, for the checks
// that hold the doc's stated sizes to its layout.
type bitWriter struct {
	b []byte
	n int
}

func (w *bitWriter) put(v uint64, n int) *bitWriter {
	for i := range n {
		if w.n%8 == 0 {
			w.b = append(w.b, 0)
		}
		w.b[w.n/8] |= byte(v>>i&1) << (w.n % 8)
		w.n++
	}
	return w
}

func (w *bitWriter) flag(f bool) *bitWriter {
	if f {
		return w.put(1, 1)
	}
	return w.put(0, 1)
}

func (w *bitWriter) varint(v uint32, g int) *bitWriter {
	for {
		w.put(uint64(v)&(1<<g-1), g)
		v >>= g
		w.flag(v != 0)
		if v == 0 {
			return w
		}
	}
}

func (w *bitWriter) entity(e Entity) *bitWriter {
	return w.varint(e.Slot, slotGroup).varint(e.Generation, genGroup)
}

// settledHeader writes a short header: full 0, tick, stated 0, the
// feedback.
func (w *bitWriter) settledHeader() *bitWriter {
	return w.flag(false).put(1000, 16).flag(false).flag(true).put(2, 16).put(5001, 16).put(1, 4).flag(false)
}

// gapHeader writes a short header as settledHeader does, with a gap of 2
// ticks for predicted turns.
func (w *bitWriter) gapHeader() *bitWriter {
	return w.flag(false).put(1000, 16).flag(false).flag(true).put(2, 16).put(5001, 16).put(1, 4).flag(true).put(1, 4)
}

// motion writes a moving-body entry's whole form up to its turn: the
// form bit 0, x, y, vx and vy (its turn is the caller's).
func (w *bitWriter) motion(x, y, vx, vy float64) *bitWriter {
	return w.flag(false).put(PositionCodec.code(x), 22).put(PositionCodec.code(y), 22).
		put(VelocityCodec.code(vx), 16).put(VelocityCodec.code(vy), 16)
}

// wholeTurn writes the turn of a whole form, turned: angle, no scale, and
// the spin (none at 0).
func (w *bitWriter) wholeTurn(angle, spin float64) *bitWriter {
	w.flag(true).put(AngleCodec.code(angle), 18).flag(false).flag(spin != 0)
	if spin != 0 {
		w.put(SpinCodec.code(spin), 20)
	}
	return w
}

func (w *bitWriter) transform(x, y, angle float64) *bitWriter {
	w.put(PositionCodec.code(x), 22).put(PositionCodec.code(y), 22).flag(angle != 0)
	if angle != 0 {
		w.put(AngleCodec.code(angle), 18).flag(false)
	}
	return w
}

// movingBody writes vx, vy and the spin of a moving Rigidbody (its moving
// bit is the caller's).
func (w *bitWriter) movingBody(vx, vy, spin float64) *bitWriter {
	w.put(VelocityCodec.code(vx), 16).put(VelocityCodec.code(vy), 16).flag(spin != 0)
	if spin != 0 {
		w.put(SpinCodec.code(spin), 20)
	}
	return w
}

// settled is the context of a client that has read a snapshot before.
var settled = SnapshotContext{Read: true, LastTick: 999, LastOwn: Entity{60, 1}, LastHasOwn: true, NewestCommand: 2, ClientTick: 5001}

// TestStatedSizes holds the sizes "Snapshots" states to its layout: a
// settled header of 56 bits, 60 with a gap; a running character as a
// moving body, whole, 93; the own running character with every
// component, 102; a moving, turning, spinning body whole, 133, predicted
// exactly from the header's gap, 24, and its angle a step off, 26; and a
// command packet's 109 header bits.
func TestStatedSizes(t *testing.T) {
	w := (&bitWriter{}).settledHeader()
	if s, err := ParseSnapshot(w.put(0, 2).b, settled); err != nil || s.HeaderBits != 56 {
		t.Errorf("settled header: %d bits (%v); the doc says 56", s.HeaderBits, err)
	}
	w = (&bitWriter{}).gapHeader()
	if s, err := ParseSnapshot(w.put(0, 2).b, settled); err != nil || s.HeaderBits != 60 || s.Gap != 2 {
		t.Errorf("settled header with a gap: %d bits, gap %d (%v); the doc says 60", s.HeaderBits, s.Gap, err)
	}
	start := func(w *bitWriter) *bitWriter { return w.flag(true).entity(Entity{60, 1}).flag(false).flag(true) }
	moving := func(w *bitWriter) *bitWriter { return start(w).motion(1.5, -2, 3, 0.25) }
	cases := []struct {
		name  string
		entry func(w *bitWriter)
		bits  int
		turn  Turn
	}{
		{"a running character as a moving body", func(w *bitWriter) { moving(w).flag(false) }, 93, Turn{Form: "still"}},
		{"the own running character", func(w *bitWriter) {
			w.flag(true).entity(Entity{60, 1}).flag(false).flag(false).put(0b0111, 4)
			w.flag(true).transform(1.5, -2, 0).flag(true).flag(true).movingBody(3, 0.25, 0).flag(true).flag(true)
		}, 102, Turn{}},
		{"a moving, turning, spinning body, whole", func(w *bitWriter) { moving(w).wholeTurn(0.5, 1) }, 133, Turn{Form: "whole"}},
		{"a moving, turning body predicted exactly", func(w *bitWriter) { start(w).flag(true).flag(false).put(0x7f, 7) }, 24,
			Turn{Form: "header", Gap: 2}},
		{"a moving, turning body predicted, its angle a step off", func(w *bitWriter) {
			start(w).flag(true).flag(false).put(0x3f, 6).put(0b010, 3) // residue zigzag 1: −1
		}, 26, Turn{Form: "header", Gap: 2, Residue: -1}},
		{"a moving body predicted from a gap of its own", func(w *bitWriter) {
			start(w).flag(true).flag(true).put(4, 4).put(0b110, 3).put(0x3f, 6) // gap 5; velocity turn zigzag 2: +1
		}, 30, Turn{Form: "gap", Gap: 5, VelocityTurn: 1}},
	}
	for _, c := range cases {
		w := (&bitWriter{}).gapHeader().flag(false)
		c.entry(w)
		s, err := ParseSnapshot(w.flag(false).b, settled)
		if err != nil || len(s.Entries) != 1 || s.Entries[0].Bits != c.bits {
			t.Errorf("%s: %v, %+v; the doc says %d bits", c.name, err, s.Entries, c.bits)
			continue
		}
		if tn := s.Entries[0].Turn; c.turn.Form != "" && (tn == nil || *tn != c.turn) {
			t.Errorf("%s: turn %+v; want %+v", c.name, tn, c.turn)
		}
	}
	if CommandPacketLen(0, 8, 32) != 14 || commandHeadBits != 32+32+32+8+5 {
		t.Error("a command packet's header is not 109 bits in 14 bytes")
	}
}

// TestSnapshotRefusals: each refusal "Snapshots" and "Conventions" list.
func TestSnapshotRefusals(t *testing.T) {
	head := func() *bitWriter { return (&bitWriter{}).settledHeader() }
	// body writes an entry of a moving body (its continuation bit first).
	body := func(w *bitWriter, e Entity) *bitWriter {
		return w.flag(true).entity(e).flag(false).flag(true).motion(1, 1, 1, 0).flag(false)
	}
	// entry starts an entry of a body in motion, after no removals.
	entry := func() *bitWriter { return head().flag(false).flag(true).entity(Entity{5, 1}).flag(false).flag(true) }
	// placed starts an entry carrying a Transform alone, after no
	// removals: the Transform's bits follow.
	placed := func() *bitWriter {
		return head().flag(false).flag(true).entity(Entity{5, 1}).flag(false).flag(false).put(0b0001, 4).flag(true)
	}
	cases := []struct {
		what string
		ctx  SnapshotContext
		b    *bitWriter
	}{
		{"a short tick with nothing read before", SnapshotContext{},
			(&bitWriter{}).flag(false).put(1000, 16).flag(true).flag(false).flag(false).flag(false).flag(false).flag(false)},
		{"an unstated own entity with nothing read before", SnapshotContext{},
			(&bitWriter{}).flag(true).put(1000, 32).flag(false).flag(false).flag(false).flag(false).flag(false)},
		{"a slot in two entries", settled, body(body(head().flag(false), Entity{5, 1}), Entity{5, 2}).flag(false)},
		{"an occupant removed and described", settled, body(head().flag(true).entity(Entity{5, 1}).flag(false), Entity{5, 1}).flag(false)},
		{"a generation of 0", settled, head().flag(true).entity(Entity{5, 0}).flag(false).flag(false)},
		{"a slot over 2^24 − 1", settled, head().flag(true).entity(Entity{1 << 24, 1}).flag(false).flag(false)},
		{"a final zero group", settled, head().flag(true).put(5, 7).flag(true).put(0, 7).flag(false).varint(1, 3).flag(false).flag(false)},
		{"a moving body with all velocities zero", settled, entry().motion(1, 1, 0, 0).flag(false).flag(false)},
		{"a whole turn that is still", settled, entry().motion(1, 1, 1, 0).wholeTurn(0, 0).flag(false)},
		{"a spinning body at zero", settled, entry().motion(1, 1, 1, 0).
			flag(true).put(AngleCodec.code(0.5), 18).flag(false).flag(true).put(SpinCodec.mid(), 20).flag(false)},
		{"a state predicted from the header's gap, which has none", settled,
			entry().flag(true).flag(false).put(0x7f, 7).flag(false)},
		{"a Golomb code with more than 40 zeros", settled,
			entry().put(0b11, 2).put(0, 4).put(0, 41).flag(true).put(0x3f, 6).flag(false)},
		{"a turned transform at angle 0 and scale 1", settled, placed().
			put(PositionCodec.code(1), 22).put(PositionCodec.code(1), 22).flag(true).put(AngleCodec.mid(), 18).flag(false).flag(false)},
		{"a turned transform at angle 0 with a scale float32 of 1", settled, placed().
			put(PositionCodec.code(1), 22).put(PositionCodec.code(1), 22).flag(true).put(AngleCodec.mid(), 18).
			flag(true).put(uint64(math.Float32bits(1)), 32).flag(false)},
		{"code 0 in an engine field", settled, entry().flag(false).put(0, 22).put(1, 22).put(VelocityCodec.code(1), 16).put(VelocityCodec.mid(), 16).flag(false).flag(false)},
		{"a fresh entry with a type not carried", settled,
			head().flag(false).flag(true).entity(Entity{5, 1}).flag(true).flag(false).put(0b0100, 4).flag(false).flag(false)},
		{"a byte after the end", settled, head().flag(false).flag(false).put(0, 8)},
	}
	for _, c := range cases {
		_, err := ParseSnapshot(c.b.b, c.ctx)
		if err == nil {
			t.Errorf("a snapshot with %s is accepted", c.what)
		}
		t.Logf("%s: %v", c.what, err)
	}
	if _, err := ParseSnapshot(body(head().flag(false), Entity{5, 1}).flag(false).b, settled); err != nil {
		t.Errorf("the refusals' valid base is refused: %v", err)
	}
	// With a non-zero angle, a scale bit set with a float32 of exactly 1 is
	// accepted, and reads as scale 1.
	turned := placed().put(PositionCodec.code(1), 22).put(PositionCodec.code(1), 22).flag(true).put(AngleCodec.code(0.5), 18).
		flag(true).put(uint64(math.Float32bits(1)), 32).flag(false)
	if s, err := ParseSnapshot(turned.b, settled); err != nil {
		t.Errorf("a turned transform at angle 0.5 with a scale float32 of 1 is refused: %v", err)
	} else if tf := s.Entries[0].Transform; !tf.ScaleSet || tf.Scale != 1 {
		t.Errorf("it reads %+v; want the scale bit set and scale 1", *tf)
	}
}

// TestSnapshotProject decodes an entry with the two-types vector's project
// types: Health {hp: int 0..100} and Coin {speed: fixed −10..10 by 0.5,
// taken: bool, glow: float32}; and refuses a code past its range.
func TestSnapshotProject(t *testing.T) {
	schema, err := ParseSchema(fingerprintVectors(t, schemaFile)["two-types"].input)
	if err != nil {
		t.Fatal(err)
	}
	ctx := settled
	ctx.Project = schema.Project
	build := func(hp uint64) []byte {
		w := (&bitWriter{}).settledHeader().flag(false).flag(true).entity(Entity{9, 1}).flag(false).flag(false)
		w.put(0, 4).flag(true).flag(true).flag(true) // no engine types; Health and Coin
		w.flag(true).put(hp, 7)
		w.flag(true).put(20+3, 6).flag(true).put(uint64(math.Float32bits(0.5)), 32) // speed 1.5, taken, glow 0.5
		return w.flag(false).b
	}
	s, err := ParseSnapshot(build(42), ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := s.Entries[0].Project
	if len(p) != 2 || p[0].Codes[0] != 42 || p[1].Codes[0] != 23 || p[1].Codes[1] != 1 {
		t.Errorf("project components %+v", p)
	}
	if _, err := ParseSnapshot(build(101), ctx); err == nil {
		t.Error("hp code 101 of 0..100 is accepted")
	}
}

func TestShortForms(t *testing.T) {
	if got := nearest16(0x0002, 0x1fffe); got != 0x20002 {
		t.Errorf("tick nearest across a wrap: %#x", got)
	}
	if got := nearest16(0xfffe, 0x20002); got != 0x1fffe {
		t.Errorf("tick nearest back across a wrap: %#x", got)
	}
	if got := highestNotAbove16(0xffff, 0x20001); got != 0x1ffff {
		t.Errorf("newest sequence not above the newest made: %#x", got)
	}
	if got := highestNotAbove16(0x0001, 0x20001); got != 0x20001 {
		t.Errorf("newest sequence equal to the newest made: %#x", got)
	}
}

func TestGroupVarint(t *testing.T) {
	for _, v := range []uint32{0, 1, 7, 8, 60, 127, 128, 1<<24 - 1, math.MaxUint32} {
		for _, g := range []int{3, 7} {
			r := newBitReader((&bitWriter{}).varint(v, g).b)
			if got := r.groupVarint(g); got != v || r.err != nil {
				t.Errorf("g=%d: %d reads back as %d (%v)", g, v, got, r.err)
			}
		}
	}
	over := (&bitWriter{}).put(0x7f, 7).flag(true).put(0x7f, 7).flag(true).put(0x7f, 7).flag(true).put(0x7f, 7).flag(true).put(0x1f, 7).flag(false)
	if r := newBitReader(over.b); r.groupVarint(7) != 0 || r.err == nil {
		t.Error("a 35-bit value is accepted")
	}
	if !errors.Is(newBitReaderErr(), errShort) {
		t.Error("reading past the end is not errShort")
	}
}

func newBitReaderErr() error {
	r := newBitReader([]byte{1})
	r.read(9)
	return r.err
}

// spawnEntry writes a snapshot with one entry carrying only a NetSpawn.
func spawnEntry(path string, pose [4]float64, slots []SpawnSlot) []byte {
	w := (&bitWriter{}).settledHeader().flag(false).flag(true).entity(Entity{9, 1}).flag(false).flag(false).put(0b1000, 4)
	w.flag(true).put(uint64(len(path)), 8)
	for i := range len(path) {
		w.put(uint64(path[i]), 8)
	}
	for _, v := range pose {
		w.put(math.Float64bits(v), 64)
	}
	w.put(uint64(len(slots)), 6)
	for _, s := range slots {
		w.put(uint64(s.UID), 32).put(uint64(s.Slot), 24)
	}
	return w.flag(false).b
}

// TestNetSpawn: a NetSpawn is read whole; one a reader cannot act on is
// ignored and the snapshot still accepted.
func TestNetSpawn(t *testing.T) {
	pose := [4]float64{1, 2, 0.5, 1}
	slots := []SpawnSlot{{1, 100}, {2, 101}}
	cases := []struct {
		path    string
		pose    [4]float64
		slots   []SpawnSlot
		ignored bool
	}{
		{"prefabs/crate.toml", pose, slots, false},
		{"", pose, slots, true},
		{"/crate.toml", pose, slots, true},
		{"prefabs/../crate.toml", pose, slots, true},
		{`prefabs\crate.toml`, pose, slots, true},
		{"c:crate.toml", pose, slots, true},
		{"prefabs/con.toml", pose, slots, true},
		{"prefabs/COM1.toml", pose, slots, true},
		{"prefabs/.toml", pose, slots, true},
		{"prefabs/crate.lua", pose, slots, true},
		{"crate.toml", [4]float64{math.NaN(), 0, 0, 1}, slots, true},
		{"crate.toml", [4]float64{0, 0, 0, 2000}, slots, true},
		{"crate.toml", pose, []SpawnSlot{{1, 100}, {1, 101}}, true},
		{"crate.toml", pose, []SpawnSlot{{1, 100}, {2, 100}}, true},
		{"crate.toml", pose, distinctSlots(33), true},
		{"crate.toml", pose, distinctSlots(32), false},
	}
	for _, c := range cases {
		s, err := ParseSnapshot(spawnEntry(c.path, c.pose, c.slots), settled)
		if err != nil {
			t.Errorf("%q: %v; a NetSpawn never makes a snapshot refused", c.path, err)
			continue
		}
		n := s.Entries[0].NetSpawn
		if n == nil || n.Path != c.path || len(n.Slots) != len(c.slots) || (n.Ignored != "") != c.ignored {
			t.Errorf("%q: %+v; ignored should be %v", c.path, n, c.ignored)
		}
	}
}

func distinctSlots(n int) []SpawnSlot {
	out := make([]SpawnSlot, n)
	for i := range out {
		out[i] = SpawnSlot{UID: uint32(i + 1), Slot: uint32(100 + i)}
	}
	return out
}

package replication

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"vkm/internal/entity"
	"vkm/wire"
)

func TestEngineTypesInFingerprint(t *testing.T) {
	s := testSchema(t)
	base := s.Fingerprint()
	if (&Schema{}).Fingerprint() == base {
		t.Fatal("the project types do not count")
	}
	saved := engineTypes
	t.Cleanup(func() { engineTypes = saved })

	engineTypes[0], engineTypes[1] = saved[1], saved[0]
	if s.Fingerprint() == base {
		t.Error("engine type order does not count")
	}
	engineTypes = saved

	fields := append([]engineField(nil), saved[TypeTransform].fields...)
	fields[0].bits++
	engineTypes[TypeTransform].fields = fields
	if s.Fingerprint() == base {
		t.Error("a quantiser's width does not count")
	}
	engineTypes = saved

	fields = append([]engineField(nil), saved[TypeRigidbody].fields...)
	fields[1].step /= 2 // vx
	engineTypes[TypeRigidbody].fields = fields
	if s.Fingerprint() == base {
		t.Error("a quantiser's step does not count")
	}
	engineTypes = saved
	if s.Fingerprint() != base {
		t.Fatal("fingerprint not a function of the schema")
	}
}

func TestWireTypes(t *testing.T) {
	s := testSchema(t)
	if s.WireTypes() != EngineTypes+2 {
		t.Fatalf("WireTypes = %d", s.WireTypes())
	}
	for typ, name := range map[int]string{TypeTransform: "Transform", TypeRigidbody: "Rigidbody",
		TypeCharacterController: "CharacterController", TypeNetSpawn: "NetSpawn", typHealth: "Health", typTint: "Tint", 6: "", -1: ""} {
		if got := s.TypeName(typ); got != name {
			t.Errorf("TypeName(%d) = %q, want %q", typ, got, name)
		}
		if name != "" && s.WireIndex(name) != typ {
			t.Errorf("WireIndex(%q) = %d, want %d", name, s.WireIndex(name), typ)
		}
	}
	if s.Index("Health") != 0 {
		t.Error("project indices moved")
	}
}

func TestDescribe(t *testing.T) {
	s := testSchema(t)
	d := s.Describe()
	t.Logf("\n%s", d)
	for _, want := range []string{"0 Transform (engine)", "position", "22 bits, step 0.001 m", "angle", "18 bits",
		"3 NetSpawn (engine)", "4 Health (project, main.lua:3)", "int 0..100", "7 bits", "5 Tint", "fixed 0..1 step 0.00390625",
		fmt.Sprintf("fingerprint %016x", s.Fingerprint())} {
		if !strings.Contains(d, want) {
			t.Errorf("Describe lacks %q", want)
		}
	}
}

// sampleSnapshots returns real payloads from a lossy convergence run, plus
// one with command feedback.
func sampleSnapshots(tb testing.TB) (*Schema, [][]byte) {
	m := newSim(tb, 42)
	m.loss, m.dup, m.reorder = 0.3, 0.1, 0.2
	player := m.w.spawn(0, Described, 0)
	player.rb = &entity.Rigidbody{}
	player.ns = &entity.NetSpawn{Prefab: "prefabs/player.toml", Pose: entity.Transform{X: 1, Scale: 1},
		Slots: []entity.SpawnSlot{{UID: 1, Slot: 90}, {UID: 2, Slot: 91}}}
	m.own = player.id
	m.p.SetCommands(Commands{Newest: 1234, Judged: 99, LowWater: 3})
	m.rc.refs = sampleRefs
	m.ref.refs = sampleRefs
	var out [][]byte
	for s := uint32(1); s < 30; s++ {
		churn(m, s)
	}
	for range 40 {
		for range 3 {
			churn(m, 1+uint32(m.rng.IntN(35)))
		}
		m.w.build(tb, m.r, uint32(m.round))
		out = append(out, m.p.Write(nil, m.r, m.own, m.budget))
		m.step()
	}
	return m.s, out
}

// sampleRefs is what the client of sampleSnapshots knows: its newest
// command sequence and its client tick.
var sampleRefs = Refs{Sequence: 1240, ClientTick: 104}

func TestSnapshotPrefixesFail(t *testing.T) {
	s, payloads := sampleSnapshots(t)
	sn := Snapshot{TickRate: harnessTickRate}
	n := 0
	for _, p := range payloads {
		if err := sn.Decode(s, p, sampleRefs); err != nil {
			t.Fatal(err)
		}
		for i := range len(p) {
			if err := sn.Decode(s, p[:i], sampleRefs); err == nil {
				t.Fatalf("a %d-byte prefix of a %d-byte snapshot decoded", i, len(p))
			}
			n++
		}
		if err := sn.Decode(s, append(p[:len(p):len(p)], 0), sampleRefs); err == nil {
			t.Fatal("a trailing byte was accepted")
		}
	}
	t.Logf("%d snapshots, %d strict prefixes refused", len(payloads), n)
}

func TestSnapshotRefusals(t *testing.T) {
	s := testSchema(t)
	header := func(w *wire.Writer) { writeFullHeader(w, 1, entity.None, nil) }
	// transformNext writes an entry up to its Transform's bits: the
	// general form, a Transform carried and nothing else.
	transformNext := func(w *wire.Writer, id entity.ID, fresh bool) {
		w.WriteBool(true)
		writeID(w, id)
		w.WriteBool(fresh)
		w.WriteBool(false) // not the moving-body form
		w.WriteBits(1<<TypeTransform, EngineTypes)
		w.WriteBool(false)
		w.WriteBool(true)
	}
	entry := func(w *wire.Writer, id entity.ID, fresh bool, x float64) {
		transformNext(w, id, fresh)
		writeTransform(w, entity.Transform{X: x, Scale: 1})
	}
	cases := map[string]func(w *wire.Writer){
		"slot twice": func(w *wire.Writer) {
			header(w)
			w.WriteBool(false)
			entry(w, entity.ID{Slot: 3, Gen: 1}, true, 1)
			entry(w, entity.ID{Slot: 3, Gen: 2}, true, 1)
			w.WriteBool(false)
		},
		"removed and described": func(w *wire.Writer) {
			header(w)
			w.WriteBool(true)
			writeID(w, entity.ID{Slot: 3, Gen: 1})
			w.WriteBool(false)
			entry(w, entity.ID{Slot: 3, Gen: 1}, true, 1)
			w.WriteBool(false)
		},
		"generation 0": func(w *wire.Writer) {
			header(w)
			w.WriteBool(true)
			writeVarint(w, 3, slotGroup)
			writeVarint(w, 0, genGroup)
			w.WriteBool(false)
			w.WriteBool(false)
		},
		"slot beyond MaxSlot": func(w *wire.Writer) {
			header(w)
			w.WriteBool(true)
			writeVarint(w, entity.MaxSlot+1, slotGroup)
			writeVarint(w, 1, genGroup)
			w.WriteBool(false)
			w.WriteBool(false)
		},
		"overlong varint": func(w *wire.Writer) {
			header(w)
			w.WriteBool(true)
			w.WriteBits(3, slotGroup)
			w.WriteBool(true)
			w.WriteBits(0, slotGroup)
			w.WriteBool(false)
			writeVarint(w, 1, genGroup)
			w.WriteBool(false)
			w.WriteBool(false)
		},
		"unused code 0": func(w *wire.Writer) {
			header(w)
			w.WriteBool(false)
			transformNext(w, entity.ID{Slot: 1, Gen: 1}, true)
			w.WriteBits(0, int(wire.Position.Bits))
			w.WriteBits(0, 64)
			w.WriteBool(false)
		},
		"turned at angle 0 and scale 1": func(w *wire.Writer) {
			header(w)
			w.WriteBool(false)
			transformNext(w, entity.ID{Slot: 1, Gen: 1}, true)
			wire.Position.Write(w, 1)
			wire.Position.Write(w, 2)
			w.WriteBool(true) // turned, yet upright and unscaled
			wire.Angle.Write(w, 0)
			w.WriteBool(false)
			w.WriteBool(false)
		},
		"int past its range": func(w *wire.Writer) {
			header(w)
			w.WriteBool(false)
			w.WriteBool(true)
			writeID(w, entity.ID{Slot: 1, Gen: 1})
			w.WriteBool(false)
			w.WriteBool(false) // not the moving-body form
			w.WriteBits(0, EngineTypes)
			w.WriteBool(true)
			w.WriteBits(1, 2) // Health
			w.WriteBool(true)
			w.WriteBits(101, 7)
			w.WriteBool(false)
		},
		"empty project mask": func(w *wire.Writer) {
			header(w)
			w.WriteBool(false)
			w.WriteBool(true)
			writeID(w, entity.ID{Slot: 1, Gen: 1})
			w.WriteBool(false)
			w.WriteBool(false) // not the moving-body form
			w.WriteBits(0, EngineTypes)
			w.WriteBool(true)
			w.WriteBits(0, 2)
			w.WriteBool(false)
		},
		"fresh entry removing": func(w *wire.Writer) {
			header(w)
			w.WriteBool(false)
			w.WriteBool(true)
			writeID(w, entity.ID{Slot: 1, Gen: 1})
			w.WriteBool(true)
			w.WriteBool(false) // not the moving-body form
			w.WriteBits(1<<TypeRigidbody, EngineTypes)
			w.WriteBool(false)
			w.WriteBool(false)
			w.WriteBool(false)
		},
		"short tick with no snapshot before": func(w *wire.Writer) {
			w.WriteBool(false) // not full
			w.WriteBits(1, shortBits)
			w.WriteBool(true) // own stated: none
			w.WriteBool(false)
			w.WriteBool(false) // no commands
			w.WriteBool(false)
			w.WriteBool(false)
		},
		"own as last stated with no snapshot before": func(w *wire.Writer) {
			w.WriteBool(true) // full
			w.WriteUint32(1)
			w.WriteBool(false) // own not stated
			w.WriteBool(false) // no commands
			w.WriteBool(false)
			w.WriteBool(false)
		},
		"padding not zero": func(w *wire.Writer) {
			header(w)
			w.WriteBool(false)
			w.WriteBool(false)
			w.WriteBits(1, 1)
		},
	}
	var sn Snapshot
	for name, write := range cases {
		var w wire.Writer
		write(&w)
		err := sn.Decode(s, w.Bytes(), Refs{})
		if err == nil {
			t.Errorf("%s: decoded", name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "replication: ") {
			t.Errorf("%s: error %q lacks the package prefix", name, err)
		}
	}
}

// writeFullHeader writes a header in its full form: the tick and the
// command feedback (when cmds is not nil) whole, and own stated.
func writeFullHeader(w *wire.Writer, tick uint32, own entity.ID, cmds *Commands) {
	w.WriteBool(true) // full
	w.WriteUint32(tick)
	w.WriteBool(true) // own stated
	w.WriteBool(!own.IsNone())
	if !own.IsNone() {
		writeID(w, own)
	}
	w.WriteBool(cmds != nil)
	if cmds != nil {
		w.WriteUint32(cmds.Newest)
		w.WriteUint32(cmds.Judged)
		w.WriteBits(uint64(cmds.LowWater), lowWaterBits)
	}
	w.WriteBool(false) // no gap for predicted turns
}

// encodeSnapshot writes a decoded snapshot back, its header in the full
// form, for the fuzz target's round trip; ok is false when it cannot (a
// refused spawn's bits are gone).
func encodeSnapshot(s *Schema, sn *Snapshot) ([]byte, bool) {
	var w wire.Writer
	var cmds *Commands
	if sn.HasCommands {
		cmds = &sn.Commands
	}
	writeFullHeader(&w, sn.Tick, sn.Own, cmds)
	for _, id := range sn.Removals {
		w.WriteBool(true)
		writeID(&w, id)
	}
	w.WriteBool(false)
	for i := range sn.Entries {
		e := &sn.Entries[i]
		if e.SpawnRefused {
			return nil, false
		}
		w.WriteBool(true)
		writeID(&w, e.ID)
		w.WriteBool(e.Fresh)
		rb := e.Rigidbody
		moving := len(e.Changes) == 2 && e.Changes[0].Type == TypeTransform && !e.Changes[0].Removed &&
			e.Changes[1].Type == TypeRigidbody && !e.Changes[1].Removed &&
			(rb.VX != 0 || rb.VY != 0 || rb.AngularVelocity != 0)
		w.WriteBool(moving)
		if moving {
			t := turnOf(e.Transform.Angle, e.Transform.Scale, rb.AngularVelocity).placed(e.Transform.X, e.Transform.Y, rb.VX, rb.VY)
			writeTurn(&w, &turnChoice{form: turnWhole}, t)
			continue
		}
		mask := make([]bool, s.WireTypes())
		for _, c := range e.Changes {
			mask[c.Type] = true
		}
		proj := false
		for t, on := range mask {
			if t < EngineTypes {
				w.WriteBool(on)
			} else {
				proj = proj || on
			}
		}
		if len(s.Types) > 0 {
			w.WriteBool(proj)
			if proj {
				for _, on := range mask[EngineTypes:] {
					w.WriteBool(on)
				}
			}
		}
		for _, c := range e.Changes {
			w.WriteBool(!c.Removed)
			if !c.Removed {
				b, n := encodeChangeBits(s, e, c)
				w.WriteBitString(b, n)
			}
		}
	}
	w.WriteBool(false)
	return w.Bytes(), true
}

// FuzzReadSnapshot decodes arbitrary payloads, with or without a snapshot
// read before (primed: one whose tick, 65530, sits just below a 16-bit
// wrap): never a panic; a short form resolves within its window of its
// reference; and what decodes, written back with a full header, decodes
// to the same. The seeds are a lossy run's snapshots, in the full form
// (the first) and the short ones, own stated and not.
func FuzzReadSnapshot(f *testing.F) {
	s, payloads := sampleSnapshots(f)
	for i, p := range payloads {
		f.Add(true, p)
		if i < 2 {
			f.Add(false, p)
		}
	}
	f.Add(false, rawSpawnSnapshot(&entity.NetSpawn{Prefab: `\\x\y.toml`, Pose: entity.Transform{Scale: 1}}))
	f.Add(false, []byte{})
	var pw wire.Writer
	primerOwn := entity.ID{Slot: 0, Gen: 1}
	writeFullHeader(&pw, 65530, primerOwn, nil)
	pw.WriteBool(false)
	pw.WriteBool(false)
	primer := pw.Bytes()
	f.Fuzz(func(t *testing.T, primed bool, payload []byte) {
		sn := Snapshot{TickRate: harnessTickRate}
		if primed {
			if err := sn.Decode(s, primer, sampleRefs); err != nil {
				t.Fatal(err)
			}
		}
		if err := sn.Decode(s, payload, sampleRefs); err != nil {
			return
		}
		if len(payload) > 0 && payload[0]&1 == 0 { // the short form
			if d := int32(sn.Tick - 65530); d < -32768 || d > 32767 {
				t.Fatalf("short tick resolved to %d, %d from its reference", sn.Tick, d)
			}
			if sn.HasCommands {
				if d := sampleRefs.Sequence - sn.Commands.Newest; d > 65535 {
					t.Fatalf("newest %d resolved %d below its reference", sn.Commands.Newest, d)
				}
				if d := int32(sn.Commands.Judged - sampleRefs.ClientTick); d < -32768 || d > 32767 {
					t.Fatalf("judged %d resolved %d from its reference", sn.Commands.Judged, d)
				}
			}
		}
		again, ok := encodeSnapshot(s, &sn)
		if !ok {
			return
		}
		sn2 := Snapshot{TickRate: harnessTickRate}
		if err := sn2.Decode(s, again, Refs{}); err != nil {
			t.Fatalf("re-encoded snapshot does not decode: %v", err)
		}
		if !reflect.DeepEqual(exported(&sn), exported(&sn2)) {
			t.Fatalf("decode is not stable:\n%+v\n%+v", exported(&sn), exported(&sn2))
		}
	})
}

// exported returns sn's exported content, for comparisons.
func exported(sn *Snapshot) any {
	type view struct {
		Tick        uint32
		Own         entity.ID
		Commands    Commands
		HasCommands bool
		Removals    []entity.ID
		Entries     []Entry
	}
	v := view{sn.Tick, sn.Own, sn.Commands, sn.HasCommands, sn.Removals, sn.Entries}
	if len(v.Removals) == 0 {
		v.Removals = nil
	}
	return v
}

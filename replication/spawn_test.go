package replication

import (
	"errors"
	"math"
	"strings"
	"testing"

	"vkm/internal/entity"
	"vkm/wire"
)

var spawnPaths = []struct {
	path string
	ok   bool
}{
	{"prefabs/crate.toml", true},
	{"crate.toml", true},
	{"a/b/c/d.toml", true},
	{"prefabs/..x.toml", true},
	{"prefabs/com10.toml", true},
	{"prefabs/console.toml", true},
	{"prefabs/nullable.toml", true},
	{"prefabs/ünïcode.toml", true},
	{strings.Repeat("a", MaxSpawnPath-5) + ".toml", true},

	{"", false},
	{"/abs/x.toml", false},
	{"prefabs/x.json", false},
	{"prefabs/x.TOML", false},
	{"prefabs/x.toml.bak", false},
	{".toml", false},
	{"prefabs/.toml", false},
	{"prefabs/", false},
	{"prefabs//x.toml", false},
	{"../x.toml", false},
	{"prefabs/../x.toml", false},
	{"prefabs/..", false},
	{`prefabs\x.toml`, false},
	{`\\attacker\share\x.toml`, false},
	{"C:x.toml", false},
	{"c:/x.toml", false},
	{"prefabs/x\x00.toml", false},
	{"prefabs/x\t.toml", false},
	{"prefabs/x\n.toml", false},
	{"prefabs/x\x7f.toml", false},
	{"prefabs/\xff.toml", false},
	{strings.Repeat("a", MaxSpawnPath-4) + ".toml", false},
	{"prefabs/con.toml", false},
	{"prefabs/CON.toml", false},
	{"NUL.txt/x.toml", false},
	{"nul/x.toml", false},
	{"Aux.toml", false},
	{"prn.toml", false},
	{"prefabs/com1.toml", false},
	{"prefabs/COM9.toml", false},
	{"prefabs/com0.toml", false},
	{"lpt1/x.toml", false},
	{"prefabs/LpT9.tar.toml", false},
	{"prefabs/com¹.toml", false},
	{"prefabs/lpt³.toml", false},
	{"prefabs/con .toml", false},
	{"prefabs/conin$.toml", false},
	{"prefabs/CONOUT$.toml", false},
}

func TestCheckSpawnPath(t *testing.T) {
	for _, tt := range spawnPaths {
		err := CheckSpawnPath(tt.path)
		if (err == nil) != tt.ok {
			t.Errorf("CheckSpawnPath(%q) = %v, want ok %v", tt.path, err, tt.ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "replication: ") {
			t.Errorf("error %q lacks the package prefix", err)
		}
	}
}

var spawnPoses = []struct {
	pose entity.Transform
	ok   bool
}{
	{entity.Transform{X: 1, Y: -2, Angle: 7, Scale: 1}, true},
	{entity.Transform{Scale: wire.MaxScale}, true},
	{entity.Transform{Scale: -1}, true},
	{entity.Transform{X: 1e9, Scale: 1}, true},
	{entity.Transform{X: math.NaN(), Scale: 1}, false},
	{entity.Transform{Y: math.Inf(-1), Scale: 1}, false},
	{entity.Transform{Angle: math.Inf(1), Scale: 1}, false},
	{entity.Transform{Scale: math.NaN()}, false},
	{entity.Transform{Scale: wire.MaxScale * 1.001}, false},
	{entity.Transform{Scale: -2000}, false},
}

func TestCheckSpawnPose(t *testing.T) {
	for _, tt := range spawnPoses {
		if err := CheckSpawnPose(tt.pose); (err == nil) != tt.ok {
			t.Errorf("CheckSpawnPose(%+v) = %v, want ok %v", tt.pose, err, tt.ok)
		}
	}
}

// rawSpawnSnapshot writes, by hand, a snapshot whose first entry carries
// ns unchecked and whose second carries a Transform: what a hostile or
// broken server could send.
func rawSpawnSnapshot(ns *entity.NetSpawn) []byte {
	var w wire.Writer
	writeFullHeader(&w, 77, entity.None, nil)
	w.WriteBool(false) // no removals
	w.WriteBool(true)
	writeID(&w, entity.ID{Slot: 4, Gen: 1})
	w.WriteBool(true)  // fresh
	w.WriteBool(false) // not the moving-body form
	w.WriteBits(1<<TypeNetSpawn, EngineTypes)
	w.WriteBool(false) // no project type changed (the schema has some)
	w.WriteBool(true)  // carried
	writeSpawn(&w, ns)
	w.WriteBool(true)
	writeID(&w, entity.ID{Slot: 5, Gen: 2})
	w.WriteBool(true)
	w.WriteBool(false) // not the moving-body form
	w.WriteBits(1<<TypeTransform, EngineTypes)
	w.WriteBool(false)
	w.WriteBool(true)
	writeTransform(&w, entity.Transform{X: 1.5, Y: -2, Angle: 0.25, Scale: 1})
	w.WriteBool(false)
	return w.Bytes()
}

// decodeRawSpawn decodes rawSpawnSnapshot(ns) and checks the stream stayed
// in step; it returns the spawn entry.
func decodeRawSpawn(t *testing.T, s *Schema, ns *entity.NetSpawn) Entry {
	t.Helper()
	var sn Snapshot
	if err := sn.Decode(s, rawSpawnSnapshot(ns), Refs{}); err != nil {
		t.Fatalf("%q: %v", ns.Prefab, err)
	}
	if len(sn.Entries) != 2 || !sn.Entries[1].Has(TypeTransform) || sn.Entries[1].Transform.X != 1.5 || sn.Entries[1].ID.Gen != 2 {
		t.Fatalf("%q: the entry after the spawn was misread: %+v", ns.Prefab, sn.Entries)
	}
	return sn.Entries[0]
}

func TestSpawnRulesAtBothEnds(t *testing.T) {
	s := testSchema(t)
	pose := entity.Transform{X: 1, Y: 2, Angle: 0.5, Scale: 1}
	for _, tt := range spawnPaths {
		if len(tt.path) > 255 {
			continue
		}
		ns := entity.NetSpawn{Prefab: tt.path, Pose: pose, Slots: []entity.SpawnSlot{{UID: 9, Slot: 40}}}
		// Server: the round refuses it.
		r := NewRound(s)
		r.Begin(1)
		r.Entity(entity.ID{Slot: 4, Gen: 1}, Described)
		if err := r.NetSpawn(ns); (err == nil) != tt.ok {
			t.Errorf("Round.NetSpawn(%q) = %v, want ok %v", tt.path, err, tt.ok)
		}
		// Client: the decoder refuses it and stays in step.
		e := decodeRawSpawn(t, s, &ns)
		if e.SpawnRefused == tt.ok || !e.Has(TypeNetSpawn) {
			t.Errorf("decoding %q: refused %v, want %v", tt.path, e.SpawnRefused, !tt.ok)
		}
		if tt.ok && (e.Spawn.Prefab != tt.path || e.Spawn.Pose != pose || len(e.Spawn.Slots) != 1 || e.Spawn.Slots[0] != ns.Slots[0]) {
			t.Errorf("decoding %q: got %+v", tt.path, e.Spawn)
		}
		if !tt.ok && e.Spawn.Prefab != "" {
			t.Errorf("decoding %q: a refused spawn kept its path", tt.path)
		}
	}
	for _, tt := range spawnPoses {
		ns := entity.NetSpawn{Prefab: "prefabs/crate.toml", Pose: tt.pose}
		r := NewRound(s)
		r.Begin(1)
		r.Entity(entity.ID{Slot: 4, Gen: 1}, Described)
		if err := r.NetSpawn(ns); (err == nil) != tt.ok {
			t.Errorf("Round.NetSpawn(pose %+v) = %v, want ok %v", tt.pose, err, tt.ok)
		}
		if e := decodeRawSpawn(t, s, &ns); e.SpawnRefused == tt.ok {
			t.Errorf("decoding pose %+v: refused %v", tt.pose, e.SpawnRefused)
		}
	}
	dup := entity.NetSpawn{Prefab: "p.toml", Pose: pose, Slots: []entity.SpawnSlot{{UID: 1, Slot: 5}, {UID: 2, Slot: 5}}}
	if e := decodeRawSpawn(t, s, &dup); !e.SpawnRefused {
		t.Error("a spawn naming one slot twice was believed")
	}
}

func TestSpawnSlotsLimit(t *testing.T) {
	s := testSchema(t)
	big := entity.NetSpawn{Prefab: "prefabs/tower.toml", Pose: entity.Transform{Scale: 1}}
	for i := range MaxSpawnSlots + 1 {
		big.Slots = append(big.Slots, entity.SpawnSlot{UID: uint32(i), Slot: uint32(100 + i)})
	}
	r := NewRound(s)
	r.Begin(1)
	r.Entity(entity.ID{Slot: 4, Gen: 1}, Described)
	if err := r.NetSpawn(big); !errors.Is(err, ErrSpawnSlots) {
		t.Fatalf("%d slots: %v, want ErrSpawnSlots", len(big.Slots), err)
	}
	var sn Snapshot
	if err := sn.Decode(s, NewPeer(s).Write(nil, r, entity.None, budgetBytes), Refs{}); err != nil {
		t.Fatal(err)
	}
	if e := sn.Entries[0]; !e.Has(TypeNetSpawn) || e.SpawnRefused || len(e.Spawn.Slots) != 0 {
		t.Fatalf("oversized instance: %+v", e.Spawn)
	}
	big.Slots = big.Slots[:MaxSpawnSlots]
	r.Begin(2)
	r.Entity(entity.ID{Slot: 4, Gen: 1}, Described)
	if err := r.NetSpawn(big); err != nil {
		t.Fatal(err)
	}
	if err := sn.Decode(s, NewPeer(s).Write(nil, r, entity.None, budgetBytes), Refs{}); err != nil {
		t.Fatal(err)
	}
	if got := sn.Entries[0].Spawn.Slots; len(got) != MaxSpawnSlots || got[31] != big.Slots[31] {
		t.Fatalf("%d slots came back", len(got))
	}
}

package replication

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"vkm/internal/entity"
)

// TestRoundMemoEncodesAsFresh: a round that takes a component's bits from
// the round before, its inputs unchanged, holds exactly the bits a round
// built from nothing encodes, and a version that changes exactly when the
// bits do. The world is shaken at random each round: fields changed,
// changed and changed back, set to -0, NaN and infinities, prefabs and
// slots of spawn records swapped, components added and dropped, occupants
// replaced.
func TestRoundMemoEncodesAsFresh(t *testing.T) {
	s := testSchema(t)
	rng := rand.New(rand.NewPCG(7, 11))
	w := newWorld()
	for slot := range uint32(24) {
		w.spawn(slot, Silence(slot%3), float64(slot))
	}
	odd := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1, -1, 0.5, 1e9}
	pick := func() float64 {
		if rng.IntN(3) == 0 {
			return odd[rng.IntN(len(odd))]
		}
		return float64(rng.IntN(5)) / 4
	}
	prefabs := []string{"prefabs/a.toml", "prefabs/b.toml", "prefabs/ab.toml"}
	r := NewRound(s)
	type seen struct {
		id   entity.ID
		cls  Silence
		bits []byte
		n    uint32
		ver  uint64
	}
	last := map[[2]uint32]seen{} // slot, type → the round before's
	for round := range 400 {
		for _, slot := range w.slots() {
			e := w.ents[slot]
			if rng.IntN(4) != 0 {
				continue // most entities stand still, as in a world
			}
			switch rng.IntN(9) {
			case 0:
				e.t.X = pick()
			case 1:
				e.t.Angle, e.t.Scale = pick(), []float64{1, 2, -1, 1}[rng.IntN(4)]
			case 2:
				if e.rb == nil || rng.IntN(3) == 0 {
					e.rb = &entity.Rigidbody{}
				}
				e.rb.VX, e.rb.Awake = pick(), rng.IntN(2) == 0
			case 3:
				e.health = entity.Values{float64(rng.IntN(3) * 50)}[:rng.IntN(2)]
			case 4:
				e.tint = nil
				if rng.IntN(2) == 0 {
					e.tint = entity.Values{pick()}
				}
			case 5:
				e.ns = &entity.NetSpawn{Prefab: prefabs[rng.IntN(len(prefabs))], Pose: entity.Transform{X: float64(rng.IntN(2)), Scale: 1}}
				if rng.IntN(2) == 0 {
					e.ns.Slots = []entity.SpawnSlot{{UID: 1, Slot: slot}, {UID: uint32(2 + rng.IntN(2)), Slot: 100 + slot}}
				}
			case 6:
				e.cc = &entity.CharacterController{Grounded: rng.IntN(2) == 0}
			case 7:
				e.rb, e.ns, e.cc = nil, nil, nil
			case 8:
				w.spawn(slot, Silence(rng.IntN(3)), pick())
			}
		}
		w.build(t, r, uint32(round))
		fresh := NewRound(s)
		w.build(t, fresh, uint32(round))
		if len(r.ents) != len(fresh.ents) {
			t.Fatalf("round %d: %d entities, fresh %d", round, len(r.ents), len(fresh.ents))
		}
		next := map[[2]uint32]seen{}
		for i := range r.ents {
			e, f := &r.ents[i], &fresh.ents[i]
			if e.id != f.id || e.end-e.first != f.end-f.first {
				t.Fatalf("round %d: entity %v with %d components, fresh %v with %d", round, e.id, e.end-e.first, f.id, f.end-f.first)
			}
			for j := range e.end - e.first {
				c, fc := &r.comps[e.first+j], &fresh.comps[f.first+j]
				if c.typ != fc.typ || c.nbits != fc.nbits || !bytes.Equal(r.bits(c), fresh.bits(fc)) {
					t.Fatalf("round %d: entity %v type %d: %d bits %x, fresh type %d: %d bits %x",
						round, e.id, c.typ, c.nbits, r.bits(c), fc.typ, fc.nbits, fresh.bits(fc))
				}
				key := [2]uint32{e.id.Slot, uint32(c.typ)}
				b := seen{id: e.id, cls: e.silence, bits: bytes.Clone(r.bits(c)), n: c.nbits, ver: c.ver}
				if p, ok := last[key]; ok {
					same := p.id == e.id && p.cls == e.silence && p.n == c.nbits && bytes.Equal(p.bits, b.bits)
					if same != (p.ver == c.ver) {
						t.Fatalf("round %d: entity %v type %d: bits the same %v, version %d then %d", round, e.id, c.typ, same, p.ver, c.ver)
					}
				}
				next[key] = b
			}
		}
		last = next
	}
}

// BenchmarkRoundBuildArena measures building one send round of a world
// shaped like the arena served with four players: four characters running
// with their six project components, twelve crates of which two move, the
// spawn records of the characters and of three packs, and twenty static
// bodies. Most of it stands still from one round to the next, which is what
// the round's memo of inputs is for.
func BenchmarkRoundBuildArena(b *testing.B) {
	s := testSchema(b)
	w := newWorld()
	for i := range 4 {
		p := w.spawn(uint32(40+i), Described, float64(i))
		p.rb = &entity.Rigidbody{Awake: true}
		p.cc = &entity.CharacterController{Grounded: true}
		p.health = entity.Values{100}
		p.tint = entity.Values{0.5}
		p.ns = &entity.NetSpawn{Prefab: "prefabs/player.toml", Pose: entity.Transform{X: float64(i), Scale: 1},
			Slots: []entity.SpawnSlot{{UID: 1, Slot: uint32(40 + i)}}}
	}
	for i := range 12 {
		c := w.spawn(uint32(30+i), Described, float64(i))
		c.rb = &entity.Rigidbody{}
	}
	for i := range 3 {
		p := w.spawn(uint32(50+i), StaticBody, float64(i))
		p.ns = &entity.NetSpawn{Prefab: "prefabs/pickup.toml", Pose: entity.Transform{X: float64(i), Scale: 1},
			Slots: []entity.SpawnSlot{{UID: 1, Slot: uint32(50 + i)}}}
	}
	for i := range 20 {
		w.spawn(uint32(1+i), StaticBody, float64(i))
	}
	r := NewRound(s)
	ents := make([]*wEnt, 0, len(w.ents))
	for _, slot := range w.slots() {
		ents = append(ents, w.ents[slot])
	}
	tick := uint32(0)
	step := func() {
		tick++
		for i := range 4 {
			moving(w.ents[uint32(40+i)], 1+float64(i)+0.01*float64(tick%50))
		}
		for i := range 2 {
			moving(w.ents[uint32(30+i)], 2+0.01*float64(tick%50))
		}
		r.Begin(tick)
		for _, e := range ents {
			r.Entity(e.id, e.silence)
			e.t.Scale = r.Transform(*e.t)
			if e.rb != nil {
				r.Rigidbody(*e.rb)
			}
			if e.cc != nil {
				r.CharacterController(*e.cc)
			}
			if e.ns != nil {
				_ = r.NetSpawn(*e.ns)
			}
			if e.health != nil {
				_ = r.Project(0, e.health)
			}
			if e.tint != nil {
				_ = r.Project(1, e.tint)
			}
		}
	}
	for range 8 {
		step()
	}
	b.ReportAllocs()
	for b.Loop() {
		step()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(r.Len()), "ns/entity")
}

package replication

import (
	"fmt"
	"math"
	"testing"

	"vkm/internal/entity"
	"vkm/wire"
)

// arenaWorld is the benchmark world: four players and 117 awake bodies
// falling and turning, so every quantised field of each changes every
// round.
func arenaWorld() *world {
	w := newWorld()
	for i := range 4 {
		p := w.spawn(uint32(i), Described, float64(i))
		p.rb = &entity.Rigidbody{Awake: true}
		p.cc = &entity.CharacterController{Grounded: true}
		p.health = entity.Values{100}
	}
	for i := range 117 {
		e := w.spawn(uint32(10+i), Described, float64(i)*0.5)
		e.t.Y = float64(i % 9)
		e.rb = &entity.Rigidbody{Awake: true}
	}
	for i := range 20 {
		w.spawn(uint32(200+i), StaticBody, float64(i))
	}
	return w
}

// arenaStep moves every body one tick.
func arenaStep(w *world, tick int) {
	for _, e := range w.ents {
		if e.rb != nil {
			moving(e, 1+float64(e.id.Slot%5)+0.01*float64(tick%50))
			e.rb.VY = -9.81 * float64(tick%64) / 64
			e.rb.AngularVelocity = 0.5 + 0.01*float64(tick%50)
		}
	}
}

// BenchmarkSendRound measures one send round: the round built once from
// the world, then Acknowledge, Write and Sent for each peer (every snapshot
// acknowledged, so each peer's baseline keeps up with the moving world).
func BenchmarkSendRound(b *testing.B) {
	for _, peers := range []int{4, 16, 64} {
		b.Run(fmt.Sprintf("peers=%d", peers), func(b *testing.B) {
			s := testSchema(b)
			w := arenaWorld()
			slots := w.slots()
			r := NewRound(s)
			ps := make([]*Peer, peers)
			for i := range ps {
				ps[i] = NewPeer(s)
			}
			acks := AckFunc(func(wire.Seq) (bool, bool) { return true, false })
			var buf []byte
			seq, tick, bytes, snaps := wire.Seq(0), 0, 0, 0
			round := func() {
				arenaStep(w, tick)
				tick++
				r.Begin(uint32(tick))
				for _, slot := range slots {
					e := w.ents[slot]
					r.Entity(e.id, e.silence)
					e.t.Scale = r.Transform(*e.t)
					if e.rb != nil {
						r.Rigidbody(*e.rb)
					}
					if e.cc != nil {
						r.CharacterController(*e.cc)
					}
					if e.health != nil {
						r.Project(0, e.health)
					}
				}
				seq++
				for i, p := range ps {
					p.Acknowledge(acks)
					buf = p.Write(buf[:0], r, entity.ID{Slot: uint32(i % 4), Gen: 1}, budgetBytes)
					p.Sent(seq)
					bytes += len(buf)
					snaps++
				}
			}
			for range 8 {
				round()
			}
			bytes, snaps = 0, 0
			b.ReportAllocs()
			for b.Loop() {
				round()
			}
			b.ReportMetric(float64(bytes)/float64(snaps), "bytes/snapshot")
		})
	}
}

func BenchmarkReadSnapshot(b *testing.B) {
	s := testSchema(b)
	w := arenaWorld()
	arenaStep(w, 1)
	r := NewRound(s)
	w.build(b, r, 1)
	payload := NewPeer(s).Write(nil, r, entity.ID{Slot: 0, Gen: 1}, budgetBytes)
	var sn Snapshot
	if err := sn.Decode(s, payload, Refs{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(payload)))
	for b.Loop() {
		if err := sn.Decode(s, payload, Refs{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(sn.Entries)), "entries/snapshot")
}

// BenchmarkEncodeBody quantises and encodes one moving body's Transform and
// Rigidbody into a round.
func BenchmarkEncodeBody(b *testing.B) {
	s := testSchema(b)
	r := NewRound(s)
	t := entity.Transform{X: 12.3456, Y: -3.21, Angle: 1.2345, Scale: 1}
	rb := entity.Rigidbody{VX: 3.21, VY: -9.81, AngularVelocity: 0.7, Awake: true}
	id := entity.ID{Slot: 5, Gen: 1}
	b.ReportAllocs()
	for b.Loop() {
		r.Begin(1)
		r.Entity(id, Described)
		r.Transform(t)
		r.Rigidbody(rb)
	}
}

// BenchmarkSendRoundSpin measures a send round of the busy world served
// beside Colyseus (BENCHMARKS.md): 500 bodies going round circles and
// turning, on a 25 × 20 grid 16 m apart, and 8 watchers. Each connection
// knows the tick rate, as a served one does, so a moving body's entry is
// its difference from the state its client predicts; without it every
// body's state would go whole (about 133 bits against about 24), which no
// served connection sends.
func BenchmarkSendRoundSpin(b *testing.B) {
	const peers, bodies = 8, 500
	s := testSchema(b)
	w := newWorld()
	for i := range peers {
		w.spawn(uint32(i), Described, 0)
	}
	for i := range bodies {
		e := w.spawn(uint32(peers+i), Described, float64(i%25-12)*16)
		e.t.Y = float64(i/25-10) * 16
		e.rb = &entity.Rigidbody{Awake: true}
	}
	slots := w.slots()
	r := NewRound(s)
	ps := make([]*Peer, peers)
	for i := range ps {
		ps[i] = NewPeer(s)
		ps[i].SetTickRate(64)
	}
	acks := AckFunc(func(wire.Seq) (bool, bool) { return true, false })
	var buf []byte
	seq, tick, bytes, snaps := wire.Seq(0), 0, 0, 0
	round := func() {
		tick++
		for i := range bodies {
			e := w.ents[uint32(peers+i)]
			speed := 0.5 + float64(i*53%101)/100 // radians a second
			radius := 1 + float64(i*37%61)/10
			a := speed * float64(tick) / 64
			e.rb.VX, e.rb.VY = -radius*speed*math.Sin(a), radius*speed*math.Cos(a)
			e.t.X += e.rb.VX / 64
			e.t.Y += e.rb.VY / 64
			e.rb.AngularVelocity = speed
			e.t.Angle = a
		}
		buildFrom(b, w, slots, r, uint32(tick))
		seq++
		for i, p := range ps {
			p.Acknowledge(acks)
			buf = p.Write(buf[:0], r, w.ents[uint32(i)].id, budgetBytes)
			p.Sent(seq)
			bytes += len(buf)
			snaps++
		}
	}
	for range 64 {
		round()
	}
	bytes, snaps = 0, 0
	b.ReportAllocs()
	for b.Loop() {
		round()
	}
	b.ReportMetric(float64(bytes)/float64(snaps), "bytes/snapshot")
}

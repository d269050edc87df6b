package replication

import (
	"fmt"
	"runtime"
	"testing"

	"vkm/internal/entity"
	"vkm/wire"
)

// BenchmarkMovingBodyWire measures what one moving body costs a snapshot:
// 64 bodies every peer already holds, each with every field of its
// Transform and Rigidbody changed since the last snapshot, written as
// deltas. The size per body is the snapshot's growth over one that says
// nothing but its header and own entity, shared out.
func BenchmarkMovingBodyWire(b *testing.B) {
	const bodies = 64
	s := testSchema(b)
	w := newWorld()
	own := w.spawn(1, Described, 0)
	own.rb = &entity.Rigidbody{}
	for i := range bodies {
		e := w.spawn(uint32(10+i), Described, float64(i))
		e.t.Y = float64(i % 7)
		e.rb = &entity.Rigidbody{Awake: true}
	}
	r := NewRound(s)
	slots := w.slots()
	p := NewPeer(s)
	acks := AckFunc(func(wire.Seq) (bool, bool) { return true, false })
	var buf []byte
	seq, tick := wire.Seq(0), uint32(0)
	snapshot := func(move bool) int {
		tick++
		if move {
			arenaStep(w, int(tick))
		}
		buildFrom(b, w, slots, r, tick)
		p.Acknowledge(acks)
		buf = p.Write(buf[:0], r, own.id, budgetBytes)
		seq++
		p.Sent(seq)
		return len(buf)
	}
	for range 4 {
		snapshot(true) // every body known and confirmed
	}
	snapshot(false)
	quiet := snapshot(false) // nothing changed: header and own entity
	var total int
	b.ReportAllocs()
	for b.Loop() {
		total = snapshot(true)
	}
	b.ReportMetric(float64(total-quiet)/bodies, "bytes/body")
	b.ReportMetric(float64(total-quiet)*8/bodies, "bits/body")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/bodies, "ns/body")
}

// crowdWorld is the benchmark world of a crowd: players running about and
// many bodies at rest, as projects/crowd holds them (64 players, 500
// crates).
func crowdWorld(players, resting int) *world {
	w := newWorld()
	for i := range players {
		p := w.spawn(uint32(100+i), Described, float64(i))
		p.rb = &entity.Rigidbody{Awake: true}
		p.cc = &entity.CharacterController{Grounded: true}
		p.health = entity.Values{100}
	}
	for i := range resting {
		e := w.spawn(uint32(1000+i), Described, float64(i)*1.25)
		e.t.Y = 0.5 + float64(11*(i%4))
		e.rb = &entity.Rigidbody{}
	}
	for i := range 40 {
		w.spawn(uint32(1+i), StaticBody, float64(i))
	}
	return w
}

// BenchmarkSendRoundCrowd measures one send round of a crowd: every player
// moving, every crate at rest and confirmed long ago, a snapshot per peer.
// What the resting crates cost is each peer's finding again that it has
// nothing to say of them. heap-B/peer is what each peer's state holds once
// every crate is confirmed (its baseline, claims and scratch).
func BenchmarkSendRoundCrowd(b *testing.B) {
	for _, peers := range []int{16, 64} {
		b.Run(fmt.Sprintf("peers=%d", peers), func(b *testing.B) {
			s := testSchema(b)
			w := crowdWorld(peers, 500)
			r := NewRound(s)
			slots := w.slots()
			buildFrom(b, w, slots, r, 0)
			buildFrom(b, w, slots, r, 0)
			heap := heapInUse()
			ps := make([]*Peer, peers)
			for i := range ps {
				ps[i] = NewPeer(s)
			}
			acks := AckFunc(func(wire.Seq) (bool, bool) { return true, false })
			var buf []byte
			seq, tick, bytes, snaps := wire.Seq(0), 0, 0, 0
			round := func() {
				tick++
				for i := range peers {
					moving(w.ents[uint32(100+i)], 2+float64(i%5))
				}
				buildFrom(b, w, slots, r, uint32(tick))
				seq++
				for i, p := range ps {
					p.Acknowledge(acks)
					buf = p.Write(buf[:0], r, w.ents[uint32(100+i)].id, budgetBytes)
					p.Sent(seq)
					bytes += len(buf)
					snaps++
				}
			}
			for range 64 { // long enough for every crate to be confirmed at rest
				round()
			}
			perPeer := float64(heapInUse()-heap) / float64(peers)
			bytes, snaps = 0, 0
			b.ReportAllocs()
			for b.Loop() {
				round()
			}
			b.ReportMetric(float64(bytes)/float64(snaps), "bytes/snapshot")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(peers), "ns/peer")
			b.ReportMetric(perPeer, "heap-B/peer")
		})
	}
}

// heapInUse returns the bytes of live heap objects after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// buildFrom fills r from w as world.build does, over slots listed once, so
// a round allocates nothing of the test world's own.
func buildFrom(tb testing.TB, w *world, slots []uint32, r *Round, tick uint32) {
	r.Begin(tick)
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
			if err := r.Project(0, e.health); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

package replication

import (
	"fmt"
	"math"
	"testing"

	"vkm/internal/entity"
	"vkm/wire"
)

// BenchmarkSendRoundCircles measures one send round of bench/spin's world
// at 500 bodies: each on a circle of 1 to 7 m at 0.5 to 1.5 rad/s, its
// velocity set each tick to the chord to its next point, spinning at that
// speed, every peer acknowledging each snapshot at once. A round is the
// world built once and a snapshot for each peer; bytes/snapshot is what
// each peer was sent (its budget holds a few hundred bodies).
//
// With lag=n each peer's acknowledgements come n rounds late, as a round
// trip of about n/64 s brings them: the snapshot sent in round k is
// acknowledged at round k+n, so n snapshots are in flight and each
// baseline is n rounds behind the world (lag=3: about 47 ms).
func BenchmarkSendRoundCircles(b *testing.B) {
	for _, c := range []struct{ peers, lag int }{{8, 0}, {8, 3}} {
		name := fmt.Sprintf("peers=%d", c.peers)
		if c.lag > 0 {
			name += fmt.Sprintf(",lag=%d", c.lag)
		}
		peers, lag := c.peers, c.lag
		b.Run(name, func(b *testing.B) {
			const bodies = 500
			s := testSchema(b)
			w := newWorld()
			type circle struct{ cx, cy, r, w float64 }
			cs := map[uint32]circle{}
			for i := range bodies {
				slot := uint32(2 + i)
				e := w.spawn(slot, Described, float64(i%25)*16)
				e.t.Y = float64(i/25) * 16
				r := 1 + float64(slot*37%61)/10
				cs[slot] = circle{e.t.X - r, e.t.Y, r, 0.5 + float64(slot*53%101)/100}
				e.rb = &entity.Rigidbody{Awake: true}
			}
			slots := w.slots()
			r := NewRound(s)
			ps := make([]*Peer, peers)
			for i := range ps {
				ps[i] = NewPeer(s)
				if tr, ok := any(ps[i]).(interface{ SetTickRate(int) }); ok {
					tr.SetTickRate(64)
				}
			}
			var buf []byte
			seq, tick, bytes, snaps := wire.Seq(0), 0, 0, 0
			acks := AckFunc(func(s wire.Seq) (bool, bool) {
				if lag == 0 {
					return true, false
				}
				return wire.Diff(seq+1, s) >= lag, false
			})
			const dt = 1.0 / 64
			round := func() {
				tick++
				for _, slot := range slots {
					e, c := w.ents[slot], cs[slot]
					a := c.w * float64(tick) * dt
					tx, ty := c.cx+c.r*math.Cos(a), c.cy+c.r*math.Sin(a)
					e.rb.VX, e.rb.VY = (tx-e.t.X)/dt, (ty-e.t.Y)/dt
					e.t.X = float64(float32(e.t.X + e.rb.VX*dt))
					e.t.Y = float64(float32(e.t.Y + e.rb.VY*dt))
					e.rb.AngularVelocity = c.w
					e.t.Angle = wire.Wrap(e.t.Angle + c.w*dt)
				}
				r.Begin(uint32(tick))
				for _, slot := range slots {
					e := w.ents[slot]
					r.Entity(e.id, e.silence)
					e.t.Scale = r.Transform(*e.t)
					r.Rigidbody(*e.rb)
				}
				seq++
				for _, p := range ps {
					p.Acknowledge(acks)
					buf = p.Write(buf[:0], r, entity.None, budgetBytes)
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

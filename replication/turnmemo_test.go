package replication

import (
	"bytes"
	"math"
	"testing"

	"vkm/internal/entity"
	"vkm/wire"
)

// TestTurnChoicesShared writes each round for many connections holding
// bodies that go round circles, acknowledged at delays of one to three
// rounds, a few of them losing snapshots, and checks that each
// connection is sent exactly what a twin that chooses every state itself
// is sent, while the round works out a choice once for the connections
// that hold the same state.
func TestTurnChoicesShared(t *testing.T) {
	const peers, bodies, delays = 12, 30, 3
	s := testSchema(t)
	w := newWorld()
	type circle struct{ cx, cy, r, w float64 }
	cs := map[uint32]circle{}
	for i := range bodies {
		slot := uint32(1 + i)
		e := w.spawn(slot, Described, float64(i%6)*4)
		e.t.Y = float64(i/6) * 4
		rad := 1 + float64(slot*37%61)/20
		cs[slot] = circle{e.t.X - rad, e.t.Y, rad, 0.5 + float64(slot*53%101)/100}
		e.rb = &entity.Rigidbody{Awake: true}
	}
	slots := w.slots()
	r := NewRound(s)
	ps, twins := make([]*Peer, peers), make([]*Peer, peers)
	for i := range ps {
		ps[i], twins[i] = newPeer(s), newPeer(s)
		twins[i].ownTurns = true
	}
	var seq wire.Seq
	fate := func(i int) AckFunc {
		return func(q wire.Seq) (bool, bool) {
			if wire.Diff(seq, q) < 1+i%delays {
				return false, false
			}
			lost := i >= 3*delays && q%5 == 0
			return !lost, lost
		}
	}
	asked, made := 0, 0
	const dt = 1.0 / harnessTickRate
	for tick := 1; tick <= 120; tick++ {
		for _, slot := range slots {
			e, c := w.ents[slot], cs[slot]
			a := c.w * float64(tick) * dt
			tx, ty := c.cx+c.r*math.Cos(a), c.cy+c.r*math.Sin(a)
			e.rb.VX, e.rb.VY = (tx-e.t.X)/dt, (ty-e.t.Y)/dt
			e.t.X, e.t.Y = tx, ty
			e.rb.AngularVelocity = c.w
			e.t.Angle = wire.Wrap(e.t.Angle + c.w*dt)
		}
		buildFrom(t, w, slots, r, uint32(tick))
		seq++
		for i := range ps {
			ps[i].Acknowledge(fate(i))
			got := ps[i].Write(nil, r, entity.None, budgetBytes)
			ps[i].Sent(seq)
			twins[i].Acknowledge(fate(i))
			want := twins[i].Write(nil, r, entity.None, budgetBytes)
			twins[i].Sent(seq)
			if !bytes.Equal(got, want) {
				t.Fatalf("tick %d, connection %d: sent %x with the round's kept choices, %x choosing each itself", tick, i, got, want)
			}
		}
		asked, made = asked+r.turnsAsked, made+r.turnsMade
	}
	// Twelve connections at three delays, three of them losing: each
	// body's state goes predicted to most, and the connections that
	// hold the same state share its choice.
	if asked < 120*bodies*peers/2 {
		t.Fatalf("%d states asked for over 120 rounds of %d bodies and %d connections: too few predicted to test", asked, bodies, peers)
	}
	if made > asked/2 {
		t.Errorf("%d of %d states worked out: the round did not share its choices between connections holding the same state", made, asked)
	}
	t.Logf("%d of %d states worked out", made, asked)
}

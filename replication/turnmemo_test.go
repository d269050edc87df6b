package replication

import (
	"bytes"
	"math"
	"sync"
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
	w, step := circling(bodies)
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
	for tick := 1; tick <= 120; tick++ {
		step(tick)
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

// TestTurnChoicesConcurrentWrites writes each round for 16 connections
// from four goroutines at once, as a Round allows, and checks that each
// is sent what a twin written alone, choosing every state itself, is sent
// (run it with -race to see the kept choices shared safely).
func TestTurnChoicesConcurrentWrites(t *testing.T) {
	const peers, bodies, workers = 16, 60, 4
	s := testSchema(t)
	w, step := circling(bodies)
	slots := w.slots()
	r := NewRound(s)
	ps, twins := make([]*Peer, peers), make([]*Peer, peers)
	for i := range ps {
		ps[i], twins[i] = newPeer(s), newPeer(s)
		twins[i].ownTurns = true
	}
	var seq wire.Seq
	fate := func(i int) AckFunc {
		return func(q wire.Seq) (bool, bool) { return wire.Diff(seq, q) >= 1+i%2, false }
	}
	got := make([][]byte, peers)
	asked := 0
	for tick := 1; tick <= 40; tick++ {
		step(tick)
		buildFrom(t, w, slots, r, uint32(tick))
		seq++
		var wg sync.WaitGroup
		for k := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := k; i < peers; i += workers {
					ps[i].Acknowledge(fate(i))
					got[i] = ps[i].Write(got[i][:0], r, entity.None, budgetBytes)
					ps[i].Sent(seq)
				}
			}()
		}
		wg.Wait()
		asked += r.turnsAsked
		for i, q := range twins {
			q.Acknowledge(fate(i))
			want := q.Write(nil, r, entity.None, budgetBytes)
			q.Sent(seq)
			if !bytes.Equal(got[i], want) {
				t.Fatalf("tick %d, connection %d: sent %x written beside others, %x alone", tick, i, got[i], want)
			}
		}
	}
	if asked < 40*bodies*peers/2 {
		t.Fatalf("%d states asked for over 40 rounds of %d bodies and %d connections: too few predicted to test", asked, bodies, peers)
	}
}

// circling returns a world of n bodies going round circles of their own
// at their own speeds and turning as they go, and a function that moves
// them to where they are at a tick.
func circling(n int) (*world, func(tick int)) {
	w := newWorld()
	type circle struct{ cx, cy, r, w float64 }
	cs := map[uint32]circle{}
	for i := range n {
		slot := uint32(1 + i)
		e := w.spawn(slot, Described, float64(i%6)*4)
		e.t.Y = float64(i/6) * 4
		rad := 1 + float64(slot*37%61)/20
		cs[slot] = circle{e.t.X - rad, e.t.Y, rad, 0.5 + float64(slot*53%101)/100}
		e.rb = &entity.Rigidbody{Awake: true}
	}
	const dt = 1.0 / harnessTickRate
	return w, func(tick int) {
		for slot, c := range cs {
			e := w.ents[slot]
			a := c.w * float64(tick) * dt
			tx, ty := c.cx+c.r*math.Cos(a), c.cy+c.r*math.Sin(a)
			e.rb.VX, e.rb.VY = (tx-e.t.X)/dt, (ty-e.t.Y)/dt
			e.t.X, e.t.Y = tx, ty
			e.rb.AngularVelocity = c.w
			e.t.Angle = wire.Wrap(e.t.Angle + c.w*dt)
		}
	}
}

// TestTurnChoicesChained: connections that hold states of one gap in
// turn, A, B, A, C, B, get each state's choice worked out once, the
// round keeping several choices of a gap rather than the last alone, and
// each the choice the connection would make itself; past turnChain
// states of a gap, the oldest is worked out again.
func TestTurnChoicesChained(t *testing.T) {
	s := testSchema(t)
	w, step := circling(1)
	slots := w.slots()
	r := NewRound(s)
	p := newPeer(s)
	for tick := 1; tick <= 4; tick++ {
		step(tick)
		buildFrom(t, w, slots, r, uint32(tick))
		p.Write(nil, r, entity.None, budgetBytes) // seals the round
	}
	e := &r.ents[0]
	if !e.moving {
		t.Fatal("the circling body is not moving")
	}
	ref := func(k int) turnRef {
		st := e.turn
		st.x += int32(7 * k)
		st.vt = int16(k)
		return turnRef{tick: r.tick - 2, t: st, ok: true}
	}
	ask := func(k int) {
		t.Helper()
		rf := ref(k)
		var c turnChoice
		r.turnFor(&c, p, e, &rf, 0)
		if want := p.chooseTurn(e.turn, rf, r.tick, 0); c != want {
			t.Fatalf("state %d: given %+v; chosen alone %+v", k, c, want)
		}
	}
	for _, k := range []int{1, 2, 1, 3, 2, 1, 3} {
		ask(k)
	}
	if r.turnsMade != 3 || r.turnsAsked != 7 {
		t.Fatalf("%d of %d states worked out; want 3 of 7", r.turnsMade, r.turnsAsked)
	}
	for k := 4; k < 4+turnChain; k++ {
		ask(k)
	}
	made := r.turnsMade
	ask(1) // now past the chain's reach
	if r.turnsMade != made+1 {
		t.Fatalf("a state %d choices back found: the chain is longer than turnChain", turnChain+3)
	}
}

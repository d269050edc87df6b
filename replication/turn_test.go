package replication

import (
	"testing"

	"vkm/internal/entity"
	"vkm/wire"
)

// TestTurningBodiesArePredicted: bodies that move and turn steadily, their
// velocity changing each round, are written as moving bodies, once the
// connection has acknowledged a state of each with their turns predicted
// from it: a few bits over the same bodies sliding without turning (whose
// turn is one bit), where the whole turn took 43 bits more. It prints the difference an entry; the client then holds
// exactly the server's world once the bodies stop.
func TestTurningBodiesArePredicted(t *testing.T) {
	const bodies = 40
	run := func(turning bool) (bytes, entries, gaps int) {
		m := newSim(t, 40)
		for i := range bodies {
			m.w.spawn(uint32(1+i), Described, float64(i))
		}
		for round := range 60 {
			for _, e := range m.w.ents {
				// Speeding up as it goes (so its Rigidbody changes every
				// round, as a body on a curve's does), turning steadily.
				v := 1 + float64(e.id.Slot%5)*0.37 + 0.01*float64(round)
				moving(e, v)
				w := 0.5 + float64(e.id.Slot%7)*0.15
				e.t.Angle += w/64 - v/100
				e.rb.AngularVelocity = w
				if !turning {
					e.t.Angle, e.rb.AngularVelocity = 0, 0
				}
			}
			m.step()
			if round < 10 {
				continue // the first states are still being acknowledged
			}
			bytes += m.p.Stats().Bytes
			entries += m.p.Stats().Entries
			if m.p.hdrGap != 0 {
				gaps++
			}
		}
		m.stopAndConverge(10, "turning bodies")
		return bytes, entries, gaps
	}
	turnB, turnE, gaps := run(true)
	slideB, slideE, _ := run(false)
	more := 8 * float64(turnB-slideB) / float64(turnE)
	t.Logf("50 snapshots of %d bodies: %d bytes turning (%d entries, %d headers with a gap), %d sliding (%d entries): %.2f bits more an entry",
		bodies, turnB, turnE, gaps, slideB, slideE, more)
	if turnE != slideE || gaps < 45 || more > 6 {
		t.Errorf("turning costs %.2f bits an entry more than sliding; want at most 6 (a predicted turn a step off at most)", more)
	}
}

// TestPredictedTurnsRoundTrip writes, for angles either side of ±π and
// angular velocities up to the quantiser's ends, a turn predicted from a
// state and reads it back against the same state: it comes back as the
// server's, −π as +π.
func TestPredictedTurnsRoundTrip(t *testing.T) {
	p := newPeer(testSchema(t))
	sn := Snapshot{TickRate: harnessTickRate}
	const tick = 1000
	for _, ref := range []turn{
		turnOf(3.14159, 1, 1.5), turnOf(-3.14159, 1, -200), turnOf(0.1, 2.5, 0), turnOf(wire.Angle.Quantize(3.2), 1, 262),
	} {
		for _, now := range []turn{
			turnOf(-3.1415, ref.angle(), 1.5), turnOf(3.14159265, float64(ref.scale), 0.3), turnOf(-3.14159265, float64(ref.scale), -262),
			turnOf(0.2, float64(ref.scale), 0.7), turnOf(ref.angle()+0.01, float64(ref.scale), ref.angularVelocity()),
		} {
			now.scale = ref.scale
			for _, gap := range []int{1, 3, MaxTurnGap} {
				c := p.chooseTurn(now, turnRef{tick: tick - uint32(gap), t: ref, ok: true}, tick, 3)
				var w wire.Writer
				writeTurn(&w, c, now)
				if w.Len() != c.bits {
					t.Fatalf("%+v from %+v: written %d bits, planned %d", now, ref, w.Len(), c.bits)
				}
				var ring turnRing
				ring.id = entity.ID{Slot: 1, Gen: 1}
				ring.push(tick-uint32(gap), ref)
				sn.Tick = tick
				got, err := sn.readTurn(wire.NewReader(w.Bytes()), &ring, 3)
				if err != nil {
					t.Fatalf("%+v from %+v, gap %d: %v", now, ref, gap, err)
				}
				if got != now {
					t.Fatalf("%+v from %+v, gap %d (form %d): read %+v", now, ref, gap, c.form, got)
				}
			}
		}
	}
}

// FuzzReadTurn reads arbitrary bits as a moving body's turn, against a
// client holding three states of the occupant and a header naming a gap
// of 2: never a panic, and a turn read, written back in the form its
// server would choose from the state 2 ticks back, reads back the same.
// The seeds are each form's.
func FuzzReadTurn(f *testing.F) {
	const tick = 500
	states := map[uint32]turn{tick - 1: turnOf(1, 1, 0.7), tick - 2: turnOf(-3.14, 1, -2), tick - 5: turnOf(0.3, 2, 0)}
	ring := turnRing{id: entity.ID{Slot: 3, Gen: 1}}
	for _, t := range []uint32{tick - 5, tick - 2, tick - 1} {
		ring.push(t, states[t])
	}
	p := newPeer(testSchema(f))
	for _, c := range []struct {
		now turn
		ref uint32
	}{
		{turnOf(0, 1, 0), tick - 2}, {turnOf(-3.13, 1, -2), tick - 2}, {turnOf(1.02, 1, 0.75), tick - 1},
		{turnOf(0.31, 2, 0.001), tick - 5}, {turnOf(2, 1.5, 100), tick - 1},
	} {
		var w wire.Writer
		writeTurn(&w, p.chooseTurn(c.now, turnRef{tick: c.ref, t: states[c.ref], ok: true}, tick, 2), c.now)
		f.Add(w.Bytes())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sn := Snapshot{TickRate: harnessTickRate, Tick: tick}
		got, err := sn.readTurn(wire.NewReader(b), &ring, 2)
		if err != nil {
			return
		}
		ref := states[tick-2]
		if got.scale != ref.scale {
			ref = turn{} // predicted from another state: sent whole
		}
		var w wire.Writer
		writeTurn(&w, p.chooseTurn(got, turnRef{tick: tick - 2, t: ref, ok: ref.scale != 0}, tick, 2), got)
		again, err := sn.readTurn(wire.NewReader(w.Bytes()), &ring, 2)
		if err != nil || again != got {
			t.Fatalf("%+v written back reads %+v (%v)", got, again, err)
		}
	})
}

package replication

import (
	"math"
	"math/rand/v2"
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

// circles runs bodies like bench/spin's spinners (spin) or
// bench/orbits's orbiters (!spin) for rounds rounds on a clean link: each
// goes round a circle of 1 to 7 m at 0.5 to 1.5 rad/s, its velocity set
// each tick to the chord to its next point and its position moved by it,
// as the physics moves a kinematic body (holding it in float32, as the
// physics does); a spinner also turns at its circle's angular speed. It returns the snapshots' bytes and entries
// after the first ten rounds, and the bits the moving-body states took,
// by part: the form, then each of the seven codes of a predicted one.
func circles(t *testing.T, bodies, rounds int, spin bool, lossy func(*sim)) (bytes, entries int, parts [2 + predictedCodes]int) {
	m := newSim(t, 7)
	if lossy != nil {
		lossy(m)
	}
	type circle struct{ cx, cy, r, w float64 }
	cs := map[uint32]circle{}
	for i := range bodies {
		slot := uint32(2 + i)
		e := m.w.spawn(slot, Described, float64(i%10)*16)
		e.t.Y = float64(i/10) * 16
		r := 1 + float64(slot*37%61)/10
		w := 0.5 + float64(slot*53%101)/100
		cs[slot] = circle{e.t.X - r, e.t.Y, r, w}
		e.rb = &entity.Rigidbody{Awake: true}
	}
	const dt = 1.0 / harnessTickRate
	for round := range rounds {
		for slot, e := range m.w.ents {
			c := cs[slot]
			a := c.w * float64(round+1) * dt
			tx, ty := c.cx+c.r*math.Cos(a), c.cy+c.r*math.Sin(a)
			e.rb.VX, e.rb.VY = (tx-e.t.X)/dt, (ty-e.t.Y)/dt
			e.t.X = float64(float32(e.t.X + e.rb.VX*dt))
			e.t.Y = float64(float32(e.t.Y + e.rb.VY*dt))
			if spin {
				e.rb.AngularVelocity = c.w
				e.t.Angle = wire.Wrap(e.t.Angle + c.w*dt)
			}
		}
		m.step()
		if round < 10 {
			continue
		}
		bytes += m.p.Stats().Bytes
		entries += m.p.Stats().Entries
		for i := range m.r.ents {
			e := &m.r.ents[i]
			b := m.p.base(e.id.Slot)
			c := m.p.chooseTurn(e.turn, m.p.refOf(b, e, false), m.r.tick, m.p.hdrGap)
			if c.form == turnWhole {
				parts[0] += int(c.bits)
				continue
			}
			parts[0] += 2
			if c.form == turnGap {
				parts[0] += turnGapBits
			}
			for k, v := range choiceCodes(t, &c) {
				parts[1+k] += golombBits(v)
			}
			parts[1+predictedCodes]++
		}
	}
	m.stopAndConverge(10, "bodies on circles")
	return bytes, entries, parts
}

// TestCirclesBitBudget runs 50 bodies on circles, turning (bench/spin) and
// not (bench/orbits), and prints what a moving body's state costs, part
// by part, and a snapshot's bytes a body, its header counted: the figure
// the load matrix measures, but for the transport's header. A body on a
// circle is predicted to within a step or two of every part.
func TestCirclesBitBudget(t *testing.T) {
	for _, spin := range []bool{true, false} {
		const bodies, rounds = 50, 200
		bytes, entries, parts := circles(t, bodies, rounds, spin, nil)
		snaps := rounds - 10
		n := float64(entries)
		t.Logf("spin %v: %.2f bytes a body a snapshot (%d snapshots, %.1f entries each); a state's bits: form %.2f, "+
			"velocity turn %.2f, vx %.2f, vy %.2f, x %.2f, y %.2f, angular velocity %.2f, angle %.2f (%d of %d predicted)",
			spin, float64(bytes)/float64(snaps*bodies), snaps, n/float64(snaps), float64(parts[0])/n,
			float64(parts[1])/n, float64(parts[2])/n, float64(parts[3])/n, float64(parts[4])/n,
			float64(parts[5])/n, float64(parts[6])/n, float64(parts[7])/n, parts[8], entries)
		if per := float64(bytes) / float64(snaps*bodies); per > 6 {
			t.Errorf("%.2f bytes a body a snapshot; want at most 6", per)
		}
	}
}

// TestCirclesConvergeThroughLoss runs the turning bodies on a link that
// loses, duplicates and reorders snapshots and loses acknowledgements,
// checking the Peer's baseline against a client fed only what was
// acknowledged after every round: the states predicted from survive loss,
// and once the bodies stop the client holds the server's world exactly.
func TestCirclesConvergeThroughLoss(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		var m *sim
		bytes, entries, parts := circles(t, 30, 150, true, func(s *sim) {
			m = s
			s.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
			s.check = true
			s.loss, s.dup, s.reorder, s.ackLoss = 0.2, 0.05, 0.1, 0.05
		})
		t.Logf("seed %d: %d bytes, %d entries, %d of them predicted, %d snapshots sent", seed, bytes, entries, parts[1+predictedCodes], m.sent)
		if parts[1+predictedCodes] < entries/2 {
			t.Errorf("seed %d: %d of %d entries predicted; want most", seed, parts[1+predictedCodes], entries)
		}
	}
}

// TestPredictedTurnsRoundTrip writes, for angles either side of ±π,
// angular velocities up to the quantiser's ends, positions and velocities
// near and at their ends and velocity turns either way, a state predicted
// from another and reads it back against the same state: it comes back
// as the server's, −π as +π, with the velocity turn the server chose.
func TestPredictedTurnsRoundTrip(t *testing.T) {
	p := newPeer(testSchema(t))
	p.SetTickRate(harnessTickRate)
	sn := Snapshot{TickRate: harnessTickRate}
	const tick = 1000
	refs := []turn{
		turnOf(3.14159, 1, 1.5).placed(1.5, -2, 3, 0.25), turnOf(-3.14159, 1, -200).placed(-2097.151, 2097.151, -327.67, 327.67),
		turnOf(0.1, 2.5, 0).placed(0, 0, 0.01, 0), turnOf(wire.Angle.Quantize(3.2), 1, 262).placed(100, -100, 10, -10),
	}
	refs[0].vt, refs[1].vt, refs[3].vt = 1200, -maxVT, 77
	for _, ref := range refs {
		for _, now := range []turn{
			turnOf(-3.1415, ref.angle(), 1.5).placed(1.52, -1.99, 3.1, 0.2), turnOf(3.14159265, float64(ref.scale), 0.3).placed(2097.151, -2097.151, 327.67, -327.67),
			turnOf(-3.14159265, float64(ref.scale), -262).placed(-5, 5, 0, 0), turnOf(0.2, float64(ref.scale), 0.7).placed(0.001, 0, -0.01, 0),
			turnOf(ref.angle()+0.01, float64(ref.scale), ref.angularVelocity()).placed(100.1, -99.9, 9.9, -10.1),
		} {
			now.scale = ref.scale
			for _, vt := range []int16{0, 1157, -maxVT, maxVT} {
				now.vt = vt
				for _, gap := range []int{1, 3, MaxTurnGap} {
					c := p.chooseTurn(now, turnRef{tick: tick - uint32(gap), t: ref, ok: true}, tick, 3)
					var w wire.Writer
					writeTurn(&w, &c, now)
					if w.Len() != int(c.bits) {
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
					if got != c.sent(now) {
						t.Fatalf("%+v from %+v, gap %d (form %d): read %+v", now, ref, gap, c.form, got)
					}
				}
			}
		}
	}
}

// TestSinCos: the rotation both ends predict with is the library's to
// within 10^−8 over the turns a state predicts, and finite beyond them.
func TestSinCos(t *testing.T) {
	for a := -16.0; a <= 16; a += 0.001 {
		s, c := sincos(a)
		if math.Abs(s-math.Sin(a)) > 1e-8 || math.Abs(c-math.Cos(a)) > 1e-8 {
			t.Fatalf("sincos(%g) = %g, %g; want %g, %g", a, s, c, math.Sin(a), math.Cos(a))
		}
	}
	for _, a := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -65} {
		if s, c := sincos(a); s != 0 || c != 1 {
			t.Errorf("sincos(%g) = %g, %g; want 0, 1", a, s, c)
		}
	}
	if wire.Velocity.Step/wire.Position.Step-velPerPos > 1e-9 {
		t.Errorf("velPerPos %d is not the velocity's step over the position's", velPerPos)
	}
}

// FuzzReadTurn reads arbitrary bits as a moving body's state, against a
// client holding three states of the occupant and a header naming a gap
// of 2: never a panic, and a state read, written back in the form its
// server would choose from the state 2 ticks back, reads back the same.
// The seeds are each form's.
func FuzzReadTurn(f *testing.F) {
	const tick = 500
	states := map[uint32]turn{
		tick - 1: turnOf(1, 1, 0.7).placed(3, 4, 1, -1), tick - 2: turnOf(-3.14, 1, -2).placed(-10, 20, 5, 0.5),
		tick - 5: turnOf(0.3, 2, 0).placed(0, 0, 0, 2),
	}
	s := states[tick-2]
	s.vt = 900
	states[tick-2] = s
	ring := turnRing{id: entity.ID{Slot: 3, Gen: 1}}
	for _, t := range []uint32{tick - 5, tick - 2, tick - 1} {
		ring.push(t, states[t])
	}
	p := newPeer(testSchema(f))
	p.SetTickRate(harnessTickRate)
	for _, c := range []struct {
		now turn
		ref uint32
	}{
		{turnOf(0, 1, 0).placed(1, 1, 1, 1), tick - 2}, {turnOf(-3.13, 1, -2).placed(-9.9, 20, 5, 0.6), tick - 2},
		{turnOf(1.02, 1, 0.75).placed(3.01, 4, 1, -1), tick - 1}, {turnOf(0.31, 2, 0.001).placed(0, 0.01, 0, 2), tick - 5},
		{turnOf(2, 1.5, 100).placed(7, 7, -7, 7), tick - 1}, {turnOf(0, 1, 0).placed(-10.05, 20.01, 4.99, 0.55), tick - 2},
	} {
		var w wire.Writer
		tc := p.chooseTurn(c.now, turnRef{tick: c.ref, t: states[c.ref], ok: true}, tick, 2)
		writeTurn(&w, &tc, c.now)
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
		c := p.chooseTurn(got, turnRef{tick: tick - 2, t: ref, ok: ref.scale != 0}, tick, 2)
		writeTurn(&w, &c, got)
		again, err := sn.readTurn(wire.NewReader(w.Bytes()), &ring, 2)
		if err != nil || again != c.sent(got) {
			t.Fatalf("%+v written back reads %+v (%v)", got, again, err)
		}
	})
}

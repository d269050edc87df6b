package prediction

import (
	"testing"
	"time"

	"vkm/internal/entity"
)

// TestTrackDrawCarriesOnThenHolds: past its newest sample a moving body
// goes on along its velocity for the limit and then holds; a body at rest
// stays exactly where it was said to be.
func TestTrackDrawCarriesOnThenHolds(t *testing.T) {
	var tr Track
	tr.AddVelocity(10, entity.Transform{X: 0, Scale: 1}, Velocity{X: 0.1, Angle: 0.01})
	tr.AddVelocity(17, entity.Transform{X: 0.7, Scale: 1}, Velocity{X: 0.1, Angle: 0.01})
	cases := []struct {
		when  float64
		x     float64
		angle float64
		how   Drawing
	}{
		{13.5, 0.35, 0, Between}, // between the samples: interpolated
		{17, 0.7, 0, Between},
		{20, 1.0, 0.03, Ahead}, // three ticks on
		{22, 1.2, 0.05, Ahead}, // at the limit
		{30, 1.2, 0.05, Held},  // past it: held where the carrying stopped
	}
	for _, c := range cases {
		p, how := tr.Draw(c.when, 5)
		if how != c.how || !near(p.X, c.x) || !near(p.Angle, c.angle) || p.Scale != 1 {
			t.Errorf("at %v: %+v %v, want x %v angle %v %v", c.when, p, how, c.x, c.angle, c.how)
		}
		if tr.Drawing(c.when, 5) != how {
			t.Errorf("at %v: Drawing disagrees with Draw", c.when)
		}
	}

	var rest Track
	at := entity.Transform{X: 1.234567, Y: -7.654321, Angle: 0.3, Scale: 1}
	rest.AddVelocity(10, at, Velocity{})
	rest.AddVelocity(14, at, Velocity{})
	for _, when := range []float64{12, 14, 15.5, 40} {
		if p, how := rest.Draw(when, 5); p != at || how != Between {
			t.Fatalf("a body at rest drawn at %+v (%v) at %v", p, how, when)
		}
	}
	// Said to move with no velocity to carry it: held, not guessed at.
	var bare Track
	bare.AddMotion(10, entity.Transform{X: 1}, true)
	if p, how := bare.Draw(12, 5); p.X != 1 || how != Held {
		t.Fatalf("a mover with no velocity drawn at %+v (%v)", p, how)
	}
	var empty Track
	if p, how := empty.Draw(3, 5); p != (entity.Transform{}) || how != Between {
		t.Fatal("an empty track draws something")
	}
}

// TestTrackInterval: the measure follows the gaps between a mover's
// samples, sits near the longer ones when they vary, and ignores the gaps
// after a sample at rest.
func TestTrackInterval(t *testing.T) {
	var tr Track
	v := Velocity{X: 0.01}
	tick := uint32(100)
	for range 40 {
		tr.AddVelocity(tick, entity.Transform{}, v)
		tick += 7
	}
	if i := tr.Interval(); i < 6.9 || i > 7 {
		t.Fatalf("a body heard every 7 ticks measures %.2f", i)
	}
	for k := range 64 {
		tr.AddVelocity(tick, entity.Transform{}, v)
		tick += uint32(5 + 4*(k%2)) // 5 and 9 by turns
	}
	if i := tr.Interval(); i < 7.5 || i > 9 {
		t.Fatalf("gaps of 5 and 9 measure %.2f, want near the longer", i)
	}
	var rest Track
	rest.Add(100, entity.Transform{})
	rest.Add(300, entity.Transform{})
	if rest.Interval() != 0 {
		t.Fatalf("a body at rest measures an interval of %v", rest.Interval())
	}
}

// TestTrackSettles: a track's interval is settled once it rests on
// IntervalSettle readings, the gap after the first sample not among them,
// and a body at rest gives none.
func TestTrackSettles(t *testing.T) {
	var tr Track
	v := Velocity{X: 0.01}
	for i := range IntervalSettle + 1 {
		if tr.Settled() {
			t.Fatalf("settled after %d samples", i)
		}
		tr.AddVelocity(uint32(100+2*i), entity.Transform{}, v)
	}
	if tr.Settled() {
		t.Fatalf("settled on %d readings", IntervalSettle-1)
	}
	tr.AddVelocity(200, entity.Transform{}, v)
	if !tr.Settled() {
		t.Fatalf("not settled on %d readings", IntervalSettle)
	}
	var rest Track
	for i := range 10 {
		rest.Add(uint32(100+i), entity.Transform{})
	}
	if rest.Settled() {
		t.Fatal("a body at rest settled an interval")
	}
}

// TestInterpLead: with a lead the clock runs past the newest snapshot by
// that much before it is held.
func TestInterpLead(t *testing.T) {
	p := NewInterp(64, 64)
	p.Lead = 3
	p.Arrive(100, 0)
	for range 4 {
		p.Advance(time.Second / 64)
	}
	if p.Held() || p.Time() <= 100 {
		t.Fatalf("held at %v, inside the lead", p.Time())
	}
	for range 10 {
		p.Advance(time.Second / 64)
	}
	if !p.Held() || p.Time() != 103 {
		t.Fatalf("not held at the lead's end: %v at %v", p.Held(), p.Time())
	}
	p.Reset()
	if p.Lead != 3 {
		t.Fatal("Reset forgot the lead")
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

package wire

import (
	"math"
	"math/rand/v2"
	"testing"
)

var signedQuantisers = map[string]Signed{
	"position": Position, "velocity": Velocity, "angular velocity": AngularVelocity,
	"axis": Axis, "angle": Angle.Signed,
}

func TestZeroIsExactForEverySignedQuantity(t *testing.T) {
	for name, q := range signedQuantisers {
		for _, v := range []float64{0, math.Copysign(0, -1), q.Step / 3, -q.Step / 3} {
			if got := q.Quantize(v); got != 0 || math.Signbit(got) {
				t.Errorf("%s: %v quantises to %v, want exactly +0", name, v, got)
			}
		}
		if q.Decode(q.Encode(0)) != 0 {
			t.Errorf("%s: zero's code does not decode to zero", name)
		}
		// One fewer than half the codes either side of zero.
		if lo, hi := q.Encode(-math.MaxFloat64), q.Encode(math.MaxFloat64); lo != 1 || hi != 1<<q.Bits-1 {
			t.Errorf("%s: codes %d..%d, want 1..%d", name, lo, hi, 1<<q.Bits-1)
		}
	}
}

func TestRoundTripsAtTheRangeEdges(t *testing.T) {
	for name, q := range signedQuantisers {
		max := q.Max()
		for _, v := range []float64{max, -max, max - q.Step, -max + q.Step, q.Step, -q.Step} {
			var w Writer
			q.Write(&w, v)
			if w.Len() != int(q.Bits) {
				t.Fatalf("%s: wrote %d bits, want %d", name, w.Len(), q.Bits)
			}
			got := q.Read(NewReader(w.Bytes()))
			if math.Abs(got-v) > q.Step*1e-9 {
				t.Errorf("%s: %v → %v", name, v, got)
			}
		}
		if got := q.Quantize(2 * max); got != max {
			t.Errorf("%s: beyond the range %v quantises to %v, want the edge %v", name, 2*max, got, max)
		}
	}
	if got := Axis.Quantize(1); got != 1 {
		t.Errorf("a full axis reads %v, want exactly 1", got)
	}
}

func TestNonFiniteNeverReachesTheWire(t *testing.T) {
	for name, q := range signedQuantisers {
		for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			got := q.Quantize(v)
			if math.IsNaN(got) || math.IsInf(got, 0) {
				t.Errorf("%s: %v quantises to %v", name, v, got)
			}
		}
		if q.Quantize(math.NaN()) != 0 {
			t.Errorf("%s: NaN does not encode as zero", name)
		}
	}
	if Angle.Quantize(math.Inf(1)) != 0 {
		t.Error("an infinite angle is not 0")
	}
}

func TestA60MetreBodysFarEndStaysWithin3mmAtEveryAngle(t *testing.T) {
	const length = 60.0
	worst := 0.0
	for i := range 200000 {
		a := -3*math.Pi + 6*math.Pi*float64(i)/200000
		q := Angle.Quantize(a)
		w := Wrap(a)
		// Distance between the far ends of the body at the true and the
		// quantised angle.
		d := length * 2 * math.Abs(math.Sin((q-w)/2))
		if w == math.Pi && q == -math.Pi || w == -math.Pi && q == math.Pi {
			d = 0
		}
		worst = math.Max(worst, d)
	}
	t.Logf("worst far-end error of a 60 m body: %.3f mm", worst*1000)
	if worst >= 0.003 {
		t.Fatalf("far end moves %.2f mm, want under 3 mm", worst*1000)
	}
}

func TestNetScaleBoundsAScale(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{
		{1, 1}, {2.5, 2.5}, {math.NaN(), 1}, {math.Inf(1), 1}, {2000, MaxScale}, {-5000, -MaxScale},
		{0.1, float64(float32(0.1))},
	} {
		if got := NetScale(tc.in); got != tc.want {
			t.Errorf("NetScale(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestEncodeClampsAsMaxMin: Encode, which clamps by comparison, gives the
// code math.Max and math.Min gave, for every quantiser, at and around its
// limits, zeros of both signs, infinities and random values.
func TestEncodeClampsAsMaxMin(t *testing.T) {
	old := func(q Signed, v float64) uint64 {
		if v != v {
			return q.half()
		}
		n := math.Round(v / q.Step)
		lim := float64(q.half() - 1)
		n = math.Max(-lim, math.Min(lim, n))
		return uint64(int64(q.half()) + int64(n))
	}
	rng := rand.New(rand.NewPCG(9, 0))
	for _, q := range []Signed{Position, Velocity, AngularVelocity, Angle.Signed, {Bits: 2, Step: 1}, {Bits: 40, Step: 1e-6}} {
		m := q.Max()
		vs := []float64{0, math.Copysign(0, -1), m, -m, m + q.Step/2, -m - q.Step/2, m * 2, -m * 2, math.Inf(1), math.Inf(-1),
			math.MaxFloat64, -math.MaxFloat64, q.Step / 2, -q.Step / 2, math.SmallestNonzeroFloat64, math.NaN()}
		for range 10000 {
			vs = append(vs, (rng.Float64()*2.4-1.2)*m)
		}
		for _, v := range vs {
			if got, want := q.Encode(v), old(q, v); got != want {
				t.Fatalf("%+v: Encode(%v) = %d; clamped by math.Max and math.Min, %d", q, v, got, want)
			}
		}
	}
}

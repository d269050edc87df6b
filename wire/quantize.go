package wire

import "math"

// Signed quantises a signed quantity to Bits bits in steps of Step. Zero is
// exact: the middle code means 0 and one fewer than half the codes lie
// either side of it, so the largest magnitude is (2^(Bits-1) - 1) × Step
// and the lowest code is never used. Codes spread evenly over the range
// would put zero between two codes, and zero is what almost everything in a
// scene holds: an unrotated body would read as tilted and a resting one as
// drifting, and a settled world would never go quiet.
//
// The zero value is not usable; the package's quantisers are ready-made.
type Signed struct {
	Bits uint8   // 2..32
	Step float64 // the value of one code
}

// The engine's quantisers. Their steps and widths are part of the wire
// format and of the schema fingerprint a join compares.
var (
	// Position is a coordinate to the millimetre, up to ±2097.151 m.
	Position = Signed{Bits: 22, Step: 0.001}
	// Velocity is a linear velocity to the centimetre a second, up to
	// ±327.67 m/s.
	Velocity = Signed{Bits: 16, Step: 0.01}
	// AngularVelocity is to 0.0005 rad/s, up to ±262.1435 rad/s (a
	// body turning a quarter turn every tick at 128 Hz turns 100 rad/s).
	// It is that fine because a turning body's angle is sent as the
	// difference from where its angular velocity carries the angle a
	// client already holds (see replication's moving-body entry): at
	// 0.01 rad/s the velocity's rounding alone carried the angle three
	// of its steps astray each tick, and the difference cost bits in
	// every snapshot; at 0.0005 it stays within one. A velocity that holds
	// steady costs one bit there whatever its width.
	AngularVelocity = Signed{Bits: 20, Step: 0.0005}
	// Axis is a command axis, -1..1 in 127 steps either way.
	Axis = Signed{Bits: 8, Step: 1.0 / 127}
	// Angle is a rotation, wrapped to [-π, π]. At 18 bits a step is
	// 2.4e-5 rad, so the far end of a 60 m body moves at most 0.72 mm
	// (half a step at 60 m): a quarter-degree error there would lift it by
	// ten centimetres and drop whatever stands on it through the floor.
	Angle = AngleQ{Signed{Bits: 18, Step: math.Pi / (1<<17 - 1)}}
)

// half returns the middle code, which stands for 0.
func (q Signed) half() uint64 { return 1 << (q.Bits - 1) }

// Max returns the largest magnitude the quantiser can say.
func (q Signed) Max() float64 { return float64(q.half()-1) * q.Step }

// Encode returns the code for v: the nearest step, clamped to ±Max. NaN
// encodes as zero and ±Inf as ±Max, so nothing non-finite reaches the wire.
func (q Signed) Encode(v float64) uint64 {
	if v != v { // NaN
		return q.half()
	}
	n := math.Round(v / q.Step)
	// Clamped by comparison, not math.Max and math.Min: those are calls
	// that also order zeros' signs and NaNs, of which n (not NaN; a zero
	// of either sign converts to 0) needs neither, and a round encodes
	// five of these a moving body.
	if lim := float64(q.half() - 1); n > lim {
		n = lim
	} else if n < -lim {
		n = -lim
	}
	return uint64(int64(q.half()) + int64(n))
}

// Decode returns the value of code c. The unused lowest code, and any code
// wider than Bits, read as the nearest valid one.
func (q Signed) Decode(c uint64) float64 {
	if c == 0 {
		c = 1
	}
	if lim := q.half()<<1 - 1; c > lim {
		c = lim
	}
	n := int64(c) - int64(q.half())
	if n == 0 {
		return 0
	}
	return float64(n) * q.Step
}

// Quantize returns the value the wire carries for v.
func (q Signed) Quantize(v float64) float64 { return q.Decode(q.Encode(v)) }

// Write writes v's code.
func (q Signed) Write(w *Writer, v float64) { w.WriteBits(q.Encode(v), int(q.Bits)) }

// Read reads a code and returns its value.
func (q Signed) Read(r *Reader) float64 {
	c, _ := r.ReadBits(int(q.Bits))
	return q.Decode(c)
}

// AngleQ quantises an angle: it wraps it to [-π, π] first, so a body that
// has spun many turns costs no more bits than one that has not.
type AngleQ struct{ Signed }

// Wrap returns a in [-π, π]; a non-finite angle is 0.
func Wrap(a float64) float64 {
	if math.IsNaN(a) || math.IsInf(a, 0) {
		return 0
	}
	if a >= -math.Pi && a <= math.Pi {
		return a
	}
	a = math.Remainder(a, 2*math.Pi)
	return a
}

// Encode returns the code for the wrapped angle.
func (q AngleQ) Encode(a float64) uint64 { return q.Signed.Encode(Wrap(a)) }

// Quantize returns the angle the wire carries for a, in [-π, π].
func (q AngleQ) Quantize(a float64) float64 { return q.Decode(q.Encode(a)) }

// Write writes a's code.
func (q AngleQ) Write(w *Writer, a float64) { w.WriteBits(q.Encode(a), int(q.Bits)) }

// MaxScale bounds a scale at both ends of a session. A scale travels whole
// (a raw float32, when it is not 1) because it is rare and never simulated;
// a raw float is bounded by nothing on the way, so both ends hold it to
// this. Held at the reader alone, a body authored at 2000 would be 2000 on
// the server and 1024 on every client, for good.
const MaxScale = 1024.0

// NetScale returns the scale both ends agree on for s: a non-finite scale
// is 1, one beyond ±MaxScale is ±MaxScale, and every scale is rounded to the
// float32 it travels as.
func NetScale(s float64) float64 {
	switch {
	case math.IsNaN(s) || math.IsInf(s, 0):
		return 1
	case s > MaxScale:
		return MaxScale
	case s < -MaxScale:
		return -MaxScale
	}
	return float64(float32(s))
}

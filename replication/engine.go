package replication

import (
	"errors"
	"fmt"
	"math"

	"vkm/internal/entity"
	"vkm/wire"
)

// The wire type indices of the engine's component types. They come before
// the project's types, whose indices in Schema.Types are kept as they are:
// project type i is wire type EngineTypes+i. The order is part of the wire
// format and of the fingerprint.
const (
	TypeTransform           = iota // entity.Transform
	TypeRigidbody                  // entity.Rigidbody
	TypeCharacterController        // entity.CharacterController (Grounded only)
	TypeNetSpawn                   // entity.NetSpawn

	// EngineTypes is how many engine types there are: the wire index of
	// the first project type.
	EngineTypes
)

// engineField describes one field of an engine type for Describe and the
// fingerprint: its name, what carries it, its width (the largest, for a
// variable-length field), its quantum or bound, and a note on the form.
type engineField struct {
	name  string
	codec string
	bits  int
	step  float64
	note  string
}

// engineType is one engine component type as the schema lists it.
type engineType struct {
	name   string
	fields []engineField
}

// signedField describes a field carried by a wire.Signed quantiser.
func signedField(name, codec string, q wire.Signed, unit string) engineField {
	return engineField{name: name, codec: codec, bits: int(q.Bits), step: q.Step,
		note: fmt.Sprintf("%d bits, step %.6g %s, zero exact, ±%.6g", q.Bits, q.Step, unit, q.Max())}
}

// engineTypes lists the engine types in wire order. Every width and step
// comes from the quantiser or limit that carries the field, so a change to
// one changes the fingerprint.
var engineTypes = [EngineTypes]engineType{
	TypeTransform: {"Transform", []engineField{
		signedField("x", "position", wire.Position, "m"),
		signedField("y", "position", wire.Position, "m"),
		{"turned", "flag", 1, 0, "1 bit; 0: the angle is 0 and the scale 1, and neither follows"},
		signedField("angle", "angle", wire.Angle.Signed, "rad, wrapped to ±π; when turned"),
		{"scale", "scale", 1 + 32, wire.MaxScale, fmt.Sprintf("when turned: 1 bit (not 1), then a float32; bounded to ±%g", wire.MaxScale)},
	}},
	TypeRigidbody: {"Rigidbody", []engineField{
		{"moving", "flag", 1, 0, "1 bit, not in a moving-body entry (where it is 1); 0: every velocity is zero and none follows"},
		signedField("vx", "velocity", wire.Velocity, "m/s"),
		signedField("vy", "velocity", wire.Velocity, "m/s"),
		{"spinning", "flag", 1, 0, "1 bit, when moving; 0: the angular velocity is zero and does not follow"},
		signedField("angularVelocity", "angular velocity", wire.AngularVelocity, "rad/s"),
		{"awake", "bool", 1, 0, "1 bit, when not moving; a moving body is awake"},
	}},
	TypeCharacterController: {"CharacterController", []engineField{
		{"grounded", "bool", 1, 0, "1 bit"},
	}},
	TypeNetSpawn: {"NetSpawn", []engineField{
		{"prefab", "path", spawnLenBits + 8*MaxSpawnPath, MaxSpawnPath,
			fmt.Sprintf("8-bit length, then at most %d bytes", MaxSpawnPath)},
		{"pose", "float64 ×4", 4 * 64, wire.MaxScale, "x, y, angle, scale: whole, never quantised"},
		{"slots", "slot list", spawnCountBits + MaxSpawnSlots*(32+slotBits), MaxSpawnSlots,
			fmt.Sprintf("6-bit count, then at most %d × (uid 32, slot %d)", MaxSpawnSlots, slotBits)},
	}},
}

// writeTransform writes t as the wire carries it. Positions are clamped to
// wire.Position's range (±Inf to its ends, NaN to 0), the angle is wrapped
// (non-finite to 0) and the scale is bounded by wire.NetScale. A body
// upright and unscaled (every character of a side-view game, a crate
// lying square) says so in one bit "turned" = 0 instead of the angle's
// eighteen and the scale's one.
func writeTransform(w *wire.Writer, t entity.Transform) {
	writeTransformCodes(w, wire.Position.Encode(t.X), wire.Position.Encode(t.Y), wire.Angle.Encode(t.Angle), wire.NetScale(t.Scale))
}

// writeTransformCodes is writeTransform with the position's and angle's
// codes already worked out, and the scale already through wire.NetScale.
func writeTransformCodes(w *wire.Writer, x, y, angle uint64, s float64) {
	// The fields in order, gathered into as few writes as fit a word: x,
	// y and the turned bit (45 bits), then the angle and the scale's bit.
	pb := uint(wire.Position.Bits)
	v := x | y<<pb
	turned := angle != angleZero || s != 1
	if !turned {
		w.WriteBits(v, int(2*pb+1)) // turned: 0
		return
	}
	w.WriteBits(v|1<<(2*pb), int(2*pb+1))
	ab := uint(wire.Angle.Bits)
	if s == 1 {
		w.WriteBits(angle, int(ab+1)) // scaled: 0
		return
	}
	w.WriteBits(angle|1<<ab, int(ab+1))
	w.WriteFloat32(float32(s))
}

// angleZero is the code of an angle of zero.
var angleZero = wire.Angle.Encode(0)

// readTransform reads a Transform, applying wire.NetScale to its scale as
// every reader must.
func readTransform(r *wire.Reader) (entity.Transform, error) {
	var t entity.Transform
	var err error
	if t.X, err = readSigned(r, wire.Position, "transform x"); err != nil {
		return t, err
	}
	if t.Y, err = readSigned(r, wire.Position, "transform y"); err != nil {
		return t, err
	}
	t.Scale = 1
	turned, err := r.ReadBool()
	if err != nil || !turned {
		return t, err
	}
	if t.Angle, err = readSigned(r, wire.Angle.Signed, "transform angle"); err != nil {
		return t, err
	}
	scaled, err := r.ReadBool()
	if err != nil {
		return t, err
	}
	if scaled {
		f, err := r.ReadFloat32()
		if err != nil {
			return t, err
		}
		t.Scale = wire.NetScale(float64(f))
	}
	if t.Angle == 0 && t.Scale == 1 {
		return t, errors.New("replication: transform: turned, at angle 0 and scale 1")
	}
	return t, nil
}

// writeRigidbody writes b as the wire carries it: velocities clamped to
// their quantisers' ranges (±Inf to the ends, NaN to 0). A body whose
// velocities all quantise to zero (exact, since zero is a code) is one bit
// "moving" = 0 and its awake bit: a resting body that is said at all costs
// two bits, not 50. A moving body that does not spin (a side-view
// character never does) says so in one bit instead of sixteen, and a
// moving body is awake, so it has no awake bit: a physics step leaves no
// body moving and asleep, and one a script left so is sent awake.
func writeRigidbody(w *wire.Writer, b entity.Rigidbody) {
	writeRigidbodyCodes(w, wire.Velocity.Encode(b.VX), wire.Velocity.Encode(b.VY), wire.AngularVelocity.Encode(b.AngularVelocity), b.Awake)
}

// writeRigidbodyCodes is writeRigidbody with the velocity's and spin's
// codes already worked out.
func writeRigidbodyCodes(w *wire.Writer, vx, vy, av uint64, awake bool) {
	moving := vx != velocityZero || vy != velocityZero || av != angularZero
	if moving {
		// The moving bit, the velocity and the spin's bit, then the spin:
		// 34 bits and 20, gathered into one write.
		vb := uint(wire.Velocity.Bits)
		v, n := 1|vx<<1|vy<<(1+vb), 1+2*vb+1
		if av != angularZero {
			v |= 1<<(n-1) | av<<n
			n += uint(wire.AngularVelocity.Bits)
		}
		w.WriteBits(v, int(n))
		return
	}
	w.WriteBool(false)
	w.WriteBool(awake)
}

// The codes of a zero velocity.
var (
	velocityZero = wire.Velocity.Encode(0)
	angularZero  = wire.AngularVelocity.Encode(0)
)

// readRigidbody reads a Rigidbody.
func readRigidbody(r *wire.Reader) (entity.Rigidbody, error) {
	moving, err := r.ReadBool()
	if err != nil {
		return entity.Rigidbody{}, err
	}
	return readRigidbodyRest(r, moving)
}

// readRigidbodyRest reads a Rigidbody after its moving bit: what follows
// it, or, in a moving-body entry, which has none, the whole component.
func readRigidbodyRest(r *wire.Reader, moving bool) (entity.Rigidbody, error) {
	var b entity.Rigidbody
	var err error
	if moving {
		if b.VX, err = readSigned(r, wire.Velocity, "velocity x"); err != nil {
			return b, err
		}
		if b.VY, err = readSigned(r, wire.Velocity, "velocity y"); err != nil {
			return b, err
		}
		spinning, err := r.ReadBool()
		if err != nil {
			return b, err
		}
		if spinning {
			if b.AngularVelocity, err = readSigned(r, wire.AngularVelocity, "angular velocity"); err != nil {
				return b, err
			}
			if b.AngularVelocity == 0 {
				return b, errors.New("replication: rigidbody: spinning at zero")
			}
		}
		if b.VX == 0 && b.VY == 0 && b.AngularVelocity == 0 {
			return b, errors.New("replication: rigidbody: moving at zero velocity")
		}
		b.Awake = true
		return b, nil
	}
	b.Awake, err = r.ReadBool()
	return b, err
}

// readSigned reads one code of q. The lowest code is never written (zero
// is the middle code, with one fewer code below it than a full half), so
// meeting it means the bytes were not written by a vkm server.
func readSigned(r *wire.Reader, q wire.Signed, what string) (float64, error) {
	c, err := r.ReadBits(int(q.Bits))
	if err != nil {
		return 0, err
	}
	if c == 0 {
		return 0, fmt.Errorf("replication: %s: unused code 0", what)
	}
	return q.Decode(c), nil
}

// code returns the wire code of v under c. Quantize is the value of this
// code, so a writer and every reader hold the same value.
func (c Codec) code(v float64) uint64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	switch c.Kind {
	case Bool:
		if v != 0 {
			return 1
		}
		return 0
	case Int:
		return uint64(clamp(math.Round(v), c.Min, c.Max) - c.Min)
	case Fixed:
		lo, hi := c.codeRange()
		return uint64(clamp(math.Round(v/c.Step), lo, hi) - lo)
	case Float32:
		return uint64(math.Float32bits(float32(clamp(v, -math.MaxFloat32, math.MaxFloat32))))
	}
	return 0
}

// value returns the value code stands for under c, or ok false for a code
// no writer produces: past the range, or a non-finite float32.
func (c Codec) value(code uint64) (v float64, ok bool) {
	switch c.Kind {
	case Bool:
		return float64(code), code <= 1
	case Int:
		if float64(code) > c.Max-c.Min {
			return 0, false
		}
		return positiveZero(c.Min + float64(code)), true
	case Fixed:
		lo, hi := c.codeRange()
		if float64(code) > hi-lo {
			return 0, false
		}
		// The multiplier is an exact integer, so this is the very product
		// Quantize forms.
		return positiveZero((lo + float64(code)) * c.Step), true
	case Float32:
		f := float64(math.Float32frombits(uint32(code)))
		return f, !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

// writeValues writes a project component's fields through their codecs.
// Missing trailing fields are written as zero, as Quantize takes them.
func writeValues(w *wire.Writer, t *Type, v entity.Values) {
	for i, f := range t.Fields {
		var x float64
		if i < len(v) {
			x = v[i]
		}
		w.WriteBits(f.Codec.code(x), f.Codec.Bits)
	}
}

// readValues reads a project component's fields, appending them to dst.
func readValues(r *wire.Reader, t *Type, dst []float64) ([]float64, error) {
	for _, f := range t.Fields {
		c, err := r.ReadBits(f.Codec.Bits)
		if err != nil {
			return dst, err
		}
		v, ok := f.Codec.value(c)
		if !ok {
			return dst, fmt.Errorf("replication: %s.%s: code %d is not one a %s codec writes", t.Name, f.Name, c, f.Codec.Kind)
		}
		dst = append(dst, v)
	}
	return dst, nil
}

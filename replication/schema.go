// Package replication decides what travels and carries it: the schema of
// replicated component types (the engine's, then the project's) with their
// field codecs and the fingerprint two ends compare at join; a send round
// encoded once per tick; each connection's baseline of what it has
// confirmed; snapshots written against that baseline within a byte budget,
// and read back on the client. It implements DESIGN.md's replication rows
// (the wire identity of entities, spawning, presence deltas,
// confirmed-not-sent, quantisation, the budget and silence). See doc.go for
// the snapshot layout.
package replication

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/bits"
)

// CodecKind names how a field's value is carried on the wire. Its String is
// the name as scripts write it ("fixed"), the line comment below.
type CodecKind uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=CodecKind -linecomment

// The codec kinds. The zero CodecKind is deliberately none of them, so a
// Field whose codec was never set is refused by Schema.Add rather than
// silently carried as a bool.
const (
	// Bool is one bit: 0 or 1.
	Bool CodecKind = iota + 1 // bool
	// Int is an integer in [Min, Max].
	Int // int
	// Fixed is a multiple of Step in [Min, Max].
	Fixed // fixed
	// Float32 is an IEEE-754 single.
	Float32 // float32
)

// maxCodecBits bounds a field's width so every code fits a 32-bit write.
const maxCodecBits = 32

// maxExactInt is the largest magnitude a float64 holds exactly; Int bounds
// beyond it could not be carried in entity.Values.
const maxExactInt = 1 << 53

// Codec says how one field is quantised and how many bits its code takes.
// Build one with BoolCodec, IntCodec, FixedCodec or Float32Codec; the zero
// value is no codec at all. A Codec is a plain value, safe to copy and to
// share between goroutines.
type Codec struct {
	Kind CodecKind
	// Min and Max bound Int and Fixed values (inclusive). Step is the
	// quantum of a Fixed field. All three are zero for Bool and Float32.
	Min, Max, Step float64
	// Bits is the width of the field's code on the wire.
	Bits int
}

// BoolCodec returns the codec of a true/false field, carried as one bit.
func BoolCodec() Codec { return Codec{Kind: Bool, Bits: 1} }

// Float32Codec returns the codec of a field carried as a 32-bit float: no
// range to declare, at the price of 32 bits and float32 precision.
func Float32Codec() Codec { return Codec{Kind: Float32, Bits: 32} }

// IntCodec returns the codec of an integer field in [min, max]. Its width is
// the bits needed for max-min+1 codes; a range needing more than 32 bits, or
// with a bound beyond 2^53, is refused.
func IntCodec(min, max int64) (Codec, error) {
	if min > max {
		return Codec{}, fmt.Errorf("replication: int codec: min %d is above max %d", min, max)
	}
	if min < -maxExactInt || max > maxExactInt {
		return Codec{}, fmt.Errorf("replication: int codec: bounds beyond ±2^53 are not exact")
	}
	// Two's complement subtraction gives the true unsigned span for max >= min.
	n := bits.Len64(uint64(max) - uint64(min))
	if n > maxCodecBits {
		return Codec{}, fmt.Errorf("replication: int codec: range %d..%d needs %d bits, more than %d", min, max, n, maxCodecBits)
	}
	return Codec{Kind: Int, Min: float64(min), Max: float64(max), Bits: n}, nil
}

// FixedCodec returns the codec of a number quantised to multiples of step in
// [min, max]. Codes are whole multiples of step, not offsets from min, so
// zero is carried exactly whenever min <= 0 <= max: a resting velocity stays
// at rest on every end. Non-finite arguments, step <= 0, a range holding no
// multiple of step and a range needing more than 32 bits are refused.
func FixedCodec(min, max, step float64) (Codec, error) {
	for _, v := range [...]float64{min, max, step} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Codec{}, errors.New("replication: fixed codec: bounds and step must be finite")
		}
	}
	if step <= 0 {
		return Codec{}, fmt.Errorf("replication: fixed codec: step %g must be above zero", step)
	}
	if min > max {
		return Codec{}, fmt.Errorf("replication: fixed codec: min %g is above max %g", min, max)
	}
	c := Codec{Kind: Fixed, Min: min, Max: max, Step: step}
	lo, hi := c.codeRange()
	if lo > hi {
		return Codec{}, fmt.Errorf("replication: fixed codec: no multiple of %g lies in %g..%g", step, min, max)
	}
	if hi-lo >= 1<<maxCodecBits {
		return Codec{}, fmt.Errorf("replication: fixed codec: %g..%g by %g needs more than %d bits", min, max, step, maxCodecBits)
	}
	c.Bits = bits.Len64(uint64(hi - lo))
	return c, nil
}

// codeRange returns the first and last multiple of Step (as multipliers)
// inside [Min, Max]. A quotient within 1e-9 of a whole number counts as that
// number, so 0.3/0.1 = 2.9999999999999996 still admits the bound 0.3.
func (c Codec) codeRange() (lo, hi float64) {
	snap := func(q float64, round func(float64) float64) float64 {
		if r := math.Round(q); math.Abs(q-r) < 1e-9 {
			return r
		}
		return round(q)
	}
	return snap(c.Min/c.Step, math.Ceil), snap(c.Max/c.Step, math.Floor)
}

// Quantize returns the value the wire would carry for v, so a writer can
// hold exactly what every other end will read: clamped to the range and
// rounded to a whole number (Int) or a multiple of Step (Fixed); 0 or 1 for
// Bool (any non-zero is true); float64(float32(v)) for Float32. A non-finite
// v is taken as 0 first (then clamped, so the result is always a valid code).
// Int and Fixed give +0, never -0, for a zero code.
func (c Codec) Quantize(v float64) float64 {
	x, _ := c.value(c.code(v))
	return x
}

// positiveZero turns -0 (what rounding -0.2 gives) into the +0 a decoded
// code of zero is, so the writer holds the very bits every reader holds.
func positiveZero(v float64) float64 {
	if v == 0 {
		return 0
	}
	return v
}

func clamp(v, lo, hi float64) float64 {
	return math.Max(lo, math.Min(hi, v))
}

// validate reports whether c is exactly what one of the constructors builds,
// so a hand-made Codec with an inconsistent width is refused.
func (c Codec) validate() error {
	var want Codec
	var err error
	switch c.Kind {
	case Bool:
		want = BoolCodec()
	case Float32:
		want = Float32Codec()
	case Int:
		want, err = IntCodec(int64(c.Min), int64(c.Max))
	case Fixed:
		want, err = FixedCodec(c.Min, c.Max, c.Step)
	default:
		return errors.New("replication: field has no codec")
	}
	if err != nil {
		return err
	}
	if want != c {
		return fmt.Errorf("replication: inconsistent %s codec %+v", c.Kind, c)
	}
	return nil
}

// Field is one replicated value of a component type.
type Field struct {
	Name  string
	Codec Codec
}

// Type is one replicated component type: its name, its fields in wire order,
// and where it was registered (a script's "file:line", for messages).
type Type struct {
	Name   string
	Fields []Field
	Where  string
}

// Schema is the ordered list of a project's replicated component types. A
// type's index is its identity on the wire, so the order matters. The zero
// value is an empty schema ready to use; it is not safe for concurrent
// mutation.
type Schema struct {
	Types []Type
	// Messages are the project's messages, in declared order (see
	// AddMessage): not in snapshots, but in the fingerprint.
	Messages []Type
}

// Add appends t to the schema. It refuses an empty or duplicate type name, an
// empty or duplicate field name, and a field without a valid codec, saying
// where t was registered.
func (s *Schema) Add(t Type) error {
	at := ""
	if t.Where != "" {
		at = " (" + t.Where + ")"
	}
	if t.Name == "" {
		return fmt.Errorf("replication: component type with no name%s", at)
	}
	if i := s.Index(t.Name); i >= 0 {
		return fmt.Errorf("replication: component type %q registered twice%s; first at %s", t.Name, at, s.Types[i].Where)
	}
	seen := make(map[string]bool, len(t.Fields))
	for _, f := range t.Fields {
		if f.Name == "" {
			return fmt.Errorf("replication: %s: field with no name%s", t.Name, at)
		}
		if seen[f.Name] {
			return fmt.Errorf("replication: %s: field %q declared twice%s", t.Name, f.Name, at)
		}
		seen[f.Name] = true
		if err := f.Codec.validate(); err != nil {
			return fmt.Errorf("replication: %s.%s%s: %w", t.Name, f.Name, at, err)
		}
	}
	t.Fields = append([]Field(nil), t.Fields...)
	s.Types = append(s.Types, t)
	return nil
}

// Index returns the index of the type named name, or -1 if there is none.
func (s *Schema) Index(name string) int {
	for i := range s.Types {
		if s.Types[i].Name == name {
			return i
		}
	}
	return -1
}

// Field returns the index of field name within type typ, or -1 if typ is out
// of range or has no such field.
func (s *Schema) Field(typ int, name string) int {
	if typ < 0 || typ >= len(s.Types) {
		return -1
	}
	for i, f := range s.Types[typ].Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// Fingerprint returns an order-sensitive FNV-1a 64 hash of everything that
// decides what a snapshot's bits mean: the engine types (names, fields, what
// carries each, the quantisers' steps and widths, the spawn limits) and then
// the project's types in order (names, field names, codec kinds, bounds,
// steps and widths). It is what two ends compare at join: equal schemas
// give equal fingerprints, and a reordered type or field, or a changed codec
// or quantiser, gives another (registration lines do not count). The
// project's messages follow, when it declares any, so a peer with other
// messages has another fingerprint.
func (s *Schema) Fingerprint() uint64 {
	h := fnv.New64a()
	s.writeFingerprintInput(h)
	return h.Sum64()
}

// writeFingerprintInput writes the bytes Fingerprint hashes to w: every
// count, length, width and codec kind as a uint64 and every step or bound
// as its float64 bits, all little endian, each string as its length then
// its bytes; the engine types first, then the project's.
func (s *Schema) writeFingerprintInput(w io.Writer) {
	var b [8]byte
	num := func(u uint64) {
		for i := range b {
			b[i] = byte(u >> (8 * i))
		}
		w.Write(b[:])
	}
	str := func(v string) {
		num(uint64(len(v)))
		io.WriteString(w, v)
	}
	num(uint64(len(engineTypes)))
	for _, t := range engineTypes {
		str(t.name)
		num(uint64(len(t.fields)))
		for _, f := range t.fields {
			str(f.name)
			str(f.codec)
			num(uint64(f.bits))
			num(math.Float64bits(f.step))
		}
	}
	num(uint64(len(s.Types)))
	for _, t := range s.Types {
		str(t.Name)
		num(uint64(len(t.Fields)))
		for _, f := range t.Fields {
			str(f.Name)
			num(uint64(f.Codec.Kind))
			num(math.Float64bits(f.Codec.Min))
			num(math.Float64bits(f.Codec.Max))
			num(math.Float64bits(f.Codec.Step))
			num(uint64(f.Codec.Bits))
		}
	}
	if len(s.Messages) == 0 {
		// A schema without messages hashes as it did before messages
		// were schema.
		return
	}
	str("messages")
	num(uint64(len(s.Messages)))
	for _, t := range s.Messages {
		str(t.Name)
		num(uint64(len(t.Fields)))
		for _, f := range t.Fields {
			str(f.Name)
			num(uint64(f.Codec.Kind))
			num(math.Float64bits(f.Codec.Min))
			num(math.Float64bits(f.Codec.Max))
			num(math.Float64bits(f.Codec.Step))
			num(uint64(f.Codec.Bits))
		}
	}
}

// WireTypes returns how many component types a snapshot of this schema
// knows: the engine's, then the project's.
func (s *Schema) WireTypes() int { return EngineTypes + len(s.Types) }

// TypeName returns the name of wire type typ ("Transform", "Health"), or ""
// when there is none.
func (s *Schema) TypeName(typ int) string {
	switch {
	case typ >= 0 && typ < EngineTypes:
		return engineTypes[typ].name
	case typ >= EngineTypes && typ < s.WireTypes():
		return s.Types[typ-EngineTypes].Name
	}
	return ""
}

// WireIndex returns the wire type of the type named name (engine or
// project), or -1.
func (s *Schema) WireIndex(name string) int {
	for i, t := range engineTypes {
		if t.name == name {
			return i
		}
	}
	if i := s.Index(name); i >= 0 {
		return EngineTypes + i
	}
	return -1
}

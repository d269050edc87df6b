package conformance

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
)

// FNV-1a 64 ("Fingerprints").
const (
	fnvOffset = 0xcbf29ce484222325
	fnvPrime  = 0x100000001b3
)

// FNV1a64 hashes b: per byte, xor, then multiply.
func FNV1a64(b []byte) uint64 {
	h := uint64(fnvOffset)
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// SentAsOne maps a hash of 0 to 1, as the action and world fingerprints
// (and the cookie) are sent.
func SentAsOne(h uint64) uint64 {
	if h == 0 {
		return 1
	}
	return h
}

// Codec kinds of a project field ("Fingerprints", schema).
const (
	CodecBool    = 1
	CodecInt     = 2
	CodecFixed   = 3
	CodecFloat32 = 4
)

// EngineField is one field of an engine type in the schema's input: its
// name, carrier, width and step (or bound).
type EngineField struct {
	Name, Carrier string
	Width         uint64
	Step          float64
}

// ProjectField is one field of a project type: name, codec kind, min, max,
// step and width.
type ProjectField struct {
	Name           string
	Kind           uint64
	Min, Max, Step float64
	Width          uint64
}

// SchemaType is a type of either part; Engine or Project fields are set.
type SchemaType struct {
	Name    string
	Engine  []EngineField
	Project []ProjectField
}

// Schema is the parsed input of a schema fingerprint.
type Schema struct {
	Engine, Project []SchemaType
	EngineLen       int // bytes of the engine part, the type count included
}

// byteReader reads the schema input's 8-byte numbers and strings; the
// first error sticks.
type byteReader struct {
	b   []byte
	err error
}

func (r *byteReader) u64() uint64 {
	if r.err != nil || len(r.b) < 8 {
		r.err = errors.New("conformance: schema input cut short")
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *byteReader) f64() float64 { return math.Float64frombits(r.u64()) }

func (r *byteReader) str() string {
	n := r.u64()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errors.New("conformance: schema string past the end")
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// count reads a count, bounding it by what the input could hold so a bad
// input cannot ask for a huge allocation.
func (r *byteReader) count() int {
	n := r.u64()
	if r.err == nil && n > uint64(len(r.b)) {
		r.err = fmt.Errorf("conformance: schema count %d past the input", n)
	}
	if r.err != nil {
		return 0
	}
	return int(n)
}

// ParseSchema reads a schema fingerprint's input as "Fingerprints" lays it
// out: the engine types (count, then per type its name, field count and
// per field its name, carrier, width and step), then the project's (count,
// then per type its name, field count and per field its name, codec kind,
// min, max, step and width). Every byte must be used.
func ParseSchema(b []byte) (Schema, error) {
	r := &byteReader{b: b}
	var s Schema
	for range r.count() {
		t := SchemaType{Name: r.str()}
		for range r.count() {
			t.Engine = append(t.Engine, EngineField{Name: r.str(), Carrier: r.str(), Width: r.u64(), Step: r.f64()})
		}
		s.Engine = append(s.Engine, t)
	}
	s.EngineLen = len(b) - len(r.b)
	for range r.count() {
		t := SchemaType{Name: r.str()}
		for range r.count() {
			t.Project = append(t.Project, ProjectField{Name: r.str(), Kind: r.u64(), Min: r.f64(), Max: r.f64(), Step: r.f64(), Width: r.u64()})
		}
		s.Project = append(s.Project, t)
	}
	if r.err != nil {
		return Schema{}, r.err
	}
	if len(r.b) != 0 {
		return Schema{}, fmt.Errorf("conformance: %d bytes after the schema", len(r.b))
	}
	return s, nil
}

// Check applies the rules "Fingerprints" and "Snapshots" give a project
// field: bool and float32 have min = max = step = 0 and widths 1 and 32,
// an int's step is 0 and its width the bits max − min needs, a fixed
// field's width the bits hi − lo needs.
func (f ProjectField) Check() error {
	want, err := f.width()
	if err != nil {
		return err
	}
	if f.Width != want {
		return fmt.Errorf("conformance: field %s width %d, the codec gives %d", f.Name, f.Width, want)
	}
	return nil
}

func (f ProjectField) width() (uint64, error) {
	switch f.Kind {
	case CodecBool, CodecFloat32:
		if f.Min != 0 || f.Max != 0 || f.Step != 0 {
			return 0, fmt.Errorf("conformance: field %s of kind %d with a range or step", f.Name, f.Kind)
		}
		if f.Kind == CodecBool {
			return 1, nil
		}
		return 32, nil
	case CodecInt:
		if f.Step != 0 || f.Max < f.Min {
			return 0, fmt.Errorf("conformance: int field %s with step %v or max under min", f.Name, f.Step)
		}
		return uint64(bitsFor(uint64(f.Max - f.Min))), nil
	case CodecFixed:
		lo, hi, err := FixedRange(f.Min, f.Max, f.Step)
		if err != nil {
			return 0, err
		}
		return uint64(bitsFor(uint64(hi - lo))), nil
	}
	return 0, fmt.Errorf("conformance: field %s of codec kind %d", f.Name, f.Kind)
}

// FixedRange is a fixed codec's lo = ceil(min / step) and hi =
// floor(max / step), a quotient within 1e-9 of a whole number counting as
// that number.
func FixedRange(min, max, step float64) (lo, hi int64, err error) {
	if !(step > 0) || max < min {
		return 0, 0, fmt.Errorf("conformance: fixed codec %v..%v by %v", min, max, step)
	}
	snap := func(q float64) (float64, bool) {
		if r := math.Round(q); math.Abs(q-r) <= 1e-9 {
			return r, true
		}
		return q, false
	}
	ql, okl := snap(min / step)
	qh, okh := snap(max / step)
	if !okl {
		ql = math.Ceil(ql)
	}
	if !okh {
		qh = math.Floor(qh)
	}
	return int64(ql), int64(qh), nil
}

// Actions is the parsed input of an action fingerprint.
type Actions struct {
	Axes, Buttons []string
}

// ParseActions reads an action fingerprint's input: each name "axis:NAME"
// or "button:NAME" preceded by its length as a u32, the axes first.
func ParseActions(b []byte) (Actions, error) {
	var a Actions
	for len(b) > 0 {
		if len(b) < 4 {
			return Actions{}, errors.New("conformance: action length cut short")
		}
		n := binary.LittleEndian.Uint32(b)
		b = b[4:]
		if uint64(n) > uint64(len(b)) {
			return Actions{}, errors.New("conformance: action name past the end")
		}
		name := string(b[:n])
		b = b[n:]
		switch {
		case strings.HasPrefix(name, "axis:") && len(a.Buttons) == 0:
			a.Axes = append(a.Axes, strings.TrimPrefix(name, "axis:"))
		case strings.HasPrefix(name, "button:"):
			a.Buttons = append(a.Buttons, strings.TrimPrefix(name, "button:"))
		default:
			return Actions{}, fmt.Errorf("conformance: action %q out of place", name)
		}
	}
	return a, nil
}

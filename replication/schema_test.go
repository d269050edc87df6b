package replication

import (
	"math"
	"strings"
	"testing"
)

func mustInt(t testing.TB, min, max int64) Codec {
	t.Helper()
	c, err := IntCodec(min, max)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustFixed(t testing.TB, min, max, step float64) Codec {
	t.Helper()
	c, err := FixedCodec(min, max, step)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestQuantize(t *testing.T) {
	inf := math.Inf(1)
	nan := math.NaN()
	step := 0.7 // a variable, so -71*step is rounded at run time like Quantize's
	tests := []struct {
		name  string
		codec Codec
		in    float64
		want  float64
	}{
		{"bool true", BoolCodec(), 0.2, 1},
		{"bool false", BoolCodec(), 0, 0},
		{"bool negative", BoolCodec(), -3, 1},
		{"bool nan", BoolCodec(), nan, 0},
		{"int round", mustInt(t, 0, 200), 41.5, 42},
		{"int round down", mustInt(t, 0, 200), 41.4, 41},
		{"int clamp high", mustInt(t, 0, 200), 900, 200},
		{"int clamp low", mustInt(t, -5, 5), -9, -5},
		{"int inf", mustInt(t, -5, 5), inf, 0},
		{"int nan outside range", mustInt(t, 5, 10), nan, 5},
		{"fixed step", mustFixed(t, 0, 100, 0.5), 10.26, 10.5},
		{"fixed clamp", mustFixed(t, 0, 100, 0.5), 101, 100},
		{"fixed signed zero exact", mustFixed(t, -50.3, 50.3, 0.7), 0.1, 0},
		{"fixed signed zero exact negative", mustFixed(t, -50.3, 50.3, 0.7), -0.2, 0},
		{"fixed signed clamp", mustFixed(t, -50.3, 50.3, 0.7), -99, -71 * step},
		{"fixed nan", mustFixed(t, -1, 1, 0.25), nan, 0},
		{"float32", Float32Codec(), 0.1, float64(float32(0.1))},
		{"float32 huge", Float32Codec(), 1e300, math.MaxFloat32},
		{"float32 inf", Float32Codec(), -inf, 0},
	}
	for _, tt := range tests {
		if got := tt.codec.Quantize(tt.in); got != tt.want {
			t.Errorf("%s: Quantize(%v) = %v, want %v", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestFixedZeroExactAcrossSignedRanges(t *testing.T) {
	for _, r := range [][3]float64{{-1, 1, 0.3}, {-10.05, 7, 0.1}, {-3.3, 3.3, 1.0 / 3}, {-200, 200, 0.01}} {
		c := mustFixed(t, r[0], r[1], r[2])
		for _, v := range []float64{0, 1e-9, -1e-9, r[2] / 3, -r[2] / 3} {
			if got := c.Quantize(v); got != 0 || math.Signbit(got) {
				t.Errorf("%v: Quantize(%v) = %v, want exactly 0", r, v, got)
			}
		}
	}
}

func TestIntNegativeZero(t *testing.T) {
	if got := mustInt(t, -5, 5).Quantize(-0.3); got != 0 || math.Signbit(got) {
		t.Errorf("Quantize(-0.3) = %v (sign bit %v), want +0", got, math.Signbit(got))
	}
}

func TestCodecWidths(t *testing.T) {
	tests := []struct {
		codec Codec
		bits  int
	}{
		{BoolCodec(), 1},
		{Float32Codec(), 32},
		{mustInt(t, 0, 200), 8},
		{mustInt(t, 0, 255), 8},
		{mustInt(t, 0, 256), 9},
		{mustInt(t, 7, 7), 0},
		{mustInt(t, -(1 << 31), 1<<31-1), 32},
		{mustFixed(t, 0, 100, 0.5), 8},
		{mustFixed(t, -1, 1, 0.001), 11},
		{mustFixed(t, 0.3, 0.9, 0.1), 3},
	}
	for _, tt := range tests {
		if tt.codec.Bits != tt.bits {
			t.Errorf("%+v: Bits = %d, want %d", tt.codec, tt.codec.Bits, tt.bits)
		}
	}
}

func TestCodecErrors(t *testing.T) {
	inf := math.Inf(1)
	bad := []struct {
		name string
		err  func() error
	}{
		{"int min above max", func() error { _, err := IntCodec(5, 4); return err }},
		{"int 33 bits", func() error { _, err := IntCodec(0, 1<<32); return err }},
		{"int beyond 2^53", func() error { _, err := IntCodec(1<<60, 1<<60+1); return err }},
		{"fixed step zero", func() error { _, err := FixedCodec(0, 1, 0); return err }},
		{"fixed step negative", func() error { _, err := FixedCodec(0, 1, -1); return err }},
		{"fixed inf", func() error { _, err := FixedCodec(-inf, 1, 0.1); return err }},
		{"fixed nan step", func() error { _, err := FixedCodec(0, 1, math.NaN()); return err }},
		{"fixed min above max", func() error { _, err := FixedCodec(2, 1, 0.1); return err }},
		{"fixed too wide", func() error { _, err := FixedCodec(-1e6, 1e6, 1e-6); return err }},
		{"fixed no multiple", func() error { _, err := FixedCodec(0.1, 0.2, 1); return err }},
	}
	for _, b := range bad {
		err := b.err()
		if err == nil {
			t.Errorf("%s: no error", b.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "replication: ") {
			t.Errorf("%s: error %q lacks the package prefix", b.name, err)
		}
	}
}

func health(t testing.TB) Type {
	return Type{Name: "Health", Where: "main.lua:3", Fields: []Field{
		{"hp", mustInt(t, 0, 200)},
		{"armor", mustFixed(t, 0, 100, 0.5)},
	}}
}

func TestSchemaAddAndLookup(t *testing.T) {
	var s Schema
	if err := s.Add(health(t)); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(Type{Name: "Ammo", Fields: []Field{{"count", mustInt(t, 0, 99)}}}); err != nil {
		t.Fatal(err)
	}
	if s.Index("Health") != 0 || s.Index("Ammo") != 1 || s.Index("Nope") != -1 {
		t.Errorf("Index wrong: %d %d %d", s.Index("Health"), s.Index("Ammo"), s.Index("Nope"))
	}
	if s.Field(0, "armor") != 1 || s.Field(0, "count") != -1 || s.Field(5, "hp") != -1 || s.Field(-1, "hp") != -1 {
		t.Error("Field lookup wrong")
	}
}

func TestSchemaAddRefuses(t *testing.T) {
	tests := []struct {
		name string
		typ  Type
		want string
	}{
		{"duplicate type", health(t), "registered twice"},
		{"empty type name", Type{}, "no name"},
		{"empty field name", Type{Name: "A", Fields: []Field{{"", BoolCodec()}}}, "no name"},
		{"duplicate field", Type{Name: "B", Where: "x.lua:9", Fields: []Field{{"a", BoolCodec()}, {"a", BoolCodec()}}}, "declared twice (x.lua:9)"},
		{"no codec", Type{Name: "C", Fields: []Field{{"a", Codec{}}}}, "no codec"},
		{"inconsistent codec", Type{Name: "D", Fields: []Field{{"a", Codec{Kind: Int, Max: 10, Bits: 2}}}}, "inconsistent"},
	}
	for _, tt := range tests {
		var s Schema
		if err := s.Add(health(t)); err != nil {
			t.Fatal(err)
		}
		err := s.Add(tt.typ)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "replication: ") {
			t.Errorf("%s: err = %v, want one containing %q", tt.name, err, tt.want)
		}
		if len(s.Types) != 1 {
			t.Errorf("%s: refused type was added", tt.name)
		}
	}
}

func TestFingerprint(t *testing.T) {
	build := func(types ...Type) *Schema {
		var s Schema
		for _, ty := range types {
			if err := s.Add(ty); err != nil {
				t.Fatal(err)
			}
		}
		return &s
	}
	ammo := Type{Name: "Ammo", Fields: []Field{{"count", mustInt(t, 0, 99)}}}
	base := build(health(t), ammo).Fingerprint()

	moved := health(t)
	moved.Where = "elsewhere.lua:77"
	if got := build(moved, ammo).Fingerprint(); got != base {
		t.Error("equal schemas (bar registration lines) differ")
	}
	if got := build(ammo, health(t)).Fingerprint(); got == base {
		t.Error("type order change kept the fingerprint")
	}
	swapped := health(t)
	swapped.Fields = []Field{swapped.Fields[1], swapped.Fields[0]}
	if got := build(swapped, ammo).Fingerprint(); got == base {
		t.Error("field order change kept the fingerprint")
	}
	step := health(t)
	step.Fields[1].Codec = mustFixed(t, 0, 100, 0.25)
	if got := build(step, ammo).Fingerprint(); got == base {
		t.Error("codec step change kept the fingerprint")
	}
	kind := health(t)
	kind.Fields[0].Codec = Float32Codec()
	if got := build(kind, ammo).Fingerprint(); got == base {
		t.Error("codec kind change kept the fingerprint")
	}
	rng := health(t)
	rng.Fields[0].Codec = mustInt(t, 0, 201)
	if got := build(rng, ammo).Fingerprint(); got == base {
		t.Error("codec range change kept the fingerprint")
	}
	if (&Schema{}).Fingerprint() == base {
		t.Error("empty schema matches")
	}
}

func TestCodecKindString(t *testing.T) {
	for k, want := range map[CodecKind]string{Bool: "bool", Int: "int", Fixed: "fixed", Float32: "float32", 0: "CodecKind(0)"} {
		if k.String() != want {
			t.Errorf("%d: %q, want %q", k, k.String(), want)
		}
	}
}

func TestSilenceString(t *testing.T) {
	for s, want := range map[Silence]string{Described: "described", StaticBody: "static", InInstance: "in-instance", 3: "Silence(3)"} {
		if s.String() != want {
			t.Errorf("%d: %q, want %q", s, s.String(), want)
		}
	}
}

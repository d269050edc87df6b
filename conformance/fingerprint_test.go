package conformance

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// fingerprintVector is one vector of a fingerprints file: its input and
// stated result.
type fingerprintVector struct {
	comment string
	input   []byte
	want    uint64
}

func fingerprintVectors(t testing.TB, path string) map[string]fingerprintVector {
	t.Helper()
	out := map[string]fingerprintVector{}
	for name, v := range vectorFile(t, path) {
		in, n := field(t, v, "input")
		_, fp := field(t, v, "fingerprint")
		if statedLen(t, n) != len(in.data) {
			t.Fatalf("%s: input of %d bytes, stated %s", name, len(in.data), n)
		}
		want, err := strconv.ParseUint(fp, 16, 64)
		if err != nil {
			t.Fatalf("%s: fingerprint %q", name, fp)
		}
		out[name] = fingerprintVector{strings.Join(v[0].comments, " "), in.data, want}
	}
	return out
}

func TestActionFingerprint(t *testing.T) {
	v := fingerprintVectors(t, actionsWorldFile)["actions"]
	if got := SentAsOne(FNV1a64(v.input)); got != v.want {
		t.Errorf("FNV-1a 64 of the input is %016x, the vector states %016x", got, v.want)
	}
	a, err := ParseActions(v.input)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(a.Axes, ",") != "x,y" || strings.Join(a.Buttons, ",") != "jump,fire" {
		t.Errorf("axes %v buttons %v; the vector says x, y and jump, fire", a.Axes, a.Buttons)
	}
}

// TestWorldFingerprint hashes the input and checks it is the comment's
// scene file with each CRLF read as LF.
func TestWorldFingerprint(t *testing.T) {
	v := fingerprintVectors(t, actionsWorldFile)["world"]
	if got := SentAsOne(FNV1a64(v.input)); got != v.want {
		t.Errorf("FNV-1a 64 of the input is %016x, the vector states %016x", got, v.want)
	}
	q := regexp.MustCompile(`"(?:[^"\\]|\\.)*"`).FindString(v.comment)
	file, err := strconv.Unquote(q)
	if err != nil {
		t.Fatalf("scene file in %q: %v", v.comment, err)
	}
	if !strings.Contains(file, "\r\n") {
		t.Fatal("the vector's scene file has no CRLF to read as LF")
	}
	if want := strings.ReplaceAll(file, "\r\n", "\n"); string(v.input) != want {
		t.Errorf("input %q is not the file with CRLF read as LF, %q", v.input, want)
	}
}

func TestSchemaFingerprints(t *testing.T) {
	vs := fingerprintVectors(t, schemaFile)
	if len(vs) != 2 {
		t.Errorf("%d schema vectors, 2 checked", len(vs))
	}
	var engine []byte
	for name, v := range vs {
		if got := FNV1a64(v.input); got != v.want {
			t.Errorf("%s: FNV-1a 64 of the input is %016x, the vector states %016x", name, got, v.want)
		}
		s, err := ParseSchema(v.input)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// "It is the same 778 bytes in every project".
		if s.EngineLen != 778 {
			t.Errorf("%s: the engine part is %d bytes, the doc says 778", name, s.EngineLen)
		}
		if engine != nil && !bytes.Equal(engine, v.input[:s.EngineLen]) {
			t.Errorf("%s: the engine part differs from the other vector's", name)
		}
		engine = v.input[:s.EngineLen]
		checkEngineSchema(t, name, s.Engine)
		for _, ty := range s.Project {
			for _, f := range ty.Project {
				if err := f.Check(); err != nil {
					t.Errorf("%s: %s: %v", name, ty.Name, err)
				}
			}
		}
	}
	if n := len(vs["engine-only"].input); n != 786 {
		t.Errorf("engine-only hashes %d bytes, the doc says 786", n)
	}
	checkTwoTypes(t, vs["two-types"].input)
}

// checkEngineSchema holds the engine part to the snapshot layout of
// "Snapshots": the types in the mask's order, and the fields' widths and
// steps those of the components' codecs.
func checkEngineSchema(t *testing.T, name string, types []SchemaType) {
	t.Helper()
	var names []string
	for _, ty := range types {
		names = append(names, ty.Name)
	}
	if got := strings.Join(names, ","); got != strings.Join(engineNames[:], ",") {
		t.Errorf("%s: engine types %s; the mask's order is %v", name, got, engineNames)
		return
	}
	want := map[string]struct {
		width uint64
		step  float64
	}{
		"Transform.x": {22, PositionCodec.step}, "Transform.y": {22, PositionCodec.step},
		"Transform.turned": {1, 0}, "Transform.angle": {18, AngleCodec.step},
		"Rigidbody.moving": {1, 0}, "Rigidbody.vx": {16, VelocityCodec.step}, "Rigidbody.vy": {16, VelocityCodec.step},
		"Rigidbody.spinning": {1, 0}, "Rigidbody.angularVelocity": {20, SpinCodec.step}, "Rigidbody.awake": {1, 0},
		"CharacterController.grounded": {1, 0},
	}
	seen := 0
	for _, ty := range types {
		for _, f := range ty.Engine {
			w, ok := want[ty.Name+"."+f.Name]
			if !ok {
				continue
			}
			seen++
			if f.Width != w.width || f.Step != w.step {
				t.Errorf("%s: %s.%s is width %d step %v; the snapshot layout gives %d and %v", name, ty.Name, f.Name, f.Width, f.Step, w.width, w.step)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%s: %d of the layout's %d engine fields are in the schema", name, seen, len(want))
	}
	checkEngineBounds(t, name, types)
}

// checkEngineBounds: the fields whose "step (or bound)" is a bound carry
// the snapshot layout's: scale ±1024 (wire.MaxScale) in a bit and a
// float32, a prefab path of at most 128 bytes after an 8-bit length, a
// pose of four float64s bounded by the scale's 1024, at most 32 slots of
// 32 + 24 bits after a 6-bit count.
func checkEngineBounds(t *testing.T, name string, types []SchemaType) {
	t.Helper()
	want := map[string][2]float64{
		"Transform.scale": {1 + 32, MaxScale},
		"NetSpawn.prefab": {8 + 8*maxSpawnLen, maxSpawnLen},
		"NetSpawn.pose":   {4 * 64, MaxScale},
		"NetSpawn.slots":  {6 + maxSpawnIDs*(32+24), maxSpawnIDs},
	}
	for _, ty := range types {
		for _, f := range ty.Engine {
			if w, ok := want[ty.Name+"."+f.Name]; ok {
				delete(want, ty.Name+"."+f.Name)
				if float64(f.Width) != w[0] || f.Step != w[1] {
					t.Errorf("%s: %s.%s is width %d bound %v; the layout gives %v and %v", name, ty.Name, f.Name, f.Width, f.Step, w[0], w[1])
				}
			}
		}
	}
	for k := range want {
		t.Errorf("%s: no engine field %s", name, k)
	}
}

// checkTwoTypes compares the two-types vector with its comment: Health
// {hp: int 0..100} and Coin {speed: fixed -10..10 by 0.5, taken: bool,
// glow: float32}, the widths the codecs give (7, 6, 1, 32).
func checkTwoTypes(t *testing.T, input []byte) {
	t.Helper()
	s, err := ParseSchema(input)
	if err != nil {
		t.Fatal(err)
	}
	type f = ProjectField
	want := []SchemaType{
		{Name: "Health", Project: []f{{"hp", CodecInt, 0, 100, 0, 7}}},
		{Name: "Coin", Project: []f{{"speed", CodecFixed, -10, 10, 0.5, 6}, {"taken", CodecBool, 0, 0, 0, 1}, {"glow", CodecFloat32, 0, 0, 0, 32}}},
	}
	if len(s.Project) != len(want) {
		t.Fatalf("project types %v, want %v", s.Project, want)
	}
	for i := range want {
		if s.Project[i].Name != want[i].Name || len(s.Project[i].Project) != len(want[i].Project) {
			t.Errorf("type %d is %+v, want %+v", i, s.Project[i], want[i])
			continue
		}
		for j, g := range s.Project[i].Project {
			if g != want[i].Project[j] {
				t.Errorf("%s field %d is %+v, want %+v", want[i].Name, j, g, want[i].Project[j])
			}
		}
	}
}

func TestFixedRange(t *testing.T) {
	// The doc's example: min −0.3 step 0.1 gives lo −3, max 0.7 gives hi 7.
	if lo, hi, _ := FixedRange(-0.3, 0.7, 0.1); lo != -3 || hi != 7 {
		t.Errorf("FixedRange(-0.3, 0.7, 0.1) = %d, %d; the doc says -3, 7", lo, hi)
	}
	if lo, hi, _ := FixedRange(-0.25, 0.25, 0.1); lo != -2 || hi != 2 {
		t.Errorf("FixedRange(-0.25, 0.25, 0.1) = %d, %d; ceil and floor give -2, 2", lo, hi)
	}
	if _, _, err := FixedRange(0, 1, 0); err == nil {
		t.Error("a zero step is accepted")
	}
}

func TestSchemaRefusals(t *testing.T) {
	v := fingerprintVectors(t, schemaFile)["two-types"].input
	for n := range len(v) {
		if _, err := ParseSchema(v[:n]); err == nil {
			t.Errorf("the %d-byte prefix parses", n)
			break
		}
	}
	if _, err := ParseSchema(append(bytes.Clone(v), 0)); err == nil {
		t.Error("a byte after the schema is accepted")
	}
	huge := bytes.Clone(v)
	huge[0] = 0xff
	if _, err := ParseSchema(huge); err == nil {
		t.Error("a type count past the input is accepted")
	}
}

func TestFNVKnown(t *testing.T) {
	// FNV-1a 64 of "" is the offset basis, of "a" 0xaf63dc4c8601ec8c (the
	// FNV reference's).
	if FNV1a64(nil) != fnvOffset || FNV1a64([]byte("a")) != 0xaf63dc4c8601ec8c {
		t.Error("FNV-1a 64 does not give the reference values")
	}
	if SentAsOne(0) != 1 || SentAsOne(5) != 5 {
		t.Error("SentAsOne")
	}
}

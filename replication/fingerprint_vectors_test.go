package replication

import (
	"bytes"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var updateFingerprints = flag.Bool("update", false, "rewrite testdata/fingerprints.txt from Schema.Fingerprint")

// fingerprintSchemas are the schemas of testdata/fingerprints.txt.
func fingerprintSchemas(t *testing.T) []struct {
	name, about string
	schema      *Schema
} {
	t.Helper()
	hp, err := IntCodec(0, 100)
	if err != nil {
		t.Fatal(err)
	}
	speed, err := FixedCodec(-10, 10, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	project := &Schema{}
	for _, ty := range []Type{
		{Name: "Health", Fields: []Field{{Name: "hp", Codec: hp}}},
		{Name: "Coin", Fields: []Field{
			{Name: "speed", Codec: speed},
			{Name: "taken", Codec: BoolCodec()},
			{Name: "glow", Codec: Float32Codec()},
		}},
	} {
		if err := project.Add(ty); err != nil {
			t.Fatal(err)
		}
	}
	return []struct {
		name, about string
		schema      *Schema
	}{
		{"engine-only", "A project that registers no component type: the engine's types alone, then a project type count of 0.", &Schema{}},
		{"two-types", "The engine's types, then Health {hp: int 0..100} and Coin {speed: fixed -10..10 by 0.5, taken: bool, glow: float32}.", project},
	}
}

// renderFingerprints writes the fingerprints file's text.
func renderFingerprints(t *testing.T) string {
	var s strings.Builder
	s.WriteString(`# vkm schema fingerprint test vectors (replication).
#
# A Hello's schema fingerprint is FNV-1a 64 (offset basis
# 0xcbf29ce484222325, prime 0x100000001b3) over the bytes below. Every
# number in them is 8 bytes little endian: counts, string lengths, widths
# and codec kinds as integers, steps and bounds as IEEE 754 float64 bits.
# A string is its length, then its bytes. First the engine's types
# (count, then per type: name, field count, per field: name, carrier name,
# width, step), the same bytes for every project; then the project's
# types in registration order (count, then per type: name, field count,
# per field: name, codec kind (1 bool, 2 int, 3 fixed, 4 float32), min,
# max, step, width). The fingerprint travels in the Hello little endian.
#
# Each vector is a "vector NAME" line, a comment, "input N bytes" and the
# bytes in hex, 16 a row, then "fingerprint" and the value in hex.
#
# Checked by TestFingerprintVectors; regenerate with
#   go test ./replication -run TestFingerprintVectors -update
# only when the schema's encoding changes on purpose.
`)
	for _, v := range fingerprintSchemas(t) {
		var in bytes.Buffer
		v.schema.writeFingerprintInput(&in)
		b := in.Bytes()
		fmt.Fprintf(&s, "\nvector %s\n# %s\ninput %d bytes\n", v.name, v.about, len(b))
		for i := 0; i < len(b); i += 16 {
			fmt.Fprintf(&s, "% x\n", b[i:min(i+16, len(b))])
		}
		fmt.Fprintf(&s, "fingerprint %016x\n", v.schema.Fingerprint())
	}
	return s.String()
}

func TestFingerprintVectors(t *testing.T) {
	path := filepath.Join("testdata", "fingerprints.txt")
	want := renderFingerprints(t)
	if *updateFingerprints {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is out of date with Schema.Fingerprint; if the encoding changed on purpose, run with -update", path)
	}
	// The file holds what an implementer checks: FNV-1a 64 of each
	// vector's input bytes, as read back from the hex, is its fingerprint.
	schemas := fingerprintSchemas(t)
	blocks := strings.Split(string(got), "\nvector ")[1:]
	if len(blocks) != len(schemas) {
		t.Fatalf("%d vectors in the file, want %d", len(blocks), len(schemas))
	}
	for i, block := range blocks {
		h := fnv.New64a()
		var fp uint64
		for _, line := range strings.Split(block, "\n")[1:] {
			switch {
			case line == "", strings.HasPrefix(line, "#"), strings.HasPrefix(line, "input "):
			case strings.HasPrefix(line, "fingerprint "):
				fp, err = strconv.ParseUint(strings.TrimPrefix(line, "fingerprint "), 16, 64)
				if err != nil {
					t.Fatal(err)
				}
			default:
				for _, f := range strings.Fields(line) {
					c, err := strconv.ParseUint(f, 16, 8)
					if err != nil {
						t.Fatalf("vector %s: %v", schemas[i].name, err)
					}
					h.Write([]byte{byte(c)})
				}
			}
		}
		if h.Sum64() != fp || fp != schemas[i].schema.Fingerprint() {
			t.Errorf("vector %s: FNV-1a of the input is %016x, the file says %016x, Fingerprint %016x",
				schemas[i].name, h.Sum64(), fp, schemas[i].schema.Fingerprint())
		}
	}
}

package handshake

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fingerprintVectors are testdata/fingerprints.txt's: the input bytes
// each fingerprint hashes (built here by hand, as the file's comment says)
// and the function that gives the fingerprint.
var fingerprintVectors = []struct {
	name, about string
	input       []byte
	fp          func() uint64
}{
	{"actions", `Actions of a project with axes "x", "y" and buttons "jump", "fire": each name is "axis:" or "button:" and the action's name, axes first, then buttons, each in the project's order; each preceded by its length as a u32.`,
		actionInput("axis:x", "axis:y", "button:jump", "button:fire"),
		func() uint64 { return ActionFingerprint([]string{"axis:x", "axis:y", "button:jump", "button:fire"}) }},
	{"world", `The entry scene file "gravity = [0, -9.8]\r\n[[entity]]\r\nname = \"floor\"\r\n" with Windows line endings: each CRLF is hashed as LF.`,
		[]byte("gravity = [0, -9.8]\n[[entity]]\nname = \"floor\"\n"),
		func() uint64 {
			return WorldFingerprint([]byte("gravity = [0, -9.8]\r\n[[entity]]\r\nname = \"floor\"\r\n"))
		}},
}

// actionInput lays out the bytes ActionFingerprint hashes.
func actionInput(names ...string) []byte {
	var b []byte
	for _, n := range names {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(n)))
		b = append(b, n...)
	}
	return b
}

func renderFingerprints() string {
	var s strings.Builder
	s.WriteString(`# vkm action and world fingerprint test vectors (transport/handshake).
#
# Both are FNV-1a 64 (offset basis 0xcbf29ce484222325, prime
# 0x100000001b3) over the input bytes shown, travelling little endian in a
# Hello. A result of 0 is sent as 1; no input (no actions, a generated
# world) is sent as 0, which is compared with nothing.
#
# Each vector is a "vector NAME" line, a comment, "input N bytes" and the
# bytes in hex, 16 a row, then "fingerprint" and the value in hex.
#
# Checked by TestFingerprintVectors; regenerate with
#   go test ./transport/handshake -run TestFingerprintVectors -update
`)
	for _, v := range fingerprintVectors {
		fmt.Fprintf(&s, "\nvector %s\n# %s\ninput %d bytes\n", v.name, v.about, len(v.input))
		for i := 0; i < len(v.input); i += 16 {
			fmt.Fprintf(&s, "% x\n", v.input[i:min(i+16, len(v.input))])
		}
		fmt.Fprintf(&s, "fingerprint %016x\n", v.fp())
	}
	return s.String()
}

func TestFingerprintVectors(t *testing.T) {
	path := filepath.Join("testdata", "fingerprints.txt")
	want := renderFingerprints()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is out of date with the fingerprints; if they changed on purpose, raise Version and run with -update", path)
	}
	for _, v := range fingerprintVectors {
		h := fnv.New64a()
		h.Write(v.input)
		if h.Sum64() != v.fp() {
			t.Errorf("vector %s: FNV-1a of the input is %016x, the fingerprint %016x", v.name, h.Sum64(), v.fp())
		}
	}
	// The hex in the file reads back as the input bytes.
	blocks := strings.Split(string(got), "\nvector ")[1:]
	for i, block := range blocks {
		var b []byte
		for _, line := range strings.Split(block, "\n")[1:] {
			if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "input ") || strings.HasPrefix(line, "fingerprint ") {
				continue
			}
			for _, f := range strings.Fields(line) {
				c, err := strconv.ParseUint(f, 16, 8)
				if err != nil {
					t.Fatal(err)
				}
				b = append(b, byte(c))
			}
		}
		if !bytes.Equal(b, fingerprintVectors[i].input) {
			t.Errorf("vector %s: the file's input bytes differ", fingerprintVectors[i].name)
		}
	}
}

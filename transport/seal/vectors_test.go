package seal

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/vectors.txt from the sealer")

// vectors are the sealed datagrams written to testdata/vectors.txt. Keys
// and counters are fixed; the headers are vkm Data headers (tag "vk",
// version 4, kind 6, token 0x0123456789abcdef).
var vectors = []struct {
	name, about string
	key         Key
	counter     uint64
	header      []byte
	payload     []byte
}{
	{"client-first", "A client's first datagram (counter 0) carrying 16 payload bytes.",
		seqKey(0x00), 0, dataHeader, []byte("0123456789abcdef")},
	{"server-keepalive", "A server's keep-alive (an empty payload) at counter 0x1234.",
		seqKey(0x80), 0x1234, dataHeader, nil},
}

// dataHeader is a Data datagram's 12-byte header as protocol version 11
// writes it (tag, version, kind, session token). Sealing treats it as
// opaque associated data; the version is the current one so that the
// vectors read as real datagrams.
var dataHeader = []byte{0x76, 0x6b, 0x0b, 0x06, 0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01}

// seqKey returns the key whose bytes are from, from+1, ... from+31.
func seqKey(from byte) Key {
	var k Key
	for i := range k {
		k[i] = from + byte(i)
	}
	return k
}

func sealVector(t *testing.T, i int) []byte {
	v := vectors[i]
	s, err := NewSender(&v.key, len(v.header))
	if err != nil {
		t.Fatal(err)
	}
	s.next = v.counter
	return s.Seal(nil, v.header, v.payload)
}

// hexRows writes b as hex, 16 bytes a row.
func hexRows(s *strings.Builder, b []byte) {
	for i := 0; i < len(b); i += 16 {
		fmt.Fprintf(s, "% x\n", b[i:min(i+16, len(b))])
	}
}

func renderVectors(t *testing.T) string {
	var s strings.Builder
	s.WriteString(`# vkm sealed datagram test vectors (transport/seal).
#
# A sealed datagram is the cleartext header, the counter (8 bytes, little
# endian), the payload encrypted with ChaCha20-Poly1305 (RFC 8439) under the
# direction's key and the nonce 00000000 ‖ counter (little endian), and the
# 16-byte tag; the header and counter are the associated data.
#
# Each vector is a "vector NAME" line, a comment, then fields: "key",
# "counter" (decimal), "header", "payload" and "sealed", the byte fields in
# hex on the lines after their name, 16 bytes a row.
#
# Checked by TestVectorsFile; regenerate with
#   go test ./transport/seal -run TestVectorsFile -update
# only when the format changes on purpose.
`)
	for i, v := range vectors {
		fmt.Fprintf(&s, "\nvector %s\n# %s\nkey\n", v.name, v.about)
		hexRows(&s, v.key[:])
		fmt.Fprintf(&s, "counter %d\nheader\n", v.counter)
		hexRows(&s, v.header)
		s.WriteString("payload\n")
		hexRows(&s, v.payload)
		sealed := sealVector(t, i)
		fmt.Fprintf(&s, "sealed (%d bytes)\n", len(sealed))
		hexRows(&s, sealed)
	}
	return s.String()
}

func TestVectorsFile(t *testing.T) {
	path := filepath.Join("testdata", "vectors.txt")
	want := renderVectors(t)
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
		t.Fatalf("%s is out of date with the sealer; if the format changed on purpose, run with -update", path)
	}
}

// parsedVector is one vector read back from the file.
type parsedVector struct {
	counter                      uint64
	key, header, payload, sealed []byte
}

// readVectors parses the file on its own terms, without the table above.
func readVectors(t *testing.T) []parsedVector {
	raw, err := os.ReadFile(filepath.Join("testdata", "vectors.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []parsedVector
	var field *[]byte
	for n, line := range strings.Split(string(raw), "\n") {
		where := fmt.Sprintf("vectors.txt:%d", n+1)
		switch f := strings.Fields(line); {
		case len(f) == 0 || strings.HasPrefix(line, "#"):
		case f[0] == "vector":
			out = append(out, parsedVector{})
			field = nil
		case len(out) == 0:
			t.Fatalf("%s: %q before the first vector", where, line)
		case f[0] == "counter":
			c, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			out[len(out)-1].counter = c
		case f[0] == "key" || f[0] == "header" || f[0] == "payload" || f[0] == "sealed":
			v := &out[len(out)-1]
			field = map[string]*[]byte{"key": &v.key, "header": &v.header, "payload": &v.payload, "sealed": &v.sealed}[f[0]]
		default:
			b, err := hex.DecodeString(strings.Join(f, ""))
			if err != nil || field == nil {
				t.Fatalf("%s: not a row of hex in a field: %q", where, line)
			}
			*field = append(*field, b...)
		}
	}
	return out
}

// Every vector in the file opens, under its key, to its header and payload,
// and reads at its counter.
func TestVectorsFileOpens(t *testing.T) {
	got := readVectors(t)
	if len(got) != len(vectors) {
		t.Fatalf("%d vectors in the file, want %d", len(got), len(vectors))
	}
	for i, v := range got {
		key := Key(v.key)
		r, err := NewReceiver(&key, len(v.header))
		if err != nil {
			t.Fatal(err)
		}
		h, p, err := r.Open(nil, v.sealed)
		if newest, _ := r.Newest(); err != nil || !bytes.Equal(h, v.header) || !bytes.Equal(p, v.payload) || newest != v.counter {
			t.Errorf("vector %s opens as %x / %x at %d, %v", vectors[i].name, h, p, newest, err)
		}
	}
}

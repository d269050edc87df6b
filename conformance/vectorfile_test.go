package conformance

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Paths of the vectors, relative to this module's folder.
const (
	transcriptFile   = "../transport/testdata/transcript.txt"
	handshakeFile    = "../transport/handshake/testdata/vectors.txt"
	tokenFile        = "../transport/token/testdata/vectors.txt"
	sealFile         = "../transport/seal/testdata/vectors.txt"
	actionsWorldFile = "../transport/handshake/testdata/fingerprints.txt"
	schemaFile       = "../replication/testdata/fingerprints.txt"
	protocolDoc      = "../docs/protocol.md"
)

// entry is one labelled item of a vector file: a line that is neither a
// comment nor bytes, the comment lines after it, and the bytes of the hex
// rows (16 a row) and "zeros N" rows after those.
type entry struct {
	label    string
	line     int
	comments []string
	data     []byte
	rows     int // hex and zeros rows
}

// readEntries reads the vector file at path into its entries; comments
// before the first entry are dropped.
func readEntries(t testing.TB, path string) []*entry {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read vectors: %v", err)
	}
	var out []*entry
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
		case strings.HasPrefix(line, "#"):
			if len(out) > 0 {
				out[len(out)-1].comments = append(out[len(out)-1].comments, strings.TrimSpace(line[1:]))
			}
		default:
			b, isData, err := parseRow(line)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
			if !isData {
				out = append(out, &entry{label: line, line: n})
				continue
			}
			if len(out) == 0 {
				t.Fatalf("%s:%d: bytes before any label", path, n)
			}
			out[len(out)-1].data = append(out[len(out)-1].data, b...)
			out[len(out)-1].rows++
		}
	}
	return out
}

// parseRow reads a hex row ("76 6b 08", every field two hex digits, at
// most 16) or a "zeros N" row; any other line is not data.
func parseRow(line string) ([]byte, bool, error) {
	f := strings.Fields(line)
	if len(f) == 2 && f[0] == "zeros" {
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 0 || n > 1<<16 {
			return nil, false, fmt.Errorf("bad zeros row %q", line)
		}
		return make([]byte, n), true, nil
	}
	out := make([]byte, 0, len(f))
	for _, x := range f {
		if len(x) != 2 {
			return nil, false, nil
		}
		b, err := hex.DecodeString(x)
		if err != nil {
			return nil, false, nil
		}
		out = append(out, b...)
	}
	if len(out) > 16 {
		return nil, false, fmt.Errorf("hex row of %d bytes, over 16", len(out))
	}
	return out, true, nil
}

// preamble is the comment lines at the top of a vector file, before its
// first entry, joined by spaces.
func preamble(t testing.TB, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read vectors: %v", err)
	}
	var lines []string
	for _, l := range strings.Split(string(raw), "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			break
		}
		lines = append(lines, strings.TrimSpace(strings.TrimPrefix(l, "#")))
	}
	return strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
}

// vectorFile groups entries by "vector NAME": each vector's entries, the
// "vector" line first.
func vectorFile(t testing.TB, path string) map[string][]*entry {
	t.Helper()
	out := map[string][]*entry{}
	var name string
	for _, e := range readEntries(t, path) {
		if n, ok := strings.CutPrefix(e.label, "vector "); ok {
			name = n
			if out[name] != nil {
				t.Fatalf("%s: vector %s twice", path, name)
			}
		}
		if name == "" {
			t.Fatalf("%s:%d: %q before any vector", path, e.line, e.label)
		}
		out[name] = append(out[name], e)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no vectors", path)
	}
	return out
}

// field finds the entry of a vector whose label is word or starts with
// word and a space, and returns it with the rest of its label.
func field(t testing.TB, v []*entry, word string) (*entry, string) {
	t.Helper()
	for _, e := range v {
		if e.label == word {
			return e, ""
		}
		if rest, ok := strings.CutPrefix(e.label, word+" "); ok {
			return e, rest
		}
	}
	t.Fatalf("vector %q has no %q", v[0].label, word)
	return nil, ""
}

// statedLen reads a "(N bytes)" or "N bytes" count out of a label.
func statedLen(t testing.TB, s string) int {
	t.Helper()
	f := strings.Fields(strings.Trim(s, "()"))
	if len(f) == 0 {
		t.Fatalf("no byte count in %q", s)
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		t.Fatalf("no byte count in %q", s)
	}
	return n
}

// mustHex decodes a hex string without spaces.
func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("hex %q: %v", s, err)
	}
	return b
}

func TestParseRow(t *testing.T) {
	for _, c := range []struct {
		in     string
		n      int
		isData bool
	}{
		{"76 6b 08", 3, true},
		{"zeros 1148", 1148, true},
		{"vector hello-first", 0, false},
		{"opened", 0, false},
		{"counter 0", 0, false},
		{"AQQAAAAAbWt2", 0, false},
		{"ab", 1, true},
	} {
		b, isData, err := parseRow(c.in)
		if err != nil || isData != c.isData || len(b) != c.n {
			t.Errorf("parseRow(%q) = %d bytes, data %v, %v; want %d, %v", c.in, len(b), isData, err, c.n, c.isData)
		}
	}
	if _, _, err := parseRow("00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10"); err == nil {
		t.Error("a 17-byte row was accepted")
	}
}

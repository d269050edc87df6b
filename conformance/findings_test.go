package conformance

import (
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// finding is a place where docs/protocol.md and a vector disagree, or
// where the doc does not say enough to decode a vector. The decoder
// follows the doc; a check that meets the disagreement calls known, which
// reports it and passes. Each finding quotes the doc's words: once the
// doc no longer has them (it was fixed), known fails so that the decoder
// is brought to the new text and the finding dropped, here and in
// FINDINGS.md. Once the disagreement is no longer seen (a vector changed),
// known fails too.
type finding struct {
	section string // the doc's section
	quote   string // the doc's words, whitespace as in a paragraph
	vector  string // what the vector shows
}

// findings lists every open finding by id; FINDINGS.md has the same ids,
// each under a heading "### `id`". None is open: those found so far were
// fixed in the doc or the vectors (FINDINGS.md lists them).
var findings = map[string]finding{}

var (
	docOnce sync.Once
	docText string
	docErr  error
)

// docWords is docs/protocol.md with every run of white space one space.
func docWords(t testing.TB) string {
	t.Helper()
	docOnce.Do(func() {
		var b []byte
		b, docErr = os.ReadFile(protocolDoc)
		docText = strings.Join(strings.Fields(string(b)), " ")
	})
	if docErr != nil {
		t.Fatalf("read the doc: %v", docErr)
	}
	return docText
}

// known reports finding id, seen when err is non-nil. It fails when the
// disagreement is no longer seen or the doc no longer has the quoted words.
func known(t *testing.T, id string, err error) {
	t.Helper()
	f, ok := findings[id]
	if !ok {
		t.Fatalf("no finding %q", id)
	}
	if !strings.Contains(docWords(t), strings.Join(strings.Fields(f.quote), " ")) {
		t.Errorf("finding %s: the doc no longer says %q (%s); bring the decoder to the new text and drop the finding", id, f.quote, f.section)
		return
	}
	if err == nil {
		t.Errorf("finding %s: the vector now agrees with the doc; drop the finding", id)
		return
	}
	t.Logf("FINDING %s (%s): the doc says %q; %s [decoder: %v]", id, f.section, f.quote, f.vector, err)
}

// TestFindingsListed keeps FINDINGS.md and the findings here the same:
// each finding has its heading there, and each heading is a finding here.
func TestFindingsListed(t *testing.T) {
	md, err := os.ReadFile("FINDINGS.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range findingHeading.FindAllStringSubmatch(string(md), -1) {
		if _, ok := findings[m[1]]; !ok {
			t.Errorf("FINDINGS.md lists %s, which is not an open finding here", m[1])
		}
	}
	for id, f := range findings {
		if !strings.Contains(string(md), "### `"+id+"`") {
			t.Errorf("FINDINGS.md does not list %s", id)
		}
		if !strings.Contains(docWords(t), strings.Join(strings.Fields(f.quote), " ")) {
			t.Errorf("finding %s: the doc no longer says %q", id, f.quote)
		}
	}
}

var findingHeading = regexp.MustCompile("(?m)^### `([^`]+)`")

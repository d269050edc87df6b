package conformance

import (
	"os"
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

// findings lists every open finding by id; FINDINGS.md has the same ids.
var findings = map[string]finding{
	"sealed-refuse-length": {
		section: "Joining > Messages > Sealed Refuse (kind 7)",
		quote:   "the encrypted Refuse body (reason, nonce and the rest, as above), the 16-byte tag; 46 bytes and the detail.",
		vector: "sealed-refuse-token-expired is 54 bytes with an empty detail: 12 header + 8 counter + 18 body " +
			"(the 30-byte Refuse less its header) + 16 tag. 46 is version 7's size (a 22-byte Refuse + 24).",
	},
	"transcript-client-tick": {
		section: "Command packets > How far ahead a client runs",
		quote:   "The client's ticks are its own count, started at the Welcome's server tick",
		vector: "transcript datagram 6 (client, 50 ms) carries a first command at client tick 5000, 10 ms after " +
			"datagram 4 welcomed the client at server tick 1000 (64 Hz): a clock started at 1000 and run at most " +
			"5 % fast reads 1000 or 1001. The doc's own command example repeats the 5000.",
	},
	"transcript-drawn-tick": {
		section: "Command packets",
		quote:   "The **drawn tick** is the server tick (whole, and the fraction as floor(fraction × 256)) the client was showing when it made the packet's newest command; 0 means none yet.",
		vector: "transcript datagram 6 (50 ms) has drawn tick 998 and 128/256, but the first snapshot reaches " +
			"the client in datagram 7 (60 ms): the client was showing no server tick yet, so 0.",
	},
	"transcript-schema-fingerprint": {
		section: "Snapshots (Entries) and Fingerprints",
		quote:   "then, only when the schema has project types, a bit saying whether project types follow",
		vector: "the transcript's snapshot can only be read knowing whether its schema has project types; it " +
			"decodes whole only with none, yet the transcript's Hellos carry the stand-in schema fingerprint " +
			"0x1122334455667788, not the engine-only vector's 0xb90e184b09a7db2c, so the schema is not " +
			"stated anywhere a reader can check it.",
	},
	"varint-example-order": {
		section: "Snapshots > Removals",
		quote:   "slot 60 generation 1 is `0111100 0 001 0`, written in that order.",
		vector: "read in the order printed, those bits are slot 30 generation 4; the transcript's snapshot " +
			"writes 60#1 (bits 35 to 46) as 0011110 0 100 0: the groups are in that order, but each group's " +
			"bits are printed most significant first while \"Conventions\" sends an n-bit value's bit 0 first.",
	},
	"seal-vector-version": {
		section: "The message header",
		quote:   "| 2 | 1 | protocol version: `08` |",
		vector: "both vectors of transport/seal/testdata/vectors.txt seal under the header 76 6b 07 06 ...: " +
			"version 7. Sealing does not read the version, so they open, but as datagrams of this protocol " +
			"a receiver drops them unread (\"anything else at another version is dropped unread\").",
	},
}

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

// TestFindingsListed keeps FINDINGS.md and the findings here the same.
func TestFindingsListed(t *testing.T) {
	md, err := os.ReadFile("FINDINGS.md")
	if err != nil {
		t.Fatal(err)
	}
	for id, f := range findings {
		if !strings.Contains(string(md), "`"+id+"`") {
			t.Errorf("FINDINGS.md does not list %s", id)
		}
		if !strings.Contains(docWords(t), strings.Join(strings.Fields(f.quote), " ")) {
			t.Errorf("finding %s: the doc no longer says %q", id, f.quote)
		}
	}
}

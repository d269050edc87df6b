package netmsg

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzDevNotice feeds the dev notice parser anything: it must not panic,
// and what it accepts is what Append writes for the sentence.
func FuzzDevNotice(f *testing.F) {
	f.Add(DevNotice{Sentence: "reload refused: scripts/coin.lua:3: unexpected symbol"}.Append(nil))
	f.Add([]byte{byte(KindDevNotice)})
	f.Add([]byte{byte(KindDevNotice), 'a', '\n', 'b'})
	f.Add([]byte{byte(KindDevNotice), 'a', ' ', ' ', 'b'})
	f.Add([]byte{byte(KindKicked), 'x'})
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := ParseDevNotice(b)
		mustParseError(t, err)
		if err == nil && !bytes.Equal(n.Append(nil), b) {
			t.Fatalf("parsed %q from % x, which encodes as % x", n.Sentence, b, n.Append(nil))
		}
	})
}

func TestDevNoticeRoundTrip(t *testing.T) {
	// A compiler's message over two lines travels as one.
	msg := DevNotice{Sentence: "reload refused: scripts/coin.lua:3:\n\tunexpected symbol near 'x'"}.Append(nil)
	got, err := ParseDevNotice(msg)
	if err != nil || got.Sentence != "reload refused: scripts/coin.lua:3: unexpected symbol near 'x'" {
		t.Fatalf("came back %q, %v", got.Sentence, err)
	}
	long := DevNotice{Sentence: strings.Repeat("é", MaxNotice)}.Append(nil)
	if len(long) > 1+MaxNotice {
		t.Fatalf("a long sentence encodes as %d bytes", len(long))
	}
	if _, err := ParseDevNotice(long); err != nil {
		t.Fatalf("a long sentence, cut: %v", err)
	}
	for name, bad := range map[string][]byte{
		"empty":      {byte(KindDevNotice)},
		"line break": {byte(KindDevNotice), 'a', '\n', 'b'},
		"two spaces": {byte(KindDevNotice), 'a', ' ', ' ', 'b'},
		"too long":   append([]byte{byte(KindDevNotice)}, strings.Repeat("x", MaxNotice+1)...),
		"other kind": {byte(KindKicked), 'x'},
	} {
		if _, err := ParseDevNotice(bad); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

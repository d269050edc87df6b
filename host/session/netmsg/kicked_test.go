package netmsg

import (
	"bytes"
	"testing"
)

// FuzzKicked feeds the kicked parser anything: it must not panic, and what
// it accepts is what Append writes for the sentence.
func FuzzKicked(f *testing.F) {
	f.Add(Kicked{Sentence: "You were kicked: spawn camping."}.Append(nil))
	f.Add(Kicked{}.Append(nil))
	f.Add([]byte{byte(KindKicked), ' '})
	f.Add([]byte{byte(KindNoReload), 'x'})
	f.Fuzz(func(t *testing.T, b []byte) {
		k, err := ParseKicked(b)
		mustParseError(t, err)
		if err == nil && !bytes.Equal(k.Append(nil), b) {
			t.Fatalf("parsed %q from % x, which encodes as % x", k.Sentence, b, k.Append(nil))
		}
	})
}

func TestKickedRoundTrip(t *testing.T) {
	for _, s := range []string{"", "You were kicked: spam."} {
		if got, err := ParseKicked(Kicked{Sentence: s}.Append(nil)); err != nil || got.Sentence != s {
			t.Errorf("%q came back %q, %v", s, got.Sentence, err)
		}
	}
	if _, err := ParseKicked([]byte{byte(KindKicked), 'a', '\n'}); err == nil {
		t.Error("a sentence with a line break parsed")
	}
}

package netmsg

import (
	"bytes"
	"testing"
)

// FuzzNoReload feeds the no-reload parser anything: it must not panic, it
// refuses exactly the messages of another kind, and what it accepts is
// what Append writes for the sentence.
func FuzzNoReload(f *testing.F) {
	f.Add(NoReload{Sentence: "Rejoin with --dev to follow a dev server's reloads."}.Append(nil))
	f.Add(NoReload{}.Append(nil))
	f.Add([]byte{})
	f.Add([]byte{byte(KindBundle), 'n', 'o'})
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := ParseNoReload(b)
		mustParseError(t, err)
		if (err != nil) != (KindOf(b) != KindNoReload) {
			t.Fatalf("% x: %v", b, err)
		}
		if err == nil && !bytes.Equal(n.Append(nil), b) {
			t.Fatalf("parsed %q from % x, which encodes as % x", n.Sentence, b, n.Append(nil))
		}
	})
}

func TestNoReloadRoundTrip(t *testing.T) {
	for _, s := range []string{"", "The server reloaded its scripts.", "ünïcode 🐉"} {
		got, err := ParseNoReload(NoReload{Sentence: s}.Append(nil))
		if err != nil || got.Sentence != s {
			t.Errorf("%q came back %q, %v", s, got.Sentence, err)
		}
	}
	if _, err := ParseNoReload(nil); err == nil {
		t.Error("an empty message read as a no-reload")
	}
}

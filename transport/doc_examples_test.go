package transport_test

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docExamples returns the hex of every code block in docs/protocol.md that
// follows a "<!-- check: NAME -->" line, by name, whitespace removed.
func docExamples(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	parts := strings.Split(string(b), "<!-- check: ")[1:]
	for _, p := range parts {
		name, rest, _ := strings.Cut(p, " -->")
		_, block, ok := strings.Cut(rest, "```\n")
		if !ok {
			t.Fatalf("example %s: no code block after it", name)
		}
		block, _, _ = strings.Cut(block, "```")
		out[name] = strings.Join(strings.Fields(block), "")
	}
	return out
}

// The hex examples in docs/protocol.md are what the code writes.
func TestDocExamples(t *testing.T) {
	want := map[string][]byte{
		"commands": transcriptCommands(),
		"snapshot": transcriptSnapshot()[1:], // the flags byte is said in the text
	}
	got := docExamples(t)
	for name, b := range want {
		ex, ok := got[name]
		if !ok {
			t.Errorf("docs/protocol.md has no example %q", name)
			continue
		}
		if ex != hex.EncodeToString(b) {
			t.Errorf("example %s in docs/protocol.md:\n%s\nthe code writes\n%x", name, ex, b)
		}
	}
	for name := range got {
		if want[name] == nil {
			t.Errorf("docs/protocol.md's example %q is checked by nothing here", name)
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayCommandLines: vkmd replay refuses what it cannot run with exit
// 2 and one line, and a file that is not a recording with exit 1 naming
// it.
func TestReplayCommandLines(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay"}, "no recording (usage: vkmd replay <file.vkmrec> [flags])"},
		{[]string{"replay", "--until", "3"}, "<file.vkmrec> comes first"},
		{[]string{"replay", "m.vkmrec", "--bogus"}, "-bogus"},
		{[]string{"replay", "m.vkmrec", "--until", "-1"}, "-until"},
	} {
		code, stdout, stderr := runMain(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q: want 2 and one line saying %q", tc.args, code, stderr, stdout, tc.want)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.vkmrec")
	os.WriteFile(bad, []byte("not a recording"), 0o644)
	code, _, stderr := runMain(t, "replay", bad)
	if code != 1 || !strings.Contains(stderr, bad) || !strings.Contains(stderr, "not a recording") {
		t.Errorf("a file that is not a recording: exit %d, %q", code, stderr)
	}
}

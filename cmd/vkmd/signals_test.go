package main

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestStatusLineIsOffUnlessAsked serves the arena briefly: without
// --status nothing is printed on stdout; with it, a status line a second
// (the wait is the duration the server is told to serve, not a sleep).
// With --log-format json every line on stderr is a JSON object, the
// "serving" record among them with its attributes.
func TestStatusLineIsOffUnlessAsked(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"../../projects/arena", "--port", strconv.Itoa(freePort(t)), "--duration", "200ms"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("without --status vkmd printed on stdout:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "level=INFO msg=serving") {
		t.Errorf("the default log is not text:\n%s", stderr.String())
	}

	stdout.Reset()
	stderr.Reset()
	args = []string{"../../projects/arena", "--port", strconv.Itoa(freePort(t)), "--duration", "2500ms", "--status", "--log-format", "json"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	t.Logf("stdout:\n%sstderr:\n%s", stdout.String(), stderr.String())
	if !regexp.MustCompile(`(?m)^tick \d+ players 0/4 `).MatchString(stdout.String()) {
		t.Errorf("with --status no status line was printed:\n%s", stdout.String())
	}
	serving := false
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("--log-format json wrote a line that is not JSON: %q: %v", line, err)
			continue
		}
		if rec["msg"] == "serving" && rec["project"] == "arena" && rec["tick_rate"] == float64(64) {
			serving = true
		}
	}
	if !serving {
		t.Errorf("no JSON record of msg serving with the project and tick rate:\n%s", stderr.String())
	}
}

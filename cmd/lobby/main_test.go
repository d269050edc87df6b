package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vkm/internal/cli"
)

func TestBadCommandLinesAreUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--fleet redis://HOST:PORT is required"},
		{[]string{"--fleet", "redis://127.0.0.1:1"}, "--key FILE is required"},
		{[]string{"--fleet", "redis://127.0.0.1:1", "--key", "k", "--token-life", "1s"}, "too short"},
		{[]string{"--fleet", "redis://127.0.0.1:1", "extra"}, `unexpected argument "extra"`},
		{[]string{"--fleet", "redis://127.0.0.1:1", "--key", "k"}, "say how callers prove who they are"},
		{[]string{"--fleet", "redis://127.0.0.1:1", "--key", "k", "--insecure", "--jwt-secret", "s"}, "give one or the other"},
		{[]string{"--fleet", "redis://127.0.0.1:1", "--key", "k", "--insecure", "--listen", ":8088"}, "only on a loopback --listen"},
		{[]string{"--fleet", "redis://127.0.0.1:1", "--key", "k", "--insecure", "--listen", "192.0.2.1:8088"}, "only on a loopback --listen"},
		{[]string{"--fleet", "redis://127.0.0.1:1", "--key", "k", "--auth-secret", "s", "--jwt-audience", "a"}, "--jwt-audience without --jwt-secret"},
		{[]string{"--fleet", "redis://127.0.0.1:1", "--key", "k", "--jwt-secret", "s", "--caller-rate", "0"}, "--caller-rate must be above 0"},
		{[]string{"--fleet", "redis://127.0.0.1:1", "--key", "k", "--jwt-secret", "s", "--addr-burst", "0"}, "--addr-burst at least 1"},
		{[]string{"--bogus"}, "-bogus"},
	} {
		var out, errs bytes.Buffer
		err := run(context.Background(), tc.args, &out, &errs)
		if _, ok := err.(cli.UsageError); !ok || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want a usage error saying %q", tc.args, err, tc.want)
		}
	}
}

// A secret file must hold a secret.
func TestSecretFiles(t *testing.T) {
	dir := t.TempDir()
	short, long := filepath.Join(dir, "short"), filepath.Join(dir, "long")
	os.WriteFile(short, []byte("  hunter2\n"), 0o600)
	os.WriteFile(long, []byte("\n"+strings.Repeat("k", 40)+"\n"), 0o600)
	if _, err := readSecret("--jwt-secret", short); err == nil || !strings.Contains(err.Error(), "7 bytes, too short") {
		t.Errorf("a 7-byte secret: %v", err)
	}
	if _, err := readSecret("--jwt-secret", filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "--jwt-secret") {
		t.Errorf("a missing file: %v", err)
	}
	if b, err := readSecret("--jwt-secret", long); err != nil || string(b) != strings.Repeat("k", 40) {
		t.Errorf("a 40-byte secret: %q, %v", b, err)
	}
}

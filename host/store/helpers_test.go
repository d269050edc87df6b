package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vkm/host/project"
)

// readTestdata reads a file of the project package's test project
// ("project/scenes/level.toml").
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "project", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantConfigError checks that err is a *project.ConfigError at file:line
// for key whose message contains each of frags.
func wantConfigError(t testing.TB, err error, file string, line int, key string, frags ...string) {
	t.Helper()
	var ce *project.ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("error = %v (%T), want a *project.ConfigError", err, err)
	}
	if ce.File != file || ce.Line != line || ce.Key != key {
		t.Errorf("error at %s:%d key %q, want %s:%d key %q\n\t%v", ce.File, ce.Line, ce.Key, file, line, key, err)
	}
	for _, f := range frags {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not contain %q", err, f)
		}
	}
}

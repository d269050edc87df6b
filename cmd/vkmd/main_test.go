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

func TestBadCommandLinesExitTwoBeforeLoading(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"../../projects/arena", "--conect", "10.0.0.4"}, "-conect"},
		{[]string{"../../projects/arena", "--host"}, "--host is not a vkmd flag"},
		{[]string{"../../projects/arena", "--host=0.0.0.0"}, "join it with `client PROJECT_DIR --connect"},
		{[]string{"--port", "9000", "../../projects/arena"}, "project directory comes first"},
		{[]string{"../../projects/arena", "extra"}, `unexpected argument "extra"`},
		{[]string{"../../projects/arena", "--sim", "awful"}, "--sim needs --sim-seed"},
		{[]string{"../../projects/arena", "--port", "70000"}, "not a UDP port"},
		// The project is never loaded: a directory that does not exist
		// still gets the usage error, not a load error.
		{[]string{"/nonexistent", "--bogus"}, "-bogus"},
	} {
		var stderr bytes.Buffer
		err := run(context.Background(), tc.args, &stderr, &stderr)
		if code := cli.ExitCode("x", err, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%v)", tc.args, code, err)
			continue
		}
		if !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: stderr %q does not say %q", tc.args, stderr.String(), tc.want)
		}
	}
}

// copyArena copies projects/arena into a temporary folder, applying edit
// to each file.
func copyArena(t *testing.T, edit func(name string, data []byte) []byte) string {
	t.Helper()
	dst := t.TempDir()
	src := "../../projects/arena"
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), edit(filepath.ToSlash(rel), data), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestProjectsVkmdCannotServeAreRefused(t *testing.T) {
	offline := copyArena(t, func(name string, data []byte) []byte {
		if name == "scripts/main.lua" {
			return bytes.Replace(data, []byte("function vkmSetupNetwork(net)"), []byte("function setupNetworkUnused(net)"), 1)
		}
		return data
	})
	tooFast := copyArena(t, func(name string, data []byte) []byte {
		if name == "project.toml" {
			return bytes.Replace(data, []byte("tickRate = 64"), []byte("tickRate = 200"), 1)
		}
		return data
	})
	for _, tc := range []struct {
		dir  string
		want string
	}{
		{offline, "has no vkmSetupNetwork"},
		{tooFast, "tickRate: 200 is above the limit of 128"},
	} {
		var stderr bytes.Buffer
		err := run(context.Background(), []string{tc.dir, "--port", "0"}, &stderr, &stderr)
		if code := cli.ExitCode("x", err, &stderr); code != 1 {
			t.Errorf("%s: exit %d, want 1 (%v)", tc.dir, code, err)
		}
		if !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("stderr %q does not say %q", stderr.String(), tc.want)
		}
	}
}

func TestSchemaPrintsWhatAJoinCompares(t *testing.T) {
	var out, stderr bytes.Buffer
	if err := run(context.Background(), []string{"../../projects/arena", "--schema"}, &out, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, want := range []string{"0 Transform (engine)", "4 Health (project, scripts/main.lua:", "hp  int 0..100  7 bits", "fingerprint "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--schema output lacks %q:\n%s", want, out.String())
		}
	}
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"vkm/internal/cli"
	"vkm/transport/handshake"
)

func TestBadCommandLinesExitTwoBeforeLoading(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"../../projects/arena", "--conect", "10.0.0.4"}, "-conect"},
		{[]string{"../../projects/arena", "--host"}, "--host is not a vkmd flag"},
		{[]string{"../../projects/arena", "--host=0.0.0.0"}, "join it with `client PROJECT_DIR --connect"},
		{nil, "the project directory comes first: usage: vkmd <project-dir> [flags]"},
		{[]string{"--port", "9000", "../../projects/arena"}, "project directory comes first"},
		{[]string{"../../projects/arena", "extra"}, `unexpected argument "extra"`},
		{[]string{"../../projects/arena", "--sim", "awful"}, `sim "awful" needs a sim seed`},
		{[]string{"../../projects/arena", "--sim", "dialup", "--sim-seed", "1"}, `unknown profile "dialup"`},
		{[]string{"../../projects/arena", "--sim-seed", "1"}, "without a sim profile"},
		{[]string{"../../projects/arena", "--port", "70000"}, "port 70000 is not a UDP port"},
		{[]string{"../../projects/arena", "--port", "-1"}, "port -1 is not a UDP port"},
		{[]string{"../../projects/arena", "--duration", "-1s"}, "duration -1s is negative"},
		{[]string{"../../projects/arena", "--drain", "-1s"}, "drain -1s is negative"},
		{[]string{"../../projects/arena", "--log-level", "loud"}, "--log-level"},
		{[]string{"/nonexistent", "--log-format", "xml"}, `--log-format "xml": text or json`},
		{[]string{"/nonexistent", "--healthz-stall", "0s"}, "--healthz-stall 0s: it must be above 0"},
		{[]string{"../../projects/arena", "--admin", "0.0.0.0:9100"}, "is not loopback"},
		{[]string{"../../projects/arena", "--admin-public"}, "admin-public without an admin address"},
		{[]string{"../../projects/arena", "--fleet", "redis://127.0.0.1:6379"}, "--fleet needs --key"},
		{[]string{"../../projects/arena", "--web", "0.0.0.0:8080"}, `web address "0.0.0.0:8080" is not loopback`},
		{[]string{"../../projects/arena", "--web", "8080"}, `web address "8080" is not host:port`},
		// The project is never loaded: a directory that does not exist
		// still gets the usage error, not a load error.
		{[]string{"/nonexistent", "--bogus"}, "-bogus"},
	} {
		code, stdout, stderr := runMain(t, tc.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", tc.args, code, stderr)
			continue
		}
		if !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("%v: stderr %q, stdout %q: want one line saying %q", tc.args, stderr, stdout, tc.want)
		}
	}
}

// runMain runs the program as main does and returns its exit code and
// what it printed.
func runMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, &out, &errOut)
	code = cli.ExitCode("vkmd", err, &errOut)
	return code, out.String(), errOut.String()
}

func TestHelpPrintsTheUsageAndExitsZero(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-help"}, {"../../projects/arena", "-h"}, {"../../projects/arena", "--port", "9000", "--help"}} {
		code, stdout, stderr := runMain(t, args...)
		if code != 0 || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q; want 0 and nothing", args, code, stderr)
		}
		if !strings.HasPrefix(stdout, "usage: vkmd <project-dir> [flags]\n") {
			t.Errorf("%v: the usage does not start with its synopsis:\n%s", args, stdout)
		}
		for _, want := range []string{"-port int", "-admin string", "-admin-public", "-drain duration", "-version", "-h, --help", "exit status:", "  2  the command line cannot be run",
			"-status\n", "-log-format string", "-healthz-stall duration",
			// Every command of its own, before the flags.
			"\ncommands:\n  vkmd check <project-dir>\n", "\n  vkmd new <name>\n", "\n  vkmd keygen > FILE\n", "\n  vkmd token <project-dir> ", "\n  vkmd replay <file.vkmrec> "} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%v: the usage does not say %q", args, want)
			}
		}
	}
}

func TestVersionNeedsNoProject(t *testing.T) {
	want := fmt.Sprintf("vkmd devel (protocol %d, %s)\n", handshake.Version, runtime.Version())
	for _, args := range [][]string{{"--version"}, {"-version"}, {"../../projects/arena", "--version"}, {"/nonexistent", "--version"}} {
		code, stdout, stderr := runMain(t, args...)
		if code != 0 || stdout != want || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0 and %q", args, code, stdout, stderr, want)
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

// keygen writes a key file; token mints from it a token for the arena;
// the command lines they cannot run exit 2, naming what is missing; a key
// and --insecure together, or public addresses without a key, are refused.
func TestKeygenAndToken(t *testing.T) {
	code, key, stderr := runMain(t, "keygen")
	if code != 0 || len(strings.TrimSpace(key)) != 44 || stderr != "" {
		t.Fatalf("keygen: exit %d, %q %q", code, key, stderr)
	}
	file := filepath.Join(t.TempDir(), "game.key")
	if err := os.WriteFile(file, []byte(key), 0o600); err != nil {
		t.Fatal(err)
	}
	code, tok, stderr := runMain(t, "token", "../../projects/arena", "--key", file, "--server", "127.0.0.1:27960", "--client-id", "4", "--name", "ada", "--expires", "10m")
	if code != 0 || len(strings.TrimSpace(tok)) != 516 {
		t.Fatalf("token: exit %d, %d characters, %s", code, len(strings.TrimSpace(tok)), stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"keygen", "extra"}, "takes no arguments"},
		{[]string{"token", "../../projects/arena", "--server", "127.0.0.1:1", "--client-id", "1"}, "--key FILE is required"},
		{[]string{"token", "../../projects/arena", "--key", file, "--client-id", "1"}, "--server ADDR is required"},
		{[]string{"token", "../../projects/arena", "--key", file, "--server", "127.0.0.1:1"}, "--client-id N is required"},
		{[]string{"../../projects/arena", "--key", file, "--insecure"}, "drop one of --key and --insecure"},
		{[]string{"../../projects/arena", "--public", "192.0.2.1:27960"}, "need a key"},
		{[]string{"../../projects/arena", "--key", file, "--public", "example.com:1"}, "is not IP:port"},
	} {
		code, _, stderr := runMain(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if code, _, stderr := runMain(t, "../../projects/arena", "--key", filepath.Join(t.TempDir(), "none")); code != 1 || !strings.Contains(stderr, "key file") {
		t.Errorf("a missing key file: exit %d, %q", code, stderr)
	}
}

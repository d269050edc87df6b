package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"vkm/host"
	"vkm/internal/cli"
	"vkm/transport/handshake"
)

func TestUsageErrorsExitTwoWithAReason(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "the project directory comes first: usage: client <project-dir> [flags]"},
		{[]string{"--headless", "../../projects/arena"}, "project directory comes first"},
		{[]string{"../../projects/arena", "--headles"}, "flag provided but not defined: -headles"},
		{[]string{"/nonexistent", "--headles"}, "flag provided but not defined: -headles"},
		{[]string{"../../projects/arena", "--headless", "--bot", "wander", "extra"}, `unexpected argument "extra"`},
		{[]string{"../../projects/arena", "--headless"}, "--bot wander"},
		{[]string{"../../projects/arena", "--headless", "--bot", "sleeper"}, `unknown bot "sleeper"`},
		{[]string{"/nonexistent", "--headless", "--bot", "sleeper"}, `unknown bot "sleeper"`},
		{[]string{"../../projects/arena", "--headless", "--bots", "-1"}, "-1 bot clients"},
		{[]string{"../../projects/arena", "--headless", "--bots", "2", "--bot", "sleeper"}, `unknown bot "sleeper"`},
		{[]string{"../../projects/arena", "--headless", "--bots", "2", "--lite"}, "--lite is for bot clients of a server"},
		{[]string{"../../projects/arena", "--headless", "--bot", "wander", "--duration", "-1s"}, "duration -1s is negative"},
		{[]string{"../../projects/arena", "--headless", "--bot", "wander", "--sim", "lan", "--sim-seed", "1"}, "needs a server to connect to"},
		{[]string{"../../projects/arena", "--headless", "--bot", "wander", "--connect", "10.0.0.4", "--sim", "dialup", "--sim-seed", "1"}, `unknown profile "dialup"`},
		{[]string{"../../projects/arena", "--headless", "--bot", "wander", "--connect", "10.0.0.4", "--sim", "lan"}, "needs a sim seed"},
		{[]string{"../../projects/arena", "--headless", "--bot", "wander", "--connect", "10.0.0.4:0"}, "port 0 is not a UDP port"},
		{[]string{"../../projects/arena", "--view", "8080"}, `view address "8080" is not host:port`},
	} {
		code, stdout, stderr := runMain(t, context.Background(), tc.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", tc.args, code, stderr)
			continue
		}
		if !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("%v: stderr %q, stdout %q: want one line saying %q", tc.args, stderr, stdout, tc.want)
		}
	}
}

// runMain runs the client as main does, until ctx ends at the latest, and
// returns its exit code and what it printed.
func runMain(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(ctx, args, &out, &errOut)
	code = cli.ExitCode("client", err, &errOut)
	return code, out.String(), errOut.String()
}

func TestHelpPrintsTheUsageAndExitsZero(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"../../projects/arena", "-h"}, {"../../projects/arena", "--headless", "--help"}} {
		code, stdout, stderr := runMain(t, context.Background(), args...)
		if code != 0 || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q; want 0 and nothing", args, code, stderr)
		}
		if !strings.HasPrefix(stdout, "usage: client <project-dir> [flags]\n") {
			t.Errorf("%v: the usage does not start with its synopsis:\n%s", args, stdout)
		}
		for _, want := range []string{"-connect string", "-version", "-h, --help", "exit status:"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%v: the usage does not say %q", args, want)
			}
		}
	}
}

func TestVersionNeedsNoProject(t *testing.T) {
	want := fmt.Sprintf("client devel (protocol %d, %s)\n", handshake.Version, runtime.Version())
	for _, args := range [][]string{{"--version"}, {"../../projects/arena", "--version"}, {"/nonexistent", "--headless", "--version"}} {
		code, stdout, stderr := runMain(t, context.Background(), args...)
		if code != 0 || stdout != want || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0 and %q", args, code, stdout, stderr, want)
		}
	}
}

func TestHeadlessBotWritesTheReport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	var stderr bytes.Buffer
	args := []string{"../../projects/arena", "--headless", "--bot", "wander", "--bot-seed", "1",
		"--duration", "250ms", "--report", out, "--log-level", "warn"}
	if err := run(context.Background(), args, &stderr, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep host.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Clients) != 1 {
		t.Fatalf("report has %d clients", len(rep.Clients))
	}
	c := rep.Clients[0]
	t.Logf("%+v", c)
	if c.State != "offline" || c.TickRate != 64 || c.Ticks == 0 || c.Errors != 0 || c.Events == nil {
		t.Fatalf("report %+v", c)
	}
	if stderr.Len() != 0 {
		t.Fatalf("--log-level warn still printed: %s", stderr.String())
	}
}

func TestBotsWriteOneEntryEach(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	var stderr bytes.Buffer
	args := []string{"../../projects/arena", "--headless", "--bots", "3", "--bot-seed", "5",
		"--duration", "100ms", "--report", out, "--log-level", "warn"}
	if err := run(context.Background(), args, &stderr, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep host.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Clients) != 3 {
		t.Fatalf("report has %d clients, want 3", len(rep.Clients))
	}
	for i, c := range rep.Clients {
		if c.State != "offline" || c.Errors != 0 {
			t.Errorf("client %d: %+v", i+1, c)
		}
	}
}

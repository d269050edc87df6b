package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"vkm/host"
	"vkm/host/project"
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
		{[]string{"../../projects/arena", "--view", "127.0.0.1:0", "--spectate"}, "--spectate watches a server's match"},
		{[]string{"../../projects/arena", "--view", "127.0.0.1:0", "--connect", "10.0.0.4", "--follow", "2"}, "--follow is a spectator's"},
		{[]string{"../../projects/arena", "--headless", "--connect", "10.0.0.4", "--spectate", "--bots", "2"}, "--spectate is one client's"},
		{[]string{"../../projects/arena", "--view", "127.0.0.1:0", "--connect", "10.0.0.4", "--spectate", "--follow", "x"}, `not a player number: "x"`},
		{[]string{"match.vkmrec"}, "a recording plays with --view ADDR:PORT"},
		{[]string{"../../projects/arena", "--headless", "--bots", "2", "--bot", "sleeper"}, `unknown bot "sleeper"`},
		{[]string{"../../projects/arena", "--headless", "--bots", "2", "--lite"}, "--lite is for bot clients of a server"},
		{[]string{"../../projects/arena", "--headless", "--bot", "wander", "--duration", "-1s"}, "duration -1s is negative"},
		{[]string{"../../projects/arena", "--headless", "--bot", "wander", "--sim", "lan", "--sim-seed", "1"}, "needs a server to connect to"},
		{[]string{"../../projects/arena", "--headless", "--bot", "wander", "--connect", "10.0.0.4", "--sim", "dialup", "--sim-seed", "1"}, `unknown profile "dialup"`},
		{[]string{"../../projects/arena", "--headless", "--bot", "wander", "--connect", "10.0.0.4", "--sim", "lan"}, "needs a sim seed"},
		{[]string{"../../projects/arena", "--headless", "--bot", "wander", "--connect", "10.0.0.4:0"}, "port 0 is not a UDP port"},
		{[]string{"../../projects/arena", "--view", "8080"}, `view address "8080" is not host:port`},
		{[]string{"../../projects/arena", "--headless", "--bots", "2", "--lobby", "http://127.0.0.1:8088", "--connect", "10.0.0.4"}, "--lobby names the server"},
		{[]string{"../../projects/arena", "--headless", "--bots", "2", "--lobby", "http://127.0.0.1:8088", "--web", "http://10.0.0.4:8080"}, "drop --connect, --web"},
		{[]string{"../../projects/arena", "--headless", "--bot", "wander", "--web", "udp://10.0.0.4:8080"}, "the scheme is not http"},
		{[]string{"../../projects/arena", "--headless", "--bot", "wander", "--lobby-jwt", "ann.jwt"}, "--lobby-jwt is the lobby's"},
		{[]string{"../../projects/arena", "--headless", "--bots", "2", "--lobby", "http://127.0.0.1:8088", "--lobby-jwt", "ann.jwt"}, "--lobby-jwt is one player's"},
		{[]string{"../../projects/arena", "--headless", "--bot", "wander", "--guests", "2"}, "--guests seats players on a connection to a server"},
		{[]string{"../../projects/arena", "--headless", "--bot", "wander", "--connect", "10.0.0.4", "--guests", "8"}, "8 guests: a connection seats 0 to 7"},
		{[]string{"../../projects/arena", "--headless", "--bots", "2", "--connect", "10.0.0.4", "--guests", "1"}, "--bots runs many clients"},
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
		for _, want := range []string{"-connect string", "-version", "-h, --help", "exit status:", "  1  a client failed", `"failed" lists`} {
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

// serveArena serves a copy of the arena, its project.toml edited, on a
// free loopback port until the test ends, and returns its address.
func serveArena(t *testing.T, edit func(toml string) string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../projects/arena")); err != nil {
		t.Fatal(err)
	}
	toml := filepath.Join(dir, "project.toml")
	data, err := os.ReadFile(toml)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(toml, []byte(edit(string(data))), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan netip.AddrPort, 1)
	done := make(chan error, 1)
	go func() {
		_, err := host.Serve(ctx, host.ServeConfig{Project: p, Addr: "127.0.0.1:0", Ready: func(a netip.AddrPort) { ready <- a }})
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	select {
	case a := <-ready:
		return a.String()
	case err := <-done:
		t.Fatalf("Serve ended before listening: %v", err)
	}
	return ""
}

// readReport reads the report the client wrote to file.
func readReport(t *testing.T, file string) host.Report {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rep host.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestARefusedClientExitsOne(t *testing.T) {
	addr := serveArena(t, func(toml string) string { return strings.Replace(toml, "tickRate = 64", "tickRate = 32", 1) })
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := runMain(t, context.Background(), "../../projects/arena", "--connect", addr, "--headless", "--bot", "idle",
		"--duration", "500ms", "--report", out, "--log-level", "error")
	t.Logf("exit %d: %s", code, stderr)
	if code != 1 || !strings.HasPrefix(stderr, "client: host: refused: ") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q: want 1 and one line saying refused", code, stderr)
	}
	rep := readReport(t, out)
	c := rep.Clients[0]
	if c.Exit != "refused" || c.State != "refused" || c.Refusal != "tick_rate" || !slices.Equal(rep.Failed, []int{1}) {
		t.Fatalf("report %+v", rep)
	}
}

func TestBotsExitOneWhenAnyFailsAndSayWhich(t *testing.T) {
	addr := serveArena(t, func(toml string) string { return strings.Replace(toml, "players = 4", "players = 1", 1) })
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := runMain(t, context.Background(), "../../projects/arena", "--connect", addr, "--headless", "--bots", "2", "--bot", "idle",
		"--duration", "1s", "--report", out, "--log-level", "error")
	t.Logf("exit %d: %s", code, stderr)
	if code != 1 || !strings.Contains(stderr, "1 of 2 clients failed; client ") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q: want 1 and one line naming the client turned away", code, stderr)
	}
	rep := readReport(t, out)
	if len(rep.Failed) != 1 {
		t.Fatalf("failed %v, want one client: %+v", rep.Failed, rep.Clients)
	}
	turned, seated := rep.Clients[rep.Failed[0]-1], rep.Clients[2-rep.Failed[0]]
	if turned.Exit != "refused" || turned.Refusal != "full" || seated.Exit != "ok" || seated.State != "playing" {
		t.Fatalf("clients %+v", rep.Clients)
	}
}

func TestScriptErrorsExitOne(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../projects/arena")); err != nil {
		t.Fatal(err)
	}
	// The spawner's behavior fails on its first fixed update (and is
	// disabled there); the run goes on to its duration.
	broken := "local B = {}\nfunction B:on_fixed_update(dt) error(\"the spawner broke\") end\nreturn B\n"
	if err := os.WriteFile(filepath.Join(dir, "scripts", "spawner.lua"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := runMain(t, context.Background(), dir, "--headless", "--bot", "wander",
		"--duration", "100ms", "--report", out, "--log-level", "error")
	t.Logf("exit %d: %s", code, stderr)
	if code != 1 || !strings.Contains(stderr, "client: host: a script error: scripting: ") || !strings.Contains(stderr, "the spawner broke") {
		t.Fatalf("exit %d, stderr %q: want 1 and the script error", code, stderr)
	}
	rep := readReport(t, out)
	if c := rep.Clients[0]; c.Exit != "script_errors" || c.State != "offline" || c.Errors != 1 || !slices.Equal(rep.Failed, []int{1}) {
		t.Fatalf("report %+v", rep)
	}
}

func TestStoppedWhilePlayingExitsZero(t *testing.T) {
	addr := serveArena(t, func(toml string) string { return toml })
	out := filepath.Join(t.TempDir(), "r.json")
	// What Ctrl-C does: main's context ends, after a time that lets a
	// loaded machine seat the client first.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	code, _, stderr := runMain(t, ctx, "../../projects/arena", "--connect", addr, "--headless", "--bot", "wander",
		"--report", out, "--log-level", "error")
	rep := readReport(t, out)
	if code != 0 || stderr != "" || rep.Clients[0].Exit != "ok" || rep.Clients[0].State != "playing" || len(rep.Failed) != 0 {
		t.Fatalf("exit %d, stderr %q, report %+v", code, stderr, rep)
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
	if c.State != "offline" || c.Exit != "ok" || c.TickRate != 64 || c.Ticks == 0 || c.Errors != 0 || c.Events == nil || rep.Failed == nil || len(rep.Failed) != 0 {
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
		if c.State != "offline" || c.Exit != "ok" || c.Errors != 0 {
			t.Errorf("client %d: %+v", i+1, c)
		}
	}
}

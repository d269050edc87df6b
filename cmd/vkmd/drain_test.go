//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSIGTERMDrainsOverUDP builds vkmd and the client, serves the arena on
// 127.0.0.1 with a bot client playing, and sends vkmd SIGTERM: vkmd says
// it is draining, a client joining now is refused with the server's
// reason, the bot plays on until the drain time passes and then exits
// with the server's reason, vkmd writes its report and exits 0.
func TestSIGTERMDrainsOverUDP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bin := t.TempDir()
	for _, cmd := range []string{"vkmd", "client"} {
		out, err := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, cmd), "vkm/cmd/"+cmd).CombinedOutput()
		if err != nil {
			t.Fatalf("go build %s: %v\n%s", cmd, err, out)
		}
	}
	project := filepath.Join("..", "..", "projects", "arena")
	port := strconv.Itoa(freePort(t))
	serverReport := filepath.Join(t.TempDir(), "server.json")
	botReport := filepath.Join(t.TempDir(), "bot.json")
	const drain = 2 * time.Second

	vkmd := startProc(t, ctx, filepath.Join(bin, "vkmd"), project, "--port", port, "--drain", drain.String(), "--report", serverReport, "--status")
	vkmd.waitLine(t, `msg=serving`)
	bot := startProc(t, ctx, filepath.Join(bin, "client"), project, "--connect", "127.0.0.1:"+port, "--headless", "--bot", "wander", "--report", botReport)
	vkmd.waitLine(t, `msg="player joined"`)

	if err := vkmd.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()
	vkmd.waitLine(t, `msg="draining`)
	late := startProc(t, ctx, filepath.Join(bin, "client"), project, "--connect", "127.0.0.1:"+port, "--headless", "--bot", "idle")
	late.waitLine(t, `The server is shutting down\.`)
	if code := late.wait(t); code != 1 {
		t.Errorf("the client refused during the drain exited %d, want 1", code)
	}

	bot.waitLine(t, `The server shut down\.`)
	if code := bot.wait(t); code != 1 {
		t.Errorf("the bot exited %d, want 1 (disconnected)", code)
	}
	code, rest := vkmd.waitOutput(t)
	if code != 0 {
		t.Errorf("vkmd exited %d, want 0:\n%s", code, strings.Join(rest, "\n"))
	}
	if !regexp.MustCompile(`players 1/\d+ .*draining, \ds left`).MatchString(strings.Join(rest, "\n")) {
		t.Errorf("vkmd's status line never said it was draining:\n%s", strings.Join(rest, "\n"))
	}
	if took := time.Since(signalled); took < drain {
		t.Errorf("vkmd stopped %v after SIGTERM, before its drain of %v passed with a player seated", took, drain)
	}
	var srv struct {
		Joins   uint64 `json:"joins"`
		Refused uint64 `json:"refused"`
		Players int    `json:"players"`
	}
	readJSON(t, serverReport, &srv)
	if srv.Joins != 1 || srv.Refused == 0 || srv.Players != 1 {
		t.Errorf("server report %+v, want one join, a refusal, and the bot seated to the end", srv)
	}
	var cl struct {
		Clients []struct {
			Exit      string `json:"exit"`
			LastError string `json:"last_error"`
		} `json:"clients"`
	}
	readJSON(t, botReport, &cl)
	if len(cl.Clients) != 1 || cl.Clients[0].Exit != "disconnected" || cl.Clients[0].LastError != "The server shut down." {
		t.Errorf("bot report %+v, want one client disconnected by the server's shutdown", cl)
	}
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// proc is a started program whose stdout and stderr lines the test reads.
type proc struct {
	cmd   *exec.Cmd
	lines chan string
	done  chan struct{}
}

func startProc(t *testing.T, ctx context.Context, name string, args ...string) *proc {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	p := &proc{cmd: cmd, lines: make(chan string, 4096), done: make(chan struct{})}
	go func() {
		defer r.Close()
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			default: // nobody reads this far
			}
		}
		close(p.lines)
	}()
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})
	return p
}

// waitLine reads lines until one matches re, failing when the program's
// output ends first.
func (p *proc) waitLine(t *testing.T, re string) {
	t.Helper()
	want := regexp.MustCompile(re)
	var seen []string
	for line := range p.lines {
		if want.MatchString(line) {
			return
		}
		seen = append(seen, line)
	}
	t.Fatalf("%s never printed a line matching %s; it printed:\n%s", filepath.Base(p.cmd.Path), re, strings.Join(seen, "\n"))
}

// wait waits for the program to exit and returns its exit code.
func (p *proc) wait(t *testing.T) int {
	t.Helper()
	code, _ := p.waitOutput(t)
	return code
}

// waitOutput waits for the program to exit and returns its exit code and
// the lines it printed that were not read yet.
func (p *proc) waitOutput(t *testing.T) (int, []string) {
	t.Helper()
	var rest []string
	for line := range p.lines {
		rest = append(rest, line)
	}
	<-p.done
	return p.cmd.ProcessState.ExitCode(), rest
}

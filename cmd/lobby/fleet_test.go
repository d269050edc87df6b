package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vkm/host/fleet"
	"vkm/internal/redistest"
)

// build compiles vkmd, lobby and client into a temporary directory.
func build(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("go", "build", "-o", dir, "vkm/cmd/vkmd", "vkm/cmd/lobby", "vkm/cmd/client").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return dir
}

// freeUDP returns a UDP port nothing listens on now.
func freeUDP(t *testing.T) int {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// start runs a program of bin until the test ends (or it is stopped),
// its output going to a log file under the test's directory.
func start(t *testing.T, bin, name string, args ...string) *exec.Cmd {
	t.Helper()
	log, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, name), args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("%s %s:\n%s", name, strings.Join(args, " "), tail(string(b), 3000))
		}
	})
	return cmd
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// until polls the directory until ok holds of the arena's servers, or
// fails the test after limit.
func until(t *testing.T, d *fleet.Directory, limit time.Duration, what string, ok func([]fleet.Server) bool) []fleet.Server {
	t.Helper()
	deadline := time.Now().Add(limit)
	var got []fleet.Server
	for {
		var err error
		got, err = d.Servers(context.Background(), "arena")
		if err != nil {
			t.Fatal(err)
		}
		if ok(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; the directory holds %+v", what, limit, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// players maps each listed server to its players, and checks none has
// more than its seats.
func players(t *testing.T, ss []fleet.Server) map[string]int {
	m := map[string]int{}
	for _, s := range ss {
		if s.Players > s.Seats {
			t.Fatalf("%s seats %d players on %d seats", s.Addr, s.Players, s.Seats)
		}
		m[s.Addr] = s.Players
	}
	return m
}

// bots runs n lite bot clients through the lobby for d and checks that
// every one of them ended seated.
func bots(t *testing.T, bin, lobby string, n int, d time.Duration) *exec.Cmd {
	report := filepath.Join(t.TempDir(), "bots.json")
	return start(t, bin, "client", "../../projects/arena", "--headless", "--bots", fmt.Sprint(n), "--lite",
		"--lobby", lobby, "--duration", d.String(), "--report", report)
}

func checkBots(t *testing.T, c *exec.Cmd, n int) {
	t.Helper()
	if err := c.Wait(); err != nil {
		t.Fatalf("the bot clients: %v", err)
	}
	report := c.Args[len(c.Args)-1]
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Clients []struct{ Exit string } `json:"clients"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Clients) != n {
		t.Fatalf("%d clients reported, want %d", len(rep.Clients), n)
	}
	for i, c := range rep.Clients {
		if c.Exit != "ok" {
			t.Errorf("bot %d ended %q", i+1, c.Exit)
		}
	}
}

// Three servers and a lobby seat twelve bots, four on each; a server
// killed leaves the directory within its TTL, and the next bots are sent
// to the other two.
func TestLobbySeatsBotsAcrossTheFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs five processes")
	}
	url := redistest.Start(t)
	bin := build(t)
	keyFile := filepath.Join(t.TempDir(), "game.key")
	key, err := exec.Command(filepath.Join(bin, "vkmd"), "keygen").Output()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	var servers []*exec.Cmd
	var addrs []string
	for range 3 {
		port := freeUDP(t)
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		addrs = append(addrs, addr)
		servers = append(servers, start(t, bin, "vkmd", "../../projects/arena", "--port", fmt.Sprint(port),
			"--key", keyFile, "--public", addr, "--fleet", url))
	}
	lobby := start(t, bin, "lobby", "--fleet", url, "--key", keyFile, "--listen", "127.0.0.1:0", "--insecure")
	lobbyURL := "http://" + lobbyAddr(t, lobby)

	rdb, err := fleet.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	d := fleet.NewDirectory(rdb)
	until(t, d, 30*time.Second, "three servers listed", func(ss []fleet.Server) bool { return len(ss) == 3 })

	c := bots(t, bin, lobbyURL, 12, 8*time.Second)
	got := until(t, d, 30*time.Second, "twelve bots seated", func(ss []fleet.Server) bool {
		n := 0
		for _, p := range players(t, ss) {
			n += p
		}
		return n == 12
	})
	for _, s := range got {
		if s.Players != 4 {
			t.Errorf("%s seats %d of twelve bots on three servers of four", s.Addr, s.Players)
		}
	}
	checkBots(t, c, 12)
	until(t, d, 15*time.Second, "the bots left", func(ss []fleet.Server) bool {
		for _, p := range players(t, ss) {
			if p != 0 {
				return false
			}
		}
		return len(ss) == 3
	})

	// Killed, the server says nothing: its entry must lapse on its own.
	if err := servers[0].Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	servers[0].Wait()
	killed := time.Now()
	until(t, d, fleet.TTL+time.Second, "the killed server left the directory", func(ss []fleet.Server) bool {
		_, listed := players(t, ss)[addrs[0]]
		return !listed && len(ss) == 2
	})
	t.Logf("the killed server left the directory %v after it died (TTL %v)", time.Since(killed).Round(10*time.Millisecond), fleet.TTL)

	c = bots(t, bin, lobbyURL, 8, 6*time.Second)
	until(t, d, 30*time.Second, "eight bots seated on the two left", func(ss []fleet.Server) bool {
		m := players(t, ss)
		return len(ss) == 2 && m[addrs[1]] == 4 && m[addrs[2]] == 4
	})
	checkBots(t, c, 8)

	// A clean exit removes the entry at once.
	if err := servers[1].Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := servers[1].Wait(); err != nil {
		t.Fatalf("vkmd after SIGTERM: %v", err)
	}
	ss, err := d.Servers(context.Background(), "arena")
	if err != nil || len(ss) != 1 || ss[0].Addr != addrs[2] {
		t.Fatalf("after a clean exit the directory holds %+v, %v", ss, err)
	}
}

// lobbyAddr reads the address the lobby prints once it listens.
func lobbyAddr(t *testing.T, lobby *exec.Cmd) string {
	t.Helper()
	line := waitLog(t, lobby, "lobby listening on ", 30*time.Second)
	a, _ := strings.CutPrefix(line, "lobby listening on ")
	return a
}

// waitLog waits until a program start ran has written a line containing
// substr to its log, and returns the line; it fails the test after limit.
func waitLog(t *testing.T, c *exec.Cmd, substr string, limit time.Duration) string {
	t.Helper()
	log := c.Stdout.(*os.File).Name()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		f, err := os.Open(log)
		if err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if strings.Contains(sc.Text(), substr) {
					f.Close()
					return sc.Text()
				}
			}
			f.Close()
		}
		time.Sleep(20 * time.Millisecond)
	}
	b, _ := os.ReadFile(log)
	t.Fatalf("%s never wrote %q within %v:\n%s", filepath.Base(c.Path), substr, limit, tail(string(b), 2000))
	return ""
}

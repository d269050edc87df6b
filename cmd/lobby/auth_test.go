package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"vkm/host"
	"vkm/host/fleet"
	"vkm/host/project"
	"vkm/internal/redistest"
	"vkm/transport/token"
)

// game is a fleet of the test's own: a Redis, the built programs, the
// game's key and the lobby's two secrets, in files.
type game struct {
	url, bin                   string
	keyFile, jwtFile, authFile string
	jwtSecret, authSecret      []byte
	dir                        *fleet.Directory
	servers                    []string // the vkmd servers' addresses, as started
	lobby                      *exec.Cmd
	lobbyURL                   string
}

func newGame(t *testing.T) *game {
	t.Helper()
	g := &game{url: redistest.Start(t), bin: build(t)}
	dir := t.TempDir()
	g.keyFile = filepath.Join(dir, "game.key")
	key, err := exec.Command(filepath.Join(g.bin, "vkmd"), "keygen").Output()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(g.keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	g.jwtSecret, g.authSecret = []byte("the-players-jwt-secret-at-least-32-bytes"), []byte("the-backends-hmac-secret-at-least-32-bytes")
	g.jwtFile, g.authFile = filepath.Join(dir, "jwt.secret"), filepath.Join(dir, "auth.secret")
	os.WriteFile(g.jwtFile, append(g.jwtSecret, '\n'), 0o600)
	os.WriteFile(g.authFile, append(g.authSecret, '\n'), 0o600)
	rdb, err := fleet.Open(context.Background(), g.url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	g.dir = fleet.NewDirectory(rdb)
	return g
}

// serve starts a vkmd of the arena in the fleet.
func (g *game) serve(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	port := freeUDP(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	g.servers = append(g.servers, addr)
	return start(t, g.bin, "vkmd", append([]string{"../../projects/arena", "--port", fmt.Sprint(port),
		"--key", g.keyFile, "--public", addr, "--fleet", g.url}, args...)...)
}

// startLobby starts the lobby with the checks args name.
func (g *game) startLobby(t *testing.T, args ...string) {
	t.Helper()
	g.lobby = start(t, g.bin, "lobby", append([]string{"--fleet", g.url, "--key", g.keyFile, "--listen", "127.0.0.1:0"}, args...)...)
	g.lobbyURL = "http://" + lobbyAddr(t, g.lobby)
}

// playerJWT writes a JWT for client id sub, valid for an hour, to a file.
func (g *game) playerJWT(t *testing.T, sub string) (file, text string) {
	t.Helper()
	now := time.Now()
	text, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{Subject: sub, IssuedAt: jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))}).SignedString(g.jwtSecret)
	if err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(t.TempDir(), sub+".jwt")
	if err := os.WriteFile(file, []byte(text+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return file, text
}

// ask makes one request of the lobby, with the Authorization header auth
// ("" for none), and returns the status and body.
func (g *game) ask(t *testing.T, path, auth string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, g.lobbyURL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// exitCode waits for c and returns its exit code.
func exitCode(t *testing.T, c *exec.Cmd) int {
	t.Helper()
	err := c.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// The lobby run with --jwt-secret and --auth-secret gives anonymous
// callers, and the client without its JWT, 401 and no token; the client
// with its JWT plays; the backend's signed request gets a token for the
// client id it names; /healthz and /metrics answer.
func TestTheLobbyChecksItsCallers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs four processes")
	}
	g := newGame(t)
	g.serve(t)
	g.startLobby(t, "--jwt-secret", g.jwtFile, "--auth-secret", g.authFile)
	until(t, g.dir, 30*time.Second, "the server listed", func(ss []fleet.Server) bool { return len(ss) == 1 })

	if code, body := g.ask(t, "/join?project=arena&name=ann", ""); code != http.StatusUnauthorized || strings.Contains(body, `"token"`) {
		t.Fatalf("an anonymous request: %d %q, want 401 and no token", code, body)
	}
	if code, body := g.ask(t, "/join?project=arena&name=ann", "Bearer "+strings.Repeat("a", 30)); code != http.StatusUnauthorized || strings.Contains(body, `"token"`) {
		t.Fatalf("a request with a bad JWT: %d %q, want 401", code, body)
	}
	anon := start(t, g.bin, "client", "../../projects/arena", "--headless", "--bot", "wander", "--lobby", g.lobbyURL, "--duration", "2s")
	if code := exitCode(t, anon); code != 1 {
		t.Errorf("the client without a JWT exited %d, want 1", code)
	}
	waitLog(t, anon, "401 Unauthorized", time.Second)

	jwtFile, _ := g.playerJWT(t, "7")
	report := filepath.Join(t.TempDir(), "ann.json")
	ann := start(t, g.bin, "client", "../../projects/arena", "--headless", "--bot", "wander", "--lobby", g.lobbyURL,
		"--lobby-jwt", jwtFile, "--duration", "3s", "--report", report)
	if code := exitCode(t, ann); code != 0 {
		t.Fatalf("the client with its JWT exited %d, want 0", code)
	}
	b, _ := os.ReadFile(report)
	var rep struct {
		Clients []struct {
			Exit   string `json:"exit"`
			Player int    `json:"player"`
		} `json:"clients"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Clients) != 1 || rep.Clients[0].Exit != "ok" || rep.Clients[0].Player == 0 {
		t.Fatalf("the client's report: %s (%v)", b, err)
	}

	req, _ := http.NewRequest(http.MethodGet, g.lobbyURL+"/join?project=arena&name=bo&client=77", nil)
	if err := fleet.SignRequest(req, g.authSecret, time.Now(), "e2e-nonce-0000000001"); err != nil {
		t.Fatal(err)
	}
	replay := req.Clone(context.Background())
	code, body := do(t, req)
	if code != http.StatusOK {
		t.Fatalf("the backend's signed request: %d %q", code, body)
	}
	addr, tok, err := fleet.ParseSeat([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	key, err := host.ReadKeyFile(g.keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := token.Open(&key, tok.Sealed[:], time.Now(), addr); err != nil || c.Client != 77 || c.Name != "bo" {
		t.Errorf("the signed request's token opens as %+v, %v; want client 77, bo", c, err)
	}
	if code, _ := do(t, replay); code != http.StatusUnauthorized {
		t.Errorf("the signed request replayed: %d, want 401", code)
	}

	if code, body := g.ask(t, "/healthz", ""); code != http.StatusOK {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, body := g.ask(t, "/readyz", ""); code != http.StatusOK {
		t.Errorf("/readyz: %d %q", code, body)
	}
	_, metrics := g.ask(t, "/metrics", "")
	for _, want := range []string{`vkm_lobby_requests_total{outcome="seat"} 2`, `vkm_lobby_requests_total{outcome="unauthorized"} 4`,
		`vkm_lobby_auth_failures_total{reason="missing"} 2`, `vkm_lobby_auth_failures_total{reason="replayed"} 1`, "vkm_lobby_reservations_total 2"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// A server told to drain leaves the directory before it starts to: asked
// at once, the lobby has no seat to give, though the drain has a player
// to wait for and the server still runs.
func TestADrainingServerIsNeverHandedOut(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs four processes")
	}
	g := newGame(t)
	vkmd := g.serve(t, "--drain", "20s")
	g.startLobby(t, "--jwt-secret", g.jwtFile)
	until(t, g.dir, 30*time.Second, "the server listed", func(ss []fleet.Server) bool { return len(ss) == 1 })
	_, ann := g.playerJWT(t, "7")
	_, bo := g.playerJWT(t, "8")
	if code, body := g.ask(t, "/join?project=arena&name=ann", "Bearer "+ann); code != http.StatusOK {
		t.Fatalf("before the drain: %d %q", code, body)
	}
	bot := start(t, g.bin, "client", "../../projects/arena", "--headless", "--bot", "wander", "--connect", g.servers[0], "--key", g.keyFile)
	until(t, g.dir, 30*time.Second, "the bot seated", func(ss []fleet.Server) bool { return len(ss) == 1 && ss[0].Players == 1 })

	if err := vkmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitLog(t, vkmd, `msg="draining`, 30*time.Second)
	code, body := g.ask(t, "/join?project=arena&name=bo", "Bearer "+bo)
	if code != http.StatusServiceUnavailable || strings.Contains(body, `"token"`) {
		t.Fatalf("asked as the server drains: %d %q, want 503 and no seat", code, body)
	}
	if ss, err := g.dir.Servers(context.Background(), "arena"); err != nil || len(ss) != 0 {
		t.Fatalf("the directory lists %+v, %v, as the server drains", ss, err)
	}
	if vkmd.ProcessState != nil {
		t.Fatal("vkmd stopped: the drain was to wait for its player")
	}
	left, drain := logIndex(t, vkmd, "fleet: left the directory"), logIndex(t, vkmd, `msg="draining`)
	if left < 0 || left > drain {
		t.Errorf("vkmd left the directory at log line %d, its drain began at line %d: leaving is to come first", left, drain)
	}
	bot.Process.Kill()
}

// logIndex is the number of the first line of c's log that holds substr,
// or -1.
func logIndex(t *testing.T, c *exec.Cmd, substr string) int {
	t.Helper()
	b, err := os.ReadFile(c.Stdout.(*os.File).Name())
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, substr) {
			return i
		}
	}
	return -1
}

// A client sent to a server that does not answer asks the lobby again,
// passing over that one, and plays on the next.
func TestTheClientTriesTheNextServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs three processes, and waits out a join's timeout")
	}
	g := newGame(t)
	g.serve(t)
	g.startLobby(t, "--insecure")
	until(t, g.dir, 30*time.Second, "the server listed", func(ss []fleet.Server) bool { return len(ss) == 1 })

	// A silent server: a socket that reads and says nothing, listed as
	// fuller than the real one so the lobby names it first.
	silent, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		b := make([]byte, 2048)
		for {
			if _, _, err := silent.ReadFrom(b); err != nil {
				return
			}
		}
	}()
	p, err := project.LoadProject("../../projects/arena")
	if err != nil {
		t.Fatal(err)
	}
	id, err := host.ProjectIdentity(p)
	if err != nil {
		t.Fatal(err)
	}
	rdb, err := fleet.Open(context.Background(), g.url)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	reg, err := fleet.Register(context.Background(), rdb, fleet.Server{Addr: silent.LocalAddr().String(), Project: p.Name,
		Fingerprint: id.Fingerprint, Protocol: id.Protocol, Seats: p.Players}, fleet.Heartbeat, fleet.TTL)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	reg.SetPlayers(1)
	until(t, g.dir, 10*time.Second, "the silent server listed", func(ss []fleet.Server) bool { return len(ss) == 2 })

	report := filepath.Join(t.TempDir(), "ann.json")
	ann := start(t, g.bin, "client", "../../projects/arena", "--headless", "--bot", "wander", "--lobby", g.lobbyURL,
		"--duration", "25s", "--report", report)
	waitLog(t, ann, "the server did not seat us", 30*time.Second)
	until(t, g.dir, 30*time.Second, "the client seated on the real server", func(ss []fleet.Server) bool {
		return players(t, ss)[g.servers[0]] == 1
	})
	ann.Process.Signal(os.Interrupt)
	if code := exitCode(t, ann); code != 0 {
		t.Errorf("the client exited %d, want 0 (seated on its second server)", code)
	}
}

package host

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vkm/transport/token"
)

// consoleOf is a console for ServeConfig: lines written to in reach the
// server, and its answers come back on out, one a line.
type consoleOf struct {
	in   *io.PipeWriter
	out  *bufio.Scanner
	outR *io.PipeReader // out's pipe: closing it ends a wait for an answer
}

func newConsole(t *testing.T, cfg *ServeConfig) *consoleOf {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	cfg.Console, cfg.ConsoleOut = inR, outW
	return &consoleOf{in: inW, out: bufio.NewScanner(outR), outR: outR}
}

// say sends a console line and returns the answer's first line.
func (c *consoleOf) say(t *testing.T, line string) string {
	t.Helper()
	answer, err := c.ask(line)
	if err != nil {
		t.Fatal(err)
	}
	return answer
}

// ask is say for a goroutine other than the test's: an error rather than
// a failed test when the line cannot be sent or has no answer (the
// console was closed).
func (c *consoleOf) ask(line string) (string, error) {
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		return "", err
	}
	if !c.out.Scan() {
		return "", fmt.Errorf("no answer to %q", line)
	}
	return c.out.Text(), nil
}

// tokenFor mints a token for client id client at addr.
func tokenFor(t *testing.T, game, addr string, client uint64) *token.Token {
	t.Helper()
	text, err := MintToken(&testKeys[0], TokenRequest{Game: game, Servers: []string{addr}, Client: client, Name: "c", Life: time.Hour}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tok, err := ReadTokenFile("-", strings.NewReader(string(text)+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	return &tok
}

// Over real UDP: a banned client id is refused with the ban's reason while
// another plays; an address banned from the console, by the access file,
// keeps everyone from it out after a restart.
func TestBansOverUDPSurviveARestart(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets: without -short")
	}
	p := loadArena(t)
	file := filepath.Join(t.TempDir(), "access.txt")
	if err := os.WriteFile(file, []byte("ban id 9 cheating in round 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := ServeConfig{Project: p, Key: &testKeys[0], AccessFile: file}
	con := newConsole(t, &cfg)
	addr, stop := servedWith(t, nil, cfg)
	banned := playWith(t, PlayConfig{Project: p, Connect: addr, Token: tokenFor(t, p.Name, addr, 9)})
	other := playWith(t, PlayConfig{Project: p, Connect: addr, Token: tokenFor(t, p.Name, addr, 10)})
	answer := con.say(t, "ban addr 127.0.0.1 spam")
	srv := stop()
	t.Logf("id 9: %s %q %q; id 10: %s; console %q; joins %d refused %d", banned.State, banned.Refusal, banned.LastError, other.State, answer, srv.Joins, srv.Refused)
	if banned.Refusal != "declined" || !strings.Contains(banned.LastError, "You are banned from this server: cheating in round 3") || other.State != "playing" || answer != "banned addr 127.0.0.1" {
		t.Fatal("want id 9 refused with its reason and id 10 seated")
	}
	data, _ := os.ReadFile(file)
	t.Logf("the access file: %q", data)

	cfg = ServeConfig{Project: p, Key: &testKeys[0], AccessFile: file}
	addr, stop = servedWith(t, nil, cfg)
	again := playWith(t, PlayConfig{Project: p, Connect: addr, Token: tokenFor(t, p.Name, addr, 10)})
	stop()
	t.Logf("after the restart, id 10: %s %q", again.State, again.LastError)
	if again.Refusal != "declined" || !strings.Contains(again.LastError, "You are banned from this server: spam") {
		t.Fatal("the address ban did not survive the restart")
	}
}

// Over real UDP: a player kicked from the console is shown the reason, and
// their run ends disconnected (client exits 1); the kick is counted.
func TestKickOverUDPShowsTheReason(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets: without -short")
	}
	p := loadArena(t)
	cfg := ServeConfig{Project: p}
	con := newConsole(t, &cfg)
	addr, stop := servedWith(t, nil, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	kicked := make(chan string, 1)
	var asking sync.WaitGroup
	rep, err := Play(ctx, PlayConfig{Project: p, Connect: addr, OnState: func(state, why string) {
		switch state {
		case "playing":
			asking.Add(1)
			go func() {
				defer asking.Done()
				answer, err := con.ask("kick 1 spawn camping")
				if err != nil {
					answer = err.Error()
				}
				kicked <- answer
			}()
		case "disconnected":
			cancel()
		}
	}})
	srv := stop()
	// A kick the stopped server never answered must not hold the test:
	// closing the console ends the wait for its answer.
	con.outR.Close()
	asking.Wait()
	answer := "(the client never played, so no kick was asked)"
	select {
	case answer = <-kicked:
	default:
	}
	t.Logf("client: %s exit %s %q (%v); console %q; kicks %d", rep.State, rep.Exit, rep.LastError, err, answer, srv.Kicks)
	if rep.Exit != exitDisconnected || rep.LastError != "You were kicked: spawn camping" || srv.Kicks != 1 {
		t.Fatal("want the kick's reason shown and the run ended disconnected")
	}
	if r := NewReport(rep); len(r.Failed) != 1 {
		t.Fatalf("a kicked client's run is not a failure: %+v", r.Failed)
	}
}

// The admin listener's POST endpoints answer 401 without the bearer token
// (or with another), and run the console's commands with it.
func TestAdminPostsNeedTheToken(t *testing.T) {
	p := loadArena(t)
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	admin := make(chan string, 1)
	served := make(chan error, 1)
	go func() {
		_, err := Serve(ctx, ServeConfig{Project: p, Addr: "127.0.0.1:0", Admin: "127.0.0.1:0", AdminToken: "s3cret", Logger: testLogger(t),
			AdminReady: func(a net.Addr) { admin <- "http://" + a.String() }})
		served <- err
	}()
	base := <-admin
	post := func(path, auth, args string) (int, string) {
		req, _ := http.NewRequestWithContext(ctx, "POST", base+path, strings.NewReader("args="+args))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, strings.TrimSpace(string(b))
	}
	for _, c := range []struct {
		path, auth, args string
		code             int
		body             string
	}{
		{"/kick", "", "1 x", 401, "a bearer token is required"},
		{"/kick", "Bearer wrong", "1 x", 401, "a bearer token is required"},
		{"/say", "s3cret", "hi", 401, "a bearer token is required"},
		{"/kick", "Bearer s3cret", "5 x", 200, "no player 5"},
		{"/players", "Bearer s3cret", "", 200, "0 players"},
		{"/say", "Bearer s3cret", "hello", 200, "said"},
		{"/reboot", "Bearer s3cret", "", 404, "404 page not found"},
	} {
		code, body := post(c.path, c.auth, c.args)
		t.Logf("POST %s (%q): %d %q", c.path, c.auth, code, body)
		if code != c.code || body != c.body {
			t.Errorf("POST %s: %d %q, want %d %q", c.path, code, body, c.code, c.body)
		}
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}

// Over real UDP: a server with a password seats a client that knows it,
// and refuses one with another, or none, with the password's own reason.
func TestPasswordOverUDP(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets: without -short")
	}
	p := loadArena(t)
	addr, stop := servedWith(t, nil, ServeConfig{Project: p, Password: []byte("hunter2")})
	right := playWith(t, PlayConfig{Project: p, Connect: addr, Password: []byte("hunter2")})
	wrong := playWith(t, PlayConfig{Project: p, Connect: addr, Password: []byte("hunter3")})
	none := playWith(t, PlayConfig{Project: p, Connect: addr})
	srv := stop()
	t.Logf("right: %s; wrong: %s %q %q; none: %s %q; joins %d refused %d", right.State, wrong.State, wrong.Refusal, wrong.LastError, none.State, none.Refusal, srv.Joins, srv.Refused)
	// Each refused client is refused at least once: once for every Hello
	// of its that reached the server before the Refuse reached it.
	if right.State != "playing" || wrong.Refusal != "password" || none.Refusal != "password" || srv.Joins != 1 || srv.Refused < 2 {
		t.Fatal("want the right password seated and the others refused as password")
	}
}

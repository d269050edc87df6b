//go:build browser && linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestBrowserPlaysTheArena is the reference client end to end: vkmd serves
// the arena, a client joins it with --view, and headless Chromium opens the
// page, holds the key for "run right", presses "jump", and the page's own
// state shows the player moved right and left the ground. A screenshot is
// saved and must not be blank. It needs Chromium (.ci/run installs
// Debian's) and runs with -tags browser.
func TestBrowserPlaysTheArena(t *testing.T) {
	chrome := findChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bin := buildPrograms(t)
	project := filepath.Join("..", "..", "projects", "arena")

	port := freeUDPPort(t)
	vkmd := start(t, ctx, filepath.Join(bin, "vkmd"), project, "--port", port)
	waitLine(t, vkmd, regexp.MustCompile(`msg=serving`))
	client := start(t, ctx, filepath.Join(bin, "client"), project, "--connect", "127.0.0.1:"+port, "--view", "127.0.0.1:0")
	m := waitLine(t, client, regexp.MustCompile(`view listening.* addr=(\S+)`))
	url := "http://" + m[1] + "/"
	t.Logf("page at %s", url)

	cdp := launchChromium(t, ctx, chrome)
	cdp.call(t, "Page.enable", nil)
	cdp.call(t, "Page.navigate", map[string]any{"url": url})

	type pageState struct {
		Connected bool `json:"connected"`
		Frames    int  `json:"frames"`
		Own       *struct {
			X, Y float64
		} `json:"own"`
	}
	read := func() pageState {
		var s pageState
		v := cdp.eval(t, `JSON.stringify(window.vkm ? {connected: vkm.connected, frames: vkm.frames, own: vkm.own} : {})`)
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			t.Fatalf("page state %q: %v", v, err)
		}
		return s
	}
	until := func(what string, within time.Duration, ok func(pageState) bool) pageState {
		t.Helper()
		deadline := time.Now().Add(within)
		for {
			s := read()
			if ok(s) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within %v; the page says %+v", what, within, s)
			}
			time.Sleep(50 * time.Millisecond) // polling another process
		}
	}
	first := until("the page shows the player", 20*time.Second, func(s pageState) bool {
		return s.Connected && s.Frames > 30 && s.Own != nil
	})
	// Measure from where the character stands once it has landed on its
	// spawn: its height the same over a tenth of a second of frames.
	last := first
	rest := until("the player landing", 10*time.Second, func(s pageState) bool {
		landed := s.Frames >= last.Frames+6 && math.Abs(s.Own.Y-last.Own.Y) < 0.001
		if s.Frames >= last.Frames+6 {
			last = s
		}
		return landed
	})
	t.Logf("standing at (%.2f, %.2f) after %d frames (first seen at %.2f, %.2f)", rest.Own.X, rest.Own.Y, rest.Frames, first.Own.X, first.Own.Y)

	cdp.key(t, "keyDown", "KeyD", "d", 68)
	moved := until("running right", 5*time.Second, func(s pageState) bool { return s.Own.X > rest.Own.X+1 })
	cdp.key(t, "keyDown", "Space", " ", 32)
	jumped := until("jumping", 5*time.Second, func(s pageState) bool { return s.Own.Y > rest.Own.Y+0.5 })
	cdp.key(t, "keyUp", "Space", " ", 32)
	cdp.key(t, "keyUp", "KeyD", "d", 68)
	t.Logf("ran right to x %.2f, jumped to y %.2f", moved.Own.X, jumped.Own.Y)

	// The player's own shot: the page draws its tracer (the client shows
	// the shot from its own predicted tick, with no word from the server;
	// host's TestViewerShowsTheOwnShotAtOnce pins that to the frame after
	// the tick, on a slow link).
	type fxState struct {
		Frames int `json:"frames"`
		Drawn  int `json:"drawn"`
	}
	fx := func() fxState {
		var s fxState
		v := cdp.eval(t, `JSON.stringify({frames: vkm.frames, drawn: vkm.fx.drawn.shot || 0})`)
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			t.Fatalf("page fx %q: %v", v, err)
		}
		return s
	}
	before := fx()
	cdp.key(t, "keyDown", "KeyF", "f", 70)
	deadline := time.Now().Add(5 * time.Second)
	after := fx()
	for after.Drawn == before.Drawn {
		if time.Now().After(deadline) {
			t.Fatalf("no tracer drawn within 5 s of the fire button (frames %d → %d)", before.Frames, after.Frames)
		}
		time.Sleep(5 * time.Millisecond) // polling another process
		after = fx()
	}
	cdp.key(t, "keyUp", "KeyF", "f", 70)
	t.Logf("own shot drawn %d frames after the fire button was dispatched", after.Frames-before.Frames)

	var shot struct {
		Data string `json:"data"`
	}
	cdp.call(t, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
	pngBytes, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(os.TempDir(), "vkm-browser.png")
	if err := os.WriteFile(out, pngBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(pngBytes))
	if err != nil {
		t.Fatal(err)
	}
	colours := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
		}
	}
	t.Logf("screenshot %s: %dx%d, %d colours", out, b.Dx(), b.Dy(), len(colours))
	if len(colours) <= 8 {
		t.Fatalf("the screenshot has %d colours: the canvas looks blank", len(colours))
	}
}

// TestBrowserDrawsAnotherPlayersShots: vkmd serves the arena, a headless
// bot client joins and plays (it taps fire about every half second), and a
// second client serves the page, whose player stands still. The bot's
// shots are never run on the page's client: the page draws them from the
// cause the server replicates (the walker's Shot component), which is what
// its fx counters show: shots received and drawn from an entity other than
// the page's own.
func TestBrowserDrawsAnotherPlayersShots(t *testing.T) {
	chrome := findChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bin := buildPrograms(t)
	project := filepath.Join("..", "..", "projects", "arena")
	port := freeUDPPort(t)
	vkmd := start(t, ctx, filepath.Join(bin, "vkmd"), project, "--port", port)
	waitLine(t, vkmd, regexp.MustCompile(`msg=serving`))
	start(t, ctx, filepath.Join(bin, "client"), project, "--connect", "127.0.0.1:"+port, "--headless", "--bot", "wander", "--bot-seed", "3", "--name", "bot")
	client := start(t, ctx, filepath.Join(bin, "client"), project, "--connect", "127.0.0.1:"+port, "--view", "127.0.0.1:0", "--name", "page")
	m := waitLine(t, client, regexp.MustCompile(`view listening.* addr=(\S+)`))

	cdp := launchChromium(t, ctx, chrome)
	cdp.call(t, "Page.enable", nil)
	cdp.call(t, "Page.navigate", map[string]any{"url": "http://" + m[1] + "/"})
	type fx struct {
		Frames      int            `json:"frames"`
		Received    map[string]int `json:"received"`
		Others      map[string]int `json:"others"`
		Drawn       map[string]int `json:"drawn"`
		DrawnOthers map[string]int `json:"drawnOthers"`
	}
	var got fx
	deadline := time.Now().Add(30 * time.Second)
	for {
		v := cdp.eval(t, `JSON.stringify(window.vkm ? Object.assign({frames: vkm.frames}, vkm.fx) : {})`)
		if err := json.Unmarshal([]byte(v), &got); err != nil {
			t.Fatalf("page state %q: %v", v, err)
		}
		if got.DrawnOthers["shot"] >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page drew %d of the other player's shots within 30 s (want 3): %+v", got.DrawnOthers["shot"], got)
		}
		time.Sleep(100 * time.Millisecond) // polling another process
	}
	t.Logf("after %d frames the page drew %v (from others %v); received %v (from others %v)", got.Frames, got.Drawn, got.DrawnOthers, got.Received, got.Others)
	if got.Received["shot"] != got.Others["shot"] {
		t.Fatalf("the page's own player fired no shot, yet %d of %d shots were its own", got.Received["shot"]-got.Others["shot"], got.Received["shot"])
	}

	// Tab holds the scoreboard open: both players, by name, with the
	// arena's Score columns.
	cdp.key(t, "keyDown", "Tab", "Tab", 9)
	type board struct {
		Shown bool `json:"shown"`
		Board struct {
			Cols []string `json:"cols"`
			Rows []struct {
				Name string `json:"name"`
				Own  bool   `json:"own"`
			} `json:"rows"`
			State [][2]any `json:"state"`
		} `json:"board"`
	}
	var b board
	v := cdp.eval(t, `JSON.stringify({shown: vkm.boardShown, board: vkm.board})`)
	if err := json.Unmarshal([]byte(v), &b); err != nil {
		t.Fatalf("board %q: %v", v, err)
	}
	var shot struct {
		Data string `json:"data"`
	}
	cdp.call(t, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
	if png, err := base64.StdEncoding.DecodeString(shot.Data); err == nil {
		os.WriteFile(filepath.Join(os.TempDir(), "vkm-board.png"), png, 0o644)
	}
	cdp.key(t, "keyUp", "Tab", "Tab", 9)
	t.Logf("board: %s", v)
	names := map[string]bool{}
	for _, r := range b.Board.Rows {
		names[r.Name] = r.Own
	}
	if !b.Shown || len(b.Board.Rows) != 2 || names["page"] != true || names["bot"] != false || !slices.Contains(b.Board.Cols, "Score.kills") {
		t.Fatalf("with Tab held the page shows %+v; want it shown, with rows for page (own) and bot and a Score.kills column", b)
	}
	if v := cdp.eval(t, `JSON.stringify(vkm.boardShown)`); v != "false" {
		t.Fatalf("the board is still shown (%s) after Tab went up", v)
	}
}

// buildPrograms builds vkmd and client into a temporary folder and returns
// it: each browser test runs the programs as a player would.
func buildPrograms(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	for _, cmd := range []string{"vkmd", "client"} {
		out, err := exec.Command("go", "build", "-o", filepath.Join(bin, cmd), "vkm/cmd/"+cmd).CombinedOutput()
		if err != nil {
			t.Fatalf("go build %s: %v\n%s", cmd, err, out)
		}
	}
	return bin
}

func findChromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on this machine (.ci/run installs Debian's chromium)")
	return ""
}

// freeUDPPort asks the kernel for a free loopback UDP port; vkmd binds it
// a moment later.
func freeUDPPort(t *testing.T) string {
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return fmt.Sprint(c.LocalAddr().(*net.UDPAddr).Port)
}

// proc is a started program whose stderr lines the test reads.
type proc struct {
	lines chan string
}

func start(t *testing.T, ctx context.Context, name string, args ...string) *proc {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{lines: make(chan string, 1024)}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			default: // nobody is waiting for more lines
			}
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return p
}

func waitLine(t *testing.T, p *proc, re *regexp.Regexp) []string {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("the program ended before printing a line matching %s", re)
			}
			if m := re.FindStringSubmatch(l); m != nil {
				return m
			}
		case <-timeout:
			t.Fatalf("no line matching %s within 30 s", re)
		}
	}
}

// ownPIDNamespace starts a process as the first of a new PID namespace,
// killed if the test process dies first. Root may make the namespace
// outright; anyone else makes a user namespace for it too, mapping their
// own ids to themselves.
func ownPIDNamespace() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID, Pdeathsig: syscall.SIGKILL}
	if uid, gid := os.Geteuid(), os.Getegid(); uid != 0 {
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	}
	return a
}

// devtools speaks the Chrome DevTools Protocol to one page.
type devtools struct {
	ws  *websocket.Conn
	ctx context.Context
	id  int
}

// launchChromium starts headless Chromium and connects to its page. The
// browser runs in a PID namespace of its own, so that ending it is certain:
// Chromium forks a zygote, renderers and crash handlers (the last leave its
// process group and session), any of which may still be writing the
// profile after the first process is gone. When a namespace's first
// process dies the kernel kills every other one in it, and that first
// process cannot be waited for until they have all exited; so once the
// cleanup's Wait returns nothing of the browser is left to write into the
// directories the test then removes. HOME points into the test's directory
// too, so the browser writes nothing anywhere else.
func launchChromium(t *testing.T, ctx context.Context, chrome string, flags ...string) *devtools {
	t.Helper()
	home := t.TempDir()
	profile := filepath.Join(home, "profile")
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile, "--remote-debugging-port=0", "--window-size=1280,720"}, flags...)
	cmd := exec.Command(chrome, append(args, "about:blank")...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
	cmd.SysProcAttr = ownPIDNamespace()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start Chromium in a PID namespace of its own: %v", err)
	}
	// Registered after t.TempDir, so it runs before the removal.
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	var browserURL string
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "DevTools listening on "); ok {
			browserURL = strings.TrimSpace(rest)
			break
		}
	}
	if browserURL == "" {
		t.Fatal("Chromium did not say where DevTools listens")
	}
	go io.Copy(io.Discard, stderr)
	hostPort := strings.TrimPrefix(browserURL, "ws://")
	hostPort = hostPort[:strings.Index(hostPort, "/")]
	resp, err := http.Get("http://" + hostPort + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var targets []struct {
		Type, WebSocketDebuggerURL string
	}
	if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if tg.Type == "page" {
			ws, _, err := websocket.Dial(ctx, tg.WebSocketDebuggerURL, nil)
			if err != nil {
				t.Fatal(err)
			}
			ws.SetReadLimit(64 << 20) // screenshots
			t.Cleanup(func() { ws.CloseNow() })
			return &devtools{ws: ws, ctx: ctx}
		}
	}
	t.Fatal("Chromium has no page target")
	return nil
}

// call sends one command and waits for its answer, skipping events.
func (d *devtools) call(t *testing.T, method string, params any, result ...any) {
	t.Helper()
	d.id++
	msg, _ := json.Marshal(map[string]any{"id": d.id, "method": method, "params": params})
	if err := d.ws.Write(d.ctx, websocket.MessageText, msg); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	for {
		_, b, err := d.ws.Read(d.ctx)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		var r struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(b, &r) != nil || r.ID != d.id {
			continue
		}
		if r.Error != nil {
			t.Fatalf("%s: %s", method, r.Error.Message)
		}
		if len(result) > 0 {
			if err := json.Unmarshal(r.Result, result[0]); err != nil {
				t.Fatalf("%s result: %v", method, err)
			}
		}
		return
	}
}

func (d *devtools) eval(t *testing.T, expr string) string {
	t.Helper()
	var r struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
	}
	d.call(t, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r)
	return r.Result.Value
}

func (d *devtools) key(t *testing.T, typ, code, key string, vk int) {
	t.Helper()
	d.call(t, "Input.dispatchKeyEvent", map[string]any{
		"type": typ, "code": code, "key": key, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk,
	})
}

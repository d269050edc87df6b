package view

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"vkm/internal/entity"
)

// arenaActions are projects/arena's input actions.
var arenaActions = Actions{
	Axes: []Axis{
		{Name: "run", Negative: []string{"KeyA", "ArrowLeft"}, Positive: []string{"KeyD", "ArrowRight"}},
		{Name: "aim_x", Mouse: "x"},
		{Name: "aim_y", Mouse: "y"},
	},
	Buttons: []Button{
		{Name: "jump", Keys: []string{"Space", "KeyW", "ArrowUp"}},
		{Name: "fire", Keys: []string{"KeyF", "Enter"}, Mouse: "left"},
	},
}

// testServer is a Server on a free loopback port whose handled messages
// and ended connections can be waited for.
type testServer struct {
	*Server
	msgs   chan error    // one per message handled
	closes chan struct{} // one per connection ended
}

func startTest(t testing.TB, cfg Config) *testServer {
	t.Helper()
	ts := &testServer{msgs: make(chan error, 1024), closes: make(chan struct{}, 64)}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.Actions.Axes == nil && cfg.Actions.Buttons == nil {
		cfg.Actions = arenaActions
	}
	cfg.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	s, err := start(context.Background(), cfg, options{
		// Long enough that no test's stalled reader is ever timed out.
		writeTimeout: time.Hour,
		onMessage:    func(err error) { ts.msgs <- err },
		onClose:      func() { ts.closes <- struct{}{} },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	ts.Server = s
	return ts
}

// dialOpts are the options a page of the server's own origin dials with.
func (ts *testServer) dialOpts() *websocket.DialOptions {
	return &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://" + ts.Addr()}}}
}

func (ts *testServer) dial(t testing.TB) *websocket.Conn {
	t.Helper()
	return ts.dialWith(t, ts.dialOpts())
}

func (ts *testServer) dialWith(t testing.TB, opts *websocket.DialOptions) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.Dial(t.Context(), "ws://"+ts.Addr()+"/ws", opts)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	c.SetReadLimit(-1)
	t.Cleanup(func() { c.CloseNow() })
	return c
}

// read reads one message from the server and decodes it.
func read(t testing.TB, c *websocket.Conn) map[string]any {
	t.Helper()
	typ, b, err := c.Read(t.Context())
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if typ != websocket.MessageText {
		t.Fatalf("message type %v, want text", typ)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("message is not JSON: %v\n%s", err, b)
	}
	return m
}

func readKind(t testing.TB, c *websocket.Conn, kind string) map[string]any {
	t.Helper()
	m := read(t, c)
	if m["t"] != kind {
		t.Fatalf("got a %q message, want %q: %v", m["t"], kind, m)
	}
	return m
}

func TestPageServed(t *testing.T) {
	ts := startTest(t, Config{})
	for _, tc := range []struct {
		path, ctype, contains string
	}{
		{"/", "text/html; charset=utf-8", "<canvas"},
		{"/vkm.js", "text/javascript; charset=utf-8", "window.vkm"},
		{"/vkm.css", "text/css; charset=utf-8", "#game"},
		{"/vkm-hud.js", "text/javascript; charset=utf-8", "window.vkmHUD"},
		{"/favicon.ico", "image/png", "\x89PNG"},
		{"/vkm-controls.js", "text/javascript; charset=utf-8", "window.vkmControls"},
		{"/vkm-camera.js", "text/javascript; charset=utf-8", "window.vkmCamera"},
		{"/vkm-looks.js", "text/javascript; charset=utf-8", "window.vkmLooks"},
		{"/vkm-sprites.js", "text/javascript; charset=utf-8", "window.vkmSprites"},
		{"/vkm-sound.js", "text/javascript; charset=utf-8", "window.vkmSound"},
	} {
		resp, err := http.Get("http://" + ts.Addr() + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", tc.path, resp.Status)
		}
		if got := resp.Header.Get("Content-Type"); got != tc.ctype {
			t.Errorf("GET %s: Content-Type %q, want %q", tc.path, got, tc.ctype)
		}
		if resp.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("GET %s: no Content-Security-Policy", tc.path)
		}
		if !strings.Contains(string(body), tc.contains) {
			t.Errorf("GET %s: body lacks %q", tc.path, tc.contains)
		}
		if strings.Contains(string(body), "://") && tc.path != "/vkm.js" {
			t.Errorf("GET %s: the page names an external URL", tc.path)
		}
	}
	for path, want := range map[string]int{"/nothing": http.StatusNotFound, "/page/vkm.js": http.StatusNotFound} {
		resp, err := http.Get("http://" + ts.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %s, want %d", path, resp.Status, want)
		}
	}
}

func TestForeignHostRefused(t *testing.T) {
	ts := startTest(t, Config{})
	_, port, _ := net.SplitHostPort(ts.Addr())
	for host, want := range map[string]int{
		"evil.example:" + port:     http.StatusForbidden,
		"localhost:" + port:        http.StatusOK,
		"LOCALHOST:" + port:        http.StatusOK,
		"127.0.0.1:" + port:        http.StatusOK,
		"127.0.0.1:" + port + "x":  http.StatusForbidden,
		"127.0.0.1:1;script-src *": http.StatusForbidden,
	} {
		req, _ := http.NewRequest("GET", "http://"+ts.Addr()+"/", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %q: %s, want %d", host, resp.Status, want)
		}
	}
}

func TestOrigin(t *testing.T) {
	ts := startTest(t, Config{})
	for _, origin := range []string{"http://evil.example", "http://evil.example:" + strings.Split(ts.Addr(), ":")[1], "null"} {
		_, resp, err := websocket.Dial(t.Context(), "ws://"+ts.Addr()+"/ws", &websocket.DialOptions{
			HTTPHeader: http.Header{"Origin": {origin}},
		})
		if err == nil {
			t.Fatalf("origin %q was accepted", origin)
		}
		if resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("origin %q: %v, want 403", origin, err)
		}
	}
	c := ts.dial(t) // the page's own origin
	readKind(t, c, "hello")
	if got := ts.Stats().Refused; got != 3 {
		t.Errorf("Refused = %d, want 3", got)
	}
}

func TestConnectionLimit(t *testing.T) {
	ts := startTest(t, Config{})
	for range MaxConns {
		readKind(t, ts.dial(t), "hello")
	}
	_, resp, err := websocket.Dial(t.Context(), "ws://"+ts.Addr()+"/ws", ts.dialOpts())
	if err == nil {
		t.Fatalf("connection %d was accepted", MaxConns+1)
	}
	if resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("connection %d: %v, want 503", MaxConns+1, err)
	}
	if got := ts.Stats().Conns; got != MaxConns {
		t.Errorf("Conns = %d, want %d", got, MaxConns)
	}
}

func TestHelloSceneLinkFrame(t *testing.T) {
	ts := startTest(t, Config{OnLink: func(Link) {}})
	own := entity.ID{Slot: 20, Gen: 1}
	player := BodyOf(own, "player", &entity.BodyDef{Type: entity.Dynamic, Shapes: []entity.Shape{
		{Kind: entity.Box, W: 0.8, H: 1.6, Offset: entity.Vec2{Y: 0.1}},
	}})
	ts.SetScene(Scene{Bodies: []Body{player}})
	c := ts.dial(t)

	hello := readKind(t, c, "hello")
	axes := hello["axes"].([]any)
	if len(axes) != 3 || axes[0].(map[string]any)["name"] != "run" || axes[1].(map[string]any)["mouse"] != "x" {
		t.Errorf("hello axes = %v", axes)
	}
	scene := readKind(t, c, "scene")
	body := scene["bodies"].([]any)[0].(map[string]any)
	shape := body["shapes"].([]any)[0].(map[string]any)
	if body["id"] != float64(own.Pack()) || body["kind"] != "dynamic" || shape["k"] != "box" || shape["hx"] != 0.4 || shape["hy"] != 0.8 || shape["y"] != 0.1 {
		t.Errorf("scene = %v", scene)
	}
	link := readKind(t, c, "link")
	if link["enabled"] != true || link["latency_ms"] != 0.0 {
		t.Errorf("link = %v", link)
	}

	ts.Publish(Frame{
		Tick: 7, Own: own,
		Entities: []Pose{{ID: own, Transform: entity.Transform{X: 1.5, Y: 2, Angle: 0.25, Scale: 1}}},
		Dev:      []Stat{{"health", 75}},
		Net:      &NetStats{RTTms: 41.5, TickSpeed: 1},
		Ghost:    &entity.Transform{X: 1.6, Y: 2, Scale: 1},
		Leased:   []entity.ID{{Slot: 9, Gen: 2}},
	})
	f := readKind(t, c, "frame")
	if f["tick"] != 7.0 || f["own"] != float64(own.Pack()) {
		t.Errorf("frame = %v", f)
	}
	if e := f["e"].([]any)[0].([]any); e[1] != 1.5 || e[2] != 2.0 || e[3] != 0.25 {
		t.Errorf("frame pose = %v", e)
	}
	if f["net"].(map[string]any)["rtt_ms"] != 41.5 || f["dev"].([]any)[0].([]any)[0] != "health" {
		t.Errorf("frame net/hud = %v %v", f["net"], f["dev"])
	}

	// The same scene again sends nothing; a new one is sent before the
	// next frame.
	ts.SetScene(Scene{Bodies: []Body{player}})
	ts.SetScene(Scene{Bodies: []Body{player, {ID: entity.ID{Slot: 9, Gen: 2}, Name: "crate"}}})
	ts.SetLink(Link{Latency: 5 * time.Second, Loss: 0.02})
	ts.Publish(Frame{Tick: 8})
	if got := len(readKind(t, c, "scene")["bodies"].([]any)); got != 2 {
		t.Errorf("scene has %d bodies, want 2", got)
	}
	if l := readKind(t, c, "link"); l["latency_ms"] != 1000.0 || l["loss_pct"] != 2.0 {
		t.Errorf("link = %v, want clamped to 1000 ms, 2 %%", l)
	}
	if f := readKind(t, c, "frame"); f["tick"] != 8.0 {
		t.Errorf("frame = %v", f)
	}

	// The board goes out once, before the next frame, and again only
	// when it changes.
	board := Board{Columns: []string{"Score.kills"}, Rows: []BoardRow{{Name: "ann", Own: true, RTTms: 40, Values: []float64{3}}}}
	ts.SetBoard(board)
	ts.SetBoard(board)
	ts.Publish(Frame{Tick: 9})
	if b := readKind(t, c, "board"); len(b["rows"].([]any)) != 1 {
		t.Errorf("board = %v", b)
	}
	if f := readKind(t, c, "frame"); f["tick"] != 9.0 {
		t.Errorf("frame = %v, want tick 9 right after the board", f)
	}
	board.Rows[0].Values[0] = 4
	ts.SetBoard(board)
	ts.Publish(Frame{Tick: 10})
	if b := readKind(t, c, "board"); b["rows"].([]any)[0].(map[string]any)["v"].([]any)[0] != 4.0 {
		t.Errorf("board = %v, want 4 kills", b)
	}
	readKind(t, c, "frame")

	// The corrections list, the same way: once, then on a change.
	list := []Correction{{Tick: 476, Entity: "9#1", What: "pose", Size: 12.5, Cause: "shove", Touched: true}}
	ts.SetCorrections(list)
	ts.SetCorrections(list)
	ts.Publish(Frame{Tick: 11})
	got := readKind(t, c, "corrections")["list"].([]any)
	if len(got) != 1 || fmt.Sprint(got[0]) != "[476 9#1 pose 12.5 shove true]" {
		t.Errorf("corrections = %v", got)
	}
	if f := readKind(t, c, "frame"); f["tick"] != 11.0 {
		t.Errorf("frame = %v, want tick 11 right after the corrections", f)
	}
	ts.SetCorrections(append(list, Correction{Tick: 480, Entity: "9#1", What: "Health.hp", Size: 40, Cause: "component"}))
	ts.Publish(Frame{Tick: 12})
	if got := readKind(t, c, "corrections")["list"].([]any); len(got) != 2 {
		t.Errorf("corrections = %v, want 2", got)
	}
}

// bigFrame is a frame of n entities, about 40 bytes each on the wire.
func bigFrame(tick uint32, n int) Frame {
	f := Frame{Tick: tick, Own: entity.ID{Slot: 1, Gen: 1}, Entities: make([]Pose, n)}
	for i := range f.Entities {
		f.Entities[i] = Pose{ID: entity.ID{Slot: uint32(i + 1), Gen: 1}, Transform: entity.Transform{X: float64(i) + 0.123, Y: -7.5, Angle: 1.2345, Scale: 1}}
	}
	return f
}

// smallReceiveBuffer dials with a tiny TCP receive buffer, so that a reader
// that stops reading backs the server up after a few frames.
var smallReceiveBuffer = &http.Client{Transport: &http.Transport{
	DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := new(net.Dialer).DialContext(ctx, network, addr)
		if err == nil {
			err = c.(*net.TCPConn).SetReadBuffer(4096)
		}
		return c, err
	},
}}

func TestStalledPageNeverBlocksPublish(t *testing.T) {
	ts := startTest(t, Config{})
	stalled := ts.dialWith(t, &websocket.DialOptions{
		HTTPClient: smallReceiveBuffer,
		HTTPHeader: http.Header{"Origin": {"http://" + ts.Addr()}},
	})
	readKind(t, stalled, "hello") // it is connected; now it reads nothing more
	live := ts.dial(t)
	readKind(t, live, "hello")
	readKind(t, live, "link")

	// About 50 MB of frames: far more than the loopback's socket buffers
	// hold, so the stalled page's writer is blocked long before the end.
	const frames, entities = 2000, 600
	got := make(chan uint32, 1)
	go func() {
		for {
			_, b, err := live.Read(t.Context())
			if err != nil {
				return
			}
			var f struct{ Tick uint32 }
			if json.Unmarshal(b, &f) == nil && f.Tick == frames {
				got <- f.Tick
				return
			}
		}
	}()
	for i := range frames {
		ts.Publish(bigFrame(uint32(i+1), entities))
	}
	st := ts.Stats()
	t.Logf("published %d, sent %d, dropped %d", st.Published, st.Sent, st.Dropped)
	if st.Published != frames {
		t.Errorf("Published = %d, want %d", st.Published, frames)
	}
	if st.Dropped == 0 {
		t.Errorf("no frame was dropped for the stalled page")
	}
	// Each page either was sent a frame, dropped it, or holds it (at most
	// one pending and one being written per page).
	if st.Sent+st.Dropped+4 < 2*frames {
		t.Errorf("sent %d + dropped %d falls short of %d offered", st.Sent, st.Dropped, 2*frames)
	}
	// The live page still gets the newest frame.
	if tick := <-got; tick != frames {
		t.Errorf("live page's last frame is tick %d, want %d", tick, frames)
	}
}

func TestCloseEndsConnections(t *testing.T) {
	ts := startTest(t, Config{})
	c := ts.dial(t)
	readKind(t, c, "hello")
	if err := ts.Close(); err != nil {
		t.Fatal(err)
	}
	<-ts.closes
	for {
		if _, _, err := c.Read(t.Context()); err != nil {
			break
		}
	}
	if _, _, err := websocket.Dial(t.Context(), "ws://"+ts.Addr()+"/ws", ts.dialOpts()); err == nil {
		t.Error("a closed server accepted a connection")
	}
	ts.Publish(bigFrame(1, 1)) // harmless after Close
}

func TestStartNeedsAddr(t *testing.T) {
	if _, err := Start(t.Context(), Config{}); err == nil {
		t.Error("Start with no address succeeded")
	}
}

func TestStartContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	s, err := Start(ctx, Config{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	addr := s.Addr()
	cancel()
	s.Close() // waits for the shutdown the context started
	if _, err := http.Get("http://" + addr + "/"); err == nil {
		t.Error("the page is still served after the context ended")
	}
}

// TestPageScript runs the page's script under node with a stand-in browser
// (testdata/pagecheck.js), when node is installed.
func TestPageScript(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	out, err := exec.CommandContext(t.Context(), node, "testdata/pagecheck.js", "page/vkm-hud.js", "page/vkm-controls.js", "page/vkm-camera.js", "page/vkm-looks.js", "page/vkm-sprites.js", "page/vkm-sound.js", "page/vkm.js").CombinedOutput()
	if err != nil {
		t.Fatalf("pagecheck: %v\n%s", err, out)
	}
	if strings.TrimSpace(string(out)) != "ok" {
		t.Errorf("pagecheck printed %q", out)
	}
}

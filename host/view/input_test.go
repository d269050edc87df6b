package view

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestParseMessage(t *testing.T) {
	ix := newActionIndex(&arenaActions)
	for _, tc := range []struct {
		name  string
		in    string
		err   bool
		axes  []axisValue
		held  []buttonValue
		link  linkUpdate
		isLnk bool
	}{
		{name: "input", in: `{"t":"input","axes":{"run":-1},"held":{"jump":true}}`,
			axes: []axisValue{{0, -1}}, held: []buttonValue{{0, true}}},
		{name: "unknown actions left out", in: `{"t":"input","axes":{"fly":1,"aim_y":0.5},"held":{"dance":true,"fire":false}}`,
			axes: []axisValue{{2, 0.5}}, held: []buttonValue{{1, false}}},
		{name: "clamped", in: `{"t":"input","axes":{"run":7.5,"aim_x":-1e300}}`,
			axes: []axisValue{{0, 1}, {1, -1}}},
		{name: "extra fields ignored", in: `{"t":"input","axes":{},"x":[1,2]}`},
		{name: "NaN is not JSON", in: `{"t":"input","axes":{"run":NaN}}`, err: true},
		{name: "infinity", in: `{"t":"input","axes":{"run":1e999}}`, err: true},
		{name: "axis not a number", in: `{"t":"input","axes":{"run":"1"}}`, err: true},
		{name: "held not a bool", in: `{"t":"input","held":{"jump":1}}`, err: true},
		{name: "unknown kind", in: `{"t":"teleport"}`, err: true},
		{name: "no kind", in: `{"axes":{"run":1}}`, err: true},
		{name: "garbage", in: "\x00\xff{{", err: true},
		{name: "empty", in: ``, err: true},
		{name: "array", in: `[1,2,3]`, err: true},
		{name: "truncated", in: `{"t":"input","axes":{"run":`, err: true},
		{name: "link", in: `{"t":"link","latency_ms":80.5,"jitter_ms":10,"loss_pct":2}`, isLnk: true,
			link: linkUpdate{latency: 80500 * time.Microsecond, jitter: 10 * time.Millisecond, loss: 0.02, hasLat: true, hasJit: true, hasLoss: true}},
		{name: "link clamped", in: `{"t":"link","latency_ms":5000,"jitter_ms":-4,"loss_pct":90}`, isLnk: true,
			link: linkUpdate{latency: MaxLatency, jitter: 0, loss: MaxLoss, hasLat: true, hasJit: true, hasLoss: true}},
		{name: "link partial", in: `{"t":"link","loss_pct":1}`, isLnk: true,
			link: linkUpdate{loss: 0.01, hasLoss: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := parseMessage([]byte(tc.in), ix)
			if tc.err {
				if err == nil {
					t.Fatalf("parsed %q: %+v", tc.in, m)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.isLnk {
				if m.kind != msgLink || m.link != tc.link {
					t.Errorf("link = %+v, want %+v", m.link, tc.link)
				}
				return
			}
			sortAxes(m.axes)
			if m.kind != msgInput || !slices.Equal(m.axes, tc.axes) || !slices.Equal(m.held, tc.held) {
				t.Errorf("got axes %v held %v, want %v %v", m.axes, m.held, tc.axes, tc.held)
			}
		})
	}
}

func sortAxes(a []axisValue) {
	slices.SortFunc(a, func(x, y axisValue) int { return x.i - y.i })
}

func TestInputEdges(t *testing.T) {
	in := newInputState(&arenaActions)
	page := &conn{}
	jump := func(down bool) *message {
		return &message{kind: msgInput, held: []buttonValue{{0, down}}}
	}
	// A tap between two takes is a press, though no longer held.
	in.apply(page, jump(true))
	in.apply(page, jump(false))
	_, held, pressed := in.take()
	if held[0] || !pressed[0] {
		t.Errorf("after a tap: held %v pressed %v, want not held, pressed", held, pressed)
	}
	if _, _, pressed = in.take(); pressed[0] {
		t.Error("a press was reported twice")
	}
	// Held across takes is pressed once.
	in.apply(page, jump(true))
	in.apply(page, jump(true)) // the page repeats its state
	_, held, pressed = in.take()
	if !held[0] || !pressed[0] {
		t.Errorf("held %v pressed %v, want held and pressed", held, pressed)
	}
	_, held, pressed = in.take()
	if !held[0] || pressed[0] {
		t.Errorf("still held: held %v pressed %v, want held, not pressed", held, pressed)
	}
	// Two presses between takes are still one pressed edge.
	in.apply(page, jump(false))
	in.apply(page, jump(true))
	in.apply(page, jump(false))
	in.apply(page, jump(true))
	if _, _, pressed = in.take(); !pressed[0] {
		t.Error("presses between takes were lost")
	}
}

func TestInputRelease(t *testing.T) {
	in := newInputState(&arenaActions)
	a, b := &conn{}, &conn{}
	in.apply(a, &message{kind: msgInput, axes: []axisValue{{0, 1}}, held: []buttonValue{{1, true}}})
	in.release(b) // b does not drive the input
	if axes, held, _ := in.take(); axes[0] != 1 || !held[1] {
		t.Fatalf("released by a page that did not drive: %v %v", axes, held)
	}
	in.release(a)
	axes, held, _ := in.take()
	if slices.ContainsFunc(axes, func(v float64) bool { return v != 0 }) || slices.Contains(held, true) {
		t.Errorf("after release: axes %v held %v", axes, held)
	}
}

// send writes text to the server and waits until it has been handled,
// returning the error it was ignored with.
func (ts *testServer) send(t testing.TB, c *websocket.Conn, typ websocket.MessageType, text string) error {
	t.Helper()
	if err := c.Write(t.Context(), typ, []byte(text)); err != nil {
		t.Fatal(err)
	}
	return <-ts.msgs
}

func TestInputOverWebSocket(t *testing.T) {
	ts := startTest(t, Config{})
	c := ts.dial(t)
	must := func(text string) {
		t.Helper()
		if err := ts.send(t, c, websocket.MessageText, text); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
	}
	must(`{"t":"input","axes":{"run":1,"aim_x":0.6,"aim_y":0.8},"held":{"jump":true,"fire":false}}`)
	must(`{"t":"input","axes":{"run":-3,"warp":1},"held":{"jump":false,"teleport":true}}`)
	for _, bad := range []string{`{"t":"input","axes":{"run":NaN}}`, `{"t":"input","axes":{"run":-1e999}}`, `}{`, `{"t":"link","latency_ms":5}`} {
		if err := ts.send(t, c, websocket.MessageText, bad); err == nil {
			t.Errorf("%s was not ignored", bad)
		}
	}
	if err := ts.send(t, c, websocket.MessageBinary, `{"t":"input","held":{"fire":true}}`); err == nil {
		t.Error("a binary message was not ignored")
	}
	axes, held, pressed := ts.TakeInput()
	if !slices.Equal(axes, []float64{-1, 0.6, 0.8}) || !slices.Equal(held, []bool{false, false}) || !slices.Equal(pressed, []bool{true, false}) {
		t.Errorf("TakeInput = %v %v %v", axes, held, pressed)
	}
	if got := ts.Stats().Bad; got != 5 {
		t.Errorf("Bad = %d, want 5", got)
	}

	// Hold fire, then send more than the read limit: the connection is
	// closed, which releases what it held.
	must(`{"t":"input","held":{"fire":true}}`)
	big := `{"t":"input","axes":{"run":1},"pad":"` + strings.Repeat("x", maxMessageBytes) + `"}`
	if err := c.Write(t.Context(), websocket.MessageText, []byte(big)); err != nil {
		t.Fatal(err)
	}
	<-ts.closes
	if _, _, err := c.Read(t.Context()); websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		// The hello and link may come first.
		for err == nil {
			_, _, err = c.Read(t.Context())
		}
		if websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
			t.Errorf("oversized message: %v, want close status %v", err, websocket.StatusMessageTooBig)
		}
	}
	axes, held, pressed = ts.TakeInput()
	if !slices.Equal(axes, []float64{0, 0, 0}) || !slices.Equal(held, []bool{false, false}) || !slices.Equal(pressed, []bool{false, true}) {
		t.Errorf("after the page went: TakeInput = %v %v %v", axes, held, pressed)
	}
}

func TestLinkOverWebSocket(t *testing.T) {
	links := make(chan Link, 4)
	ts := startTest(t, Config{OnLink: func(l Link) { links <- l }})
	c := ts.dial(t)
	readKind(t, c, "hello")
	readKind(t, c, "link")
	if err := ts.send(t, c, websocket.MessageText, `{"t":"link","latency_ms":5000,"jitter_ms":20,"loss_pct":75}`); err != nil {
		t.Fatal(err)
	}
	want := Link{Latency: MaxLatency, Jitter: 20 * time.Millisecond, Loss: MaxLoss}
	if got := <-links; got != want {
		t.Errorf("OnLink got %+v, want %+v", got, want)
	}
	if m := readKind(t, c, "link"); m["latency_ms"] != 1000.0 || m["jitter_ms"] != 20.0 || m["loss_pct"] != 50.0 {
		t.Errorf("link message = %v", m)
	}
	// A setting the page leaves out keeps its value.
	if err := ts.send(t, c, websocket.MessageText, `{"t":"link","loss_pct":1}`); err != nil {
		t.Fatal(err)
	}
	want.Loss = 0.01
	if got := <-links; got != want {
		t.Errorf("OnLink got %+v, want %+v", got, want)
	}
}

func TestSetLinkClamps(t *testing.T) {
	ts := startTest(t, Config{})
	ts.SetLink(Link{Latency: -time.Second, Jitter: time.Hour, Loss: math.NaN()})
	ts.mu.Lock()
	got := ts.link
	ts.mu.Unlock()
	if want := (Link{Jitter: MaxJitter}); got != want {
		t.Errorf("link = %+v, want %+v", got, want)
	}
}

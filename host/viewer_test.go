package host

import (
	"context"
	"encoding/json"
	"math"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/coder/websocket"

	"vkm/host/bot"
	"vkm/host/game"
	"vkm/host/project"
	"vkm/host/session"
	"vkm/internal/entity"
	"vkm/transport"
	"vkm/transport/memnet"
)

// TestViewStreamsTheDrawnPicture reads the view's WebSocket while a client
// watches another player run: the poses it carries are what the client
// draws (interpolated, behind the server's newest word), not the raw
// component values the store holds.
func TestViewStreamsTheDrawnPicture(t *testing.T) {
	const seed = 5
	h := serveInProcess(t, loadArena(t))
	watcher := h.join(memnet.Broadband, seed, nil)
	b, err := bot.New("wander", seed+1, len(h.p.Axes), len(h.p.Buttons))
	if err != nil {
		t.Fatal(err)
	}
	runner := h.join(memnet.Broadband, seed+1, b)
	for range 1000 { // two seconds of 2 ms frames
		h.step()
	}
	other := runner.c.Game().Own()
	if !watcher.c.Playing() || other.IsNone() {
		t.Fatal("the two clients are not playing")
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wg := watcher.c.Game()
	v, err := startViewer(ctx, PlayConfig{Project: wg.Project(), View: "127.0.0.1:0"}, wg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.close()
	v.c, v.now = watcher.c, func() transport.Time { return h.now }
	ws, _, err := websocket.Dial(ctx, "ws://"+v.srv.Addr()+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	// The socket is open before the page takes frames; a frame published
	// in between would reach it never (and the read below would wait for
	// it in vain).
	for deadline := time.Now().Add(10 * time.Second); v.srv.Pages() == 0; runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatal("the page never took frames")
		}
	}

	differ := 0
	for i := 0; i < 40; i++ {
		h.step()
		var drawn entity.Transform
		watcher.c.Drawn(func() { drawn = *wg.Store().Transform(other) })
		raw := *wg.Store().Transform(other)
		v.publish()
		pose, ok := readPose(t, ctx, ws, other)
		if !ok {
			t.Fatalf("frame %d carries no pose for %v", i, other)
		}
		if math.Abs(pose.X-drawn.X) > 1e-4 || math.Abs(pose.Y-drawn.Y) > 1e-4 {
			t.Fatalf("frame %d: streamed %+v, drawn %+v (raw %+v)", i, pose, drawn, raw)
		}
		if math.Abs(raw.X-drawn.X) > 1e-3 || math.Abs(raw.Y-drawn.Y) > 1e-3 {
			differ++
		}
	}
	t.Logf("seed %d: 40 frames streamed the drawn pose; in %d of them it differed from the raw value", seed, differ)
	if differ == 0 {
		t.Fatal("the drawn and raw poses never differed: the test saw nothing")
	}
}

// readPose reads messages until a frame arrives and returns id's pose in it.
func readPose(t *testing.T, ctx context.Context, ws *websocket.Conn, id entity.ID) (entity.Transform, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			T string      `json:"t"`
			E [][]float64 `json:"e"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m.T != "frame" {
			continue
		}
		for _, e := range m.E {
			if len(e) >= 5 && e[0] == id.Pack() {
				return entity.Transform{X: e[1], Y: e[2], Angle: e[3], Scale: e[4]}, true
			}
		}
		return entity.Transform{}, false
	}
}

// inProcess is a server session and its clients in one process over the
// link simulator's pipes, stepped 2 ms a frame on a synthetic clock, as
// the sessions' own tests run them.
type inProcess struct {
	t     *testing.T
	p     *project.Project
	srv   *session.Server
	now   transport.Time
	peers []*inPeer
}

type inPeer struct {
	c     *session.Client
	addr  netip.AddrPort
	pipe  *memnet.Pipe // AtoB: to the server; BtoA: to the client
	input game.Input
}

func serveInProcess(t *testing.T, p *project.Project) *inProcess {
	t.Helper()
	s, err := session.NewServer(session.ServerConfig{Project: p, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &inProcess{t: t, p: p, srv: s}
}

// join adds a client playing over profile with the seed, driven by input.
func (h *inProcess) join(profile memnet.Profile, seed uint64, input game.Input) *inPeer {
	h.t.Helper()
	c, err := session.NewClient(session.ClientConfig{Project: h.p, Logger: testLogger(h.t), Now: h.now})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(c.Close)
	pipe, err := memnet.NewPipe(profile, seed)
	if err != nil {
		h.t.Fatal(err)
	}
	n := len(h.peers) + 1
	pr := &inPeer{c: c, addr: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(n)}), 40000), pipe: pipe, input: input}
	h.peers = append(h.peers, pr)
	return pr
}

// step runs one 2 ms frame of every end and carries what they sent.
func (h *inProcess) step() {
	const frame = 2 * time.Millisecond
	h.now += transport.Time(frame)
	for _, p := range h.peers {
		for b, ok := p.pipe.AtoB.Receive(h.now); ok; b, ok = p.pipe.AtoB.Receive(h.now) {
			h.srv.Receive(p.addr, b, h.now)
		}
	}
	h.srv.Advance(frame, h.now)
	for to, b, ok := h.srv.Net().NextDatagram(); ok; to, b, ok = h.srv.Net().NextDatagram() {
		for _, p := range h.peers {
			if p.addr == to {
				p.pipe.BtoA.Send(b, h.now)
			}
		}
	}
	for _, p := range h.peers {
		for b, ok := p.pipe.BtoA.Receive(h.now); ok; b, ok = p.pipe.BtoA.Receive(h.now) {
			p.c.Receive(b, h.now)
		}
		p.c.Frame(frame, p.input, nil, h.now)
		for b, ok := p.c.Net().NextDatagram(); ok; b, ok = p.c.Net().NextDatagram() {
			p.pipe.AtoB.Send(b, h.now)
		}
	}
}

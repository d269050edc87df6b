package host

import (
	"context"
	"encoding/json"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/coder/websocket"

	"vkm/internal/entity"
	"vkm/transport/memnet"
)

// TestViewStreamsTheDrawnPicture reads the view's WebSocket while a client
// watches another player run: the poses it carries are what the client
// draws (interpolated, behind the server's newest word), not the raw
// component values the store holds.
func TestViewStreamsTheDrawnPicture(t *testing.T) {
	const seed = 5
	h := newHarness(t, loadArena(t))
	watcher := h.seated(memnet.Broadband, seed, false)
	runner := h.seated(memnet.Broadband, seed+1, true)
	other := runner.c.game.Own()
	h.run(2 * time.Second)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wg := watcher.c.game
	v, err := startViewer(ctx, PlayConfig{Project: wg.Project(), View: "127.0.0.1:0"}, wg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.close()
	v.c = watcher.c
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

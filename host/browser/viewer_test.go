package browser

import (
	"context"
	"encoding/json"
	"math"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"vkm/host/bot"
	"vkm/host/game"
	"vkm/host/project"
	"vkm/host/session"
	"vkm/host/view"
	"vkm/host/watch"
	"vkm/internal/entity"
	"vkm/prediction"
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
	v, err := StartViewer(ctx, "127.0.0.1:0", wg, ViewerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	v.Watch(watcher.c, func() transport.Time { return h.now })
	ws, _, err := websocket.Dial(ctx, "ws://"+v.srv.(*view.Server).Addr()+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	// The socket is open before the page takes frames; a frame published
	// in between would reach it never (and the read below would wait for
	// it in vain).
	for deadline := time.Now().Add(10 * time.Second); v.srv.(*view.Server).Pages() == 0; runtime.Gosched() {
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
		v.Publish()
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
	dev   bool // a dev server, whose clients join with --dev
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

// serveDevInProcess is serveInProcess with a dev server (watching p's
// folder) whose clients join with --dev.
func serveDevInProcess(t *testing.T, p *project.Project) *inProcess {
	t.Helper()
	w, err := watch.New(p.FS)
	if err != nil {
		t.Fatal(err)
	}
	s, err := session.NewServer(session.ServerConfig{Project: p, Logger: testLogger(t), Changes: w})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &inProcess{t: t, p: p, srv: s, dev: true}
}

// join adds a client playing over profile with the seed, driven by input.
func (h *inProcess) join(profile memnet.Profile, seed uint64, input game.Input) *inPeer {
	h.t.Helper()
	c, err := session.NewClient(session.ClientConfig{Project: h.p, Logger: testLogger(h.t), Now: h.now, Dev: h.dev})
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

// TestViewerBoardAndLooks: a watcher's page is told, on the scoreboard,
// both players in score order with the arena's Score columns and, below,
// the clock of a round the test adds to the arena; and, in the scene,
// each player's character with its role and the player's name as its
// label, and the pickups with the look their prefab gives them.
func TestViewerBoardAndLooks(t *testing.T) {
	h := serveInProcess(t, arenaWithRound(t))
	watcher := h.join(memnet.Broadband, 3, nil)
	runner := h.join(memnet.Broadband, 4, nil)
	for range 1000 { // two seconds of 2 ms frames
		h.step()
	}
	wg := watcher.c.Game()
	other := runner.c.Game().Own()
	if !watcher.c.Playing() || other.IsNone() || len(wg.Players()) != 2 {
		t.Fatalf("the two clients are not playing (players %v)", wg.Players())
	}
	// The runner has three kills on the server: it heads the board.
	srv := h.srv.Game()
	srv.Store().Component(other, srv.Schema().Index("Score"))[0] = 3
	for range 200 {
		h.step()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v, err := StartViewer(ctx, "127.0.0.1:0", wg, ViewerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	v.Watch(watcher.c, func() transport.Time { return h.now })
	v.updateBoard()
	b := v.board
	names := map[entity.ID]string{}
	for _, p := range wg.Players() {
		names[p.Entity] = p.Name
	}
	if len(b.Rows) != 2 || b.Rows[0].Name != names[other] || b.Rows[0].Own || !b.Rows[1].Own || b.Rows[0].Values[0] != 3 {
		t.Errorf("rows %+v; want %s (3 kills) first, then the watcher's own", b.Rows, names[other])
	}
	if len(b.Columns) != 2 || b.Columns[0] != "Score.kills" || b.Columns[1] != "Score.deaths" {
		t.Errorf("columns %v", b.Columns)
	}
	if len(b.State) != 1 || b.State[0].Label != "round Round.left" || b.State[0].Value < 170 || b.State[0].Value > 180 {
		t.Errorf("state %v; want the round's seconds left", b.State)
	}

	ws, _, err := websocket.Dial(ctx, "ws://"+v.srv.(*view.Server).Addr()+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	v.updateScene()
	rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
	defer rcancel()
	for {
		_, msg, err := ws.Read(rctx)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			T      string `json:"t"`
			Bodies []struct {
				ID    float64 `json:"id"`
				Label string  `json:"label"`
				Role  string  `json:"role"`
				Color string  `json:"color"`
				Order int     `json:"order"`
				Name  string  `json:"name"`
			} `json:"bodies"`
		}
		if err := json.Unmarshal(msg, &m); err != nil {
			t.Fatal(err)
		}
		if m.T != "scene" {
			continue
		}
		roles := map[string]int{}
		for _, bd := range m.Bodies {
			roles[bd.Role]++
			switch {
			case bd.ID == other.Pack() && (bd.Role != "player" || bd.Label != names[other]):
				t.Errorf("the other player's body: %+v; want role player, label %q", bd, names[other])
			case bd.ID == wg.Own().Pack() && (bd.Role != "own" || bd.Label != names[wg.Own()]):
				t.Errorf("the own body: %+v; want role own, label %q", bd, names[wg.Own()])
			case bd.Name == "pickup" && (bd.Color != "#5dff8a" || bd.Label != "+25" || bd.Order != 1):
				t.Errorf("a pickup: %+v; want the look of prefabs/pickup.toml", bd)
			}
		}
		if roles["own"] != 1 || roles["player"] != 1 {
			t.Errorf("roles %v; want one own and one other player", roles)
		}
		return
	}
}

// roundScript counts rounds on a scene entity, as docs/lua.md's example
// does, and keeps the whole seconds left in Round.left.
const roundScript = `
local Round = {}
function Round:on_fixed_update(dt)
  if not self:is_simulated() then return end
  if self:get("Round", "ends") == 0 or self:remaining("Round", "ends") == 0 then
    self:set("Round", "ends", vkm.after(180))
  end
  self:set("Round", "left", math.ceil(self:remaining("Round", "ends")))
end
return Round
`

// arenaWithRound is a copy of the arena with a round clock on a scene
// entity of its own, and the clock's seconds on the scoreboard.
func arenaWithRound(t *testing.T) *project.Project {
	t.Helper()
	dir := copyProject(t, filepath.Join(projects, "arena"))
	edit := func(name, old, new string) {
		t.Helper()
		file := filepath.Join(dir, filepath.FromSlash(name))
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if old != "" && !strings.Contains(string(data), old) {
			t.Fatalf("%s no longer holds %q", name, old)
		}
		out := string(data) + new
		if old != "" {
			out = strings.Replace(string(data), old, old+new, 1)
		}
		if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "scripts", "round.lua"), []byte(roundScript), 0o644); err != nil {
		t.Fatal(err)
	}
	edit("scripts/main.lua", "function vkmRegisterBehaviors(r)\n", "  r.round = import(\"scripts/round.lua\")\n")
	edit("scripts/main.lua", "function vkmSetupNetwork(net)\n",
		"  net.component(\"Round\", { {\"ends\", net.int(0, 4294967295)}, {\"left\", net.int(0, 3600)} })\n")
	edit("scenes/arena.toml", "", "\n[[entity]]\nid = 45\nname = \"round\"\nbehavior = \"round\"\n[entity.components.Round]\n")
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	p.Scoreboard = append(p.Scoreboard, "Round.left")
	return p
}

// fireOnce is a player's input that presses fire (the arena's second
// button) for one command when armed.
type fireOnce struct{ armed bool }

func (f *fireOnce) Next() prediction.Command {
	var c prediction.Command
	if f.armed {
		c.Held, c.Pressed = 1<<1, 1<<1
		f.armed = false
	}
	return c
}

// TestViewerShowsTheOwnShotAtOnce: on a link whose round trip is some
// 120 ms, the page's frame right after the tick that ran the fire button
// already carries the player's shot: the client shows its own predicted
// shot, not the server's answer.
func TestViewerShowsTheOwnShotAtOnce(t *testing.T) {
	const seed = 7
	h := serveInProcess(t, loadArena(t))
	in := &fireOnce{}
	pl := h.join(memnet.Mobile, seed, in)
	for range 1500 { // three seconds of 2 ms frames: seated and landed
		h.step()
	}
	if !pl.c.Playing() {
		t.Fatal("the client is not playing")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := pl.c.Game()
	v, err := StartViewer(ctx, "127.0.0.1:0", g, ViewerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	v.Watch(pl.c, func() transport.Time { return h.now })
	ws, _, err := websocket.Dial(ctx, "ws://"+v.srv.(*view.Server).Addr()+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	for deadline := time.Now().Add(10 * time.Second); v.srv.(*view.Server).Pages() == 0; runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatal("the page never took frames")
		}
	}

	in.armed = true
	tick := g.Tick()
	for g.Tick() == tick {
		h.step()
	}
	if in.armed {
		t.Fatal("the tick did not take the command")
	}
	v.Publish()
	rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
	defer rcancel()
	for {
		_, b, err := ws.Read(rctx)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			T  string  `json:"t"`
			FX [][]any `json:"fx"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m.T != "frame" {
			continue
		}
		shots := 0
		for _, e := range m.FX {
			if len(e) > 1 && e[1] == "shot" {
				shots++
			}
		}
		t.Logf("seed %d: round trip %v; the frame after tick %d carries %d effects, %d of them shots",
			seed, pl.c.Net().Conn().RTT(), g.Tick(), len(m.FX), shots)
		if shots != 1 {
			t.Fatalf("the frame after the fire button's tick carries %d shots, want 1", shots)
		}
		return
	}
}

package browser

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"vkm/host/project"
	"vkm/host/view"
	"vkm/transport"
	"vkm/transport/memnet"
)

// TestViewerHUD fills the project's HUD in from what the watching client's
// store holds: its own fields, the round's from the scene entity that
// keeps it, and a line for each player in the scoreboard's order.
func TestViewerHUD(t *testing.T) {
	p := arenaWithRound(t)
	tpl := func(s string) project.Template {
		tp, err := project.ParseTemplate(s)
		if err != nil {
			t.Fatal(err)
		}
		return tp
	}
	p.HUD = []project.HUDItem{
		{At: "top-left", From: "own", Text: tpl("{Score.kills} kills, {Nope.x} nope")},
		{At: "top", From: "game", Text: tpl("{Round.left} s")},
		{At: "bottom-left", From: "own", Bar: project.Ref{Type: "Health", Field: "hp"}, Max: 100, Label: "hp"},
		{At: "top-right", List: tpl("{name}: {Score.kills}"), Label: "players"},
		{At: "center", Scoreboard: true},
	}
	h := serveInProcess(t, p)
	watcher := h.join(memnet.Broadband, 3, nil)
	runner := h.join(memnet.Broadband, 4, nil)
	for range 1000 {
		h.step()
	}
	wg := watcher.c.Game()
	other := runner.c.Game().Own()
	if !watcher.c.Playing() || other.IsNone() {
		t.Fatal("the two clients are not playing")
	}
	srv := h.srv.Game()
	srv.Store().Component(other, srv.Schema().Index("Score"))[0] = 3
	for range 200 {
		h.step()
	}
	v := newViewer(wg, &fakePage{}, ViewerConfig{})
	v.Watch(watcher.c, func() transport.Time { return h.now })
	v.updateBoard()
	got := v.hud(nil)
	if len(got) != 5 {
		t.Fatalf("%d items, want 5: %+v", len(got), got)
	}
	if got[0].Kind != "text" || got[0].Text != "0 kills, \u2013 nope" {
		t.Errorf("own text %+v; want %q", got[0], "0 kills, \u2013 nope")
	}
	left, err := strconv.Atoi(strings.TrimSuffix(got[1].Text, " s"))
	if got[1].At != "top" || err != nil || left < 170 || left > 180 {
		t.Errorf("round text %+v; want the round's seconds left", got[1])
	}
	if got[2].Kind != "bar" || got[2].Value != 100 || got[2].Max != 100 || got[2].Text != "hp" {
		t.Errorf("bar %+v; want a full health bar", got[2])
	}
	var otherName string
	for _, pl := range wg.Players() {
		if pl.Entity == other {
			otherName = pl.Name
		}
	}
	if l := got[3].Lines; got[3].Kind != "list" || len(l) != 2 || l[0] != otherName+": 3" || !strings.HasSuffix(l[1], ": 0") {
		t.Errorf("list %+v; want %s: 3 first", got[3], otherName)
	}
	// The scoreboard kept on screen: each player's line in the board's
	// order, the own one marked, then the game's state.
	sb := got[4]
	t.Logf("the scoreboard item: %q", sb.Lines)
	if sb.Kind != "list" || sb.Text != "scoreboard" || len(sb.Lines) != 2+len(v.board.State) ||
		!strings.HasPrefix(sb.Lines[0], otherName+"  3") || !strings.HasPrefix(sb.Lines[1], "\u25b8 ") || !strings.HasSuffix(sb.Lines[1], " ms") {
		t.Errorf("scoreboard %+v; want %s's line with 3 first, the own marked second", sb, otherName)
	}
}

func TestFormatHUD(t *testing.T) {
	for x, want := range map[float64]string{3: "3", -2: "-2", 0.5: "0.5", 1.23456: "1.23", math.Inf(1): "\u2013", 1e20: "100000000000000000000"} {
		if got := formatHUD(x); got != want {
			t.Errorf("formatHUD(%v) = %q, want %q", x, got, want)
		}
	}
	if got := formatHUD(math.NaN()); got != "\u2013" {
		t.Errorf("formatHUD(NaN) = %q", got)
	}
}

// fakePage is a page that keeps what it is sent.
type fakePage struct {
	frames []view.Frame
	board  view.Board
}

// Publish keeps a copy of fr: a Viewer reuses its frame's arrays from one
// frame to the next, as a page (view.Sink, view.Server) reads a frame only
// while Publish runs, so a kept frame that shared them would later show
// what the Viewer wrote since.
func (f *fakePage) Publish(fr view.Frame) {
	fr.Entities = slices.Clone(fr.Entities)
	fr.Dev = slices.Clone(fr.Dev)
	fr.Errors = slices.Clone(fr.Errors)
	fr.Looks = slices.Clone(fr.Looks)
	fr.HUD = slices.Clone(fr.HUD)
	fr.Leased = slices.Clone(fr.Leased)
	fr.Samples = slices.Clone(fr.Samples)
	fr.Effects = slices.Clone(fr.Effects)
	fr.Messages = slices.Clone(fr.Messages)
	fr.Joints = slices.Clone(fr.Joints)
	f.frames = append(f.frames, fr)
}

func (f *fakePage) SetScene(view.Scene)                         {}
func (f *fakePage) SetBoard(b view.Board)                       { f.board = b }
func (f *fakePage) SetLink(view.Link)                           {}
func (f *fakePage) SetCorrections([]view.Correction)            {}
func (f *fakePage) SetChat([]view.ChatLine)                     {}
func (f *fakePage) TakeInput() ([]float64, []bool, []bool)      { return nil, nil, nil }
func (f *fakePage) TakeInputOf(int) ([]float64, []bool, []bool) { return nil, nil, nil }
func (f *fakePage) Close() error                                { return nil }

package session

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vkm/host/game"
	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/transport"
	"vkm/transport/memnet"
)

// arenaWith is a copy of the arena with files replaced (path → content)
// and, when leave is set, that function as the leave handler.
func arenaWith(t *testing.T, files map[string]string, leave string) string {
	t.Helper()
	dir := copyProject(t, "../../projects/arena")
	if leave != "" {
		main := filepath.Join(dir, "scripts/main.lua")
		src, err := os.ReadFile(main)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.Replace(string(src), "net.on_join(join)", "net.on_join(join)\n  net.on_leave("+leave+")", 1)
		if s == string(src) {
			t.Fatal("the arena's main.lua no longer calls net.on_join(join)")
		}
		files = map[string]string{"scripts/main.lua": s}
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func load(t testing.TB, dir string) *project.Project {
	t.Helper()
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// who is what one end's World says about who plays.
func who(g *game.Game) string {
	w := g.World()
	var b strings.Builder
	fmt.Fprintf(&b, "%s local=%d", w.Role(), w.LocalPlayer())
	for _, p := range w.Players(nil) {
		fmt.Fprintf(&b, " [%d %s %s player()=%d]", p.Number, p.Name, g.Store().Name(p.Entity), w.Player(p.Entity))
	}
	return b.String()
}

// TestEveryEndAgreesWhoPlays joins two clients over a lossy link and
// checks that the server and both clients name the same players, with the
// same entities and names, that each client knows its own number, that
// the round trips reach the clients, and that a leave reaches them too.
func TestEveryEndAgreesWhoPlays(t *testing.T) {
	const seed = 515
	t.Logf("seed %d", seed)
	h := newHarness(t, loadArena(t))
	a := h.join(loadArena(t), memnet.Broadband, seed)
	b := h.join(loadArena(t), memnet.Broadband, seed+1)
	full := func(c *Client) bool {
		ps := c.Game().World().Players(nil)
		return len(ps) == 2 && c.Game().Store().Alive(ps[0].Entity) && c.Game().Store().Alive(ps[1].Entity)
	}
	h.runUntil(5*time.Second, "both clients knowing both players", func() bool { return full(a.c) && full(b.c) })

	srv := h.server.Game()
	want := "server local=0 [1 p1 player player()=1] [2 p2 player player()=2]"
	if got := who(srv); got != want {
		t.Fatalf("server: %s\nwant %s", got, want)
	}
	for i, c := range []*Client{a.c, b.c} {
		want := fmt.Sprintf("client local=%d [1 p1 player player()=1] [2 p2 player player()=2]", i+1)
		if got := who(c.Game()); got != want {
			t.Errorf("client %d: %s\nwant %s", i+1, got, want)
		}
		if own := c.Game().Own(); c.Game().World().Player(own) != uint16(i+1) {
			t.Errorf("client %d: its own entity is player %d's", i+1, c.Game().World().Player(own))
		}
		// The same entities: the server's ids, which are every end's names.
		for j, p := range c.Game().World().Players(nil) {
			if sp := srv.World().Players(nil)[j]; p.Entity != sp.Entity {
				t.Errorf("client %d names player %d's entity %v, the server %v", i+1, p.Number, p.Entity, sp.Entity)
			}
		}
		// Nothing else is a player's.
		n := 0
		c.Game().Store().Each(func(id entity.ID) bool {
			if c.Game().World().Player(id) != 0 {
				n++
			}
			return true
		})
		if n != 2 {
			t.Errorf("client %d: %d entities have a player", i+1, n)
		}
	}

	// The round trips arrive within about a second and a half, and are
	// the server's measure to the millisecond.
	h.run(RoundTripsEvery + RoundTripsEvery/2)
	server := srv.World().Players(nil)
	for i, c := range []*Client{a.c, b.c} {
		for j, p := range c.Game().World().Players(nil) {
			if p.RTT <= 0 || (p.RTT-server[j].RTT).Abs() > 100*time.Millisecond {
				t.Errorf("client %d: player %d's round trip %v, the server measures %v", i+1, p.Number, p.RTT, server[j].RTT)
			}
		}
	}
	t.Logf("round trips on a: %v / %v; on the server: %v / %v",
		a.c.Game().World().Players(nil)[0].RTT, a.c.Game().World().Players(nil)[1].RTT, server[0].RTT, server[1].RTT)

	// b leaves: a learns it, and the departed entity is nobody's.
	gone := h.server.seats[2].entity
	b.c.Net().Leave(h.now)
	h.runUntil(3*time.Second, "a hearing of the leave", func() bool { return len(a.c.Game().World().Players(nil)) == 1 })
	if got, want := who(a.c.Game()), "client local=1 [1 p1 player player()=1]"; got != want {
		t.Errorf("after the leave, a: %s\nwant %s", got, want)
	}
	if a.c.Game().World().Player(gone) != 0 || srv.World().Player(gone) != 0 {
		t.Error("the departed player's entity still has a player")
	}
}

// TestTheLeaveHandlerDecidesTheEntitysFate has the arena's leave handler
// mark the leaving player's character and keep it: it runs on the server
// with the entity alive and still that player's, the entity stays (a body
// left behind) on the server and on the other client, and it is nobody's
// after.
func TestTheLeaveHandlerDecidesTheEntitysFate(t *testing.T) {
	const seed = 616
	t.Logf("seed %d", seed)
	dir := arenaWith(t, nil, `function(player, ent)
    ent:set("Score", "deaths", 500 + player * 10 + ent:player())
    return true
  end`)
	h := newHarness(t, load(t, dir))
	a := h.join(load(t, dir), memnet.Lan, seed)
	b := h.join(load(t, dir), memnet.Lan, seed+1)
	h.runUntil(5*time.Second, "both joins", func() bool {
		return a.c.Playing() && b.c.Playing() && len(a.c.Game().World().Players(nil)) == 2
	})
	body := h.server.seats[2].entity
	b.c.Net().Leave(h.now)
	srv := h.server.Game()
	score := srv.Schema().Index("Score")
	h.runUntil(3*time.Second, "the leave", func() bool { return h.server.Net().PlayerCount() == 1 })
	if !srv.Store().Alive(body) {
		t.Fatal("the kept body is gone on the server")
	}
	if d := srv.Store().Component(body, score)[1]; d != 522 {
		t.Fatalf("Score.deaths = %v, want 522: the handler ran with player 2 and its entity, while the entity was theirs", d)
	}
	if srv.World().Player(body) != 0 || srv.World().Command(body) != nil {
		t.Error("the kept body still has a player or a command")
	}
	h.runUntil(3*time.Second, "a seeing the body marked", func() bool {
		v := a.c.Game().Store().Component(body, score)
		return a.c.Game().Store().Alive(body) && v != nil && v[1] == 522 && len(a.c.Game().World().Players(nil)) == 1
	})
	if a.c.Game().World().Player(body) != 0 {
		t.Error("the kept body is still player 2's on a")
	}
	h.run(time.Second)
	if !a.c.Game().Store().Alive(body) || !srv.Store().Alive(body) {
		t.Error("the kept body went away later")
	}
}

// TestAFailingJoinHandlerIsToldAsSuch makes the arena's join handler
// raise an error: a client that joined without --dev is told a sentence
// that blames the game, a dev client of a dev server is told the error
// with its file:line, and the server logs it whole either way. A server
// not run with --dev tells even a dev client only the sentence: any
// client can say it is one.
func TestAFailingJoinHandlerIsToldAsSuch(t *testing.T) {
	const joinLua = "return function(player)\n  local spawn = nil\n  return spawn:spawn(\"prefabs/player.toml\", 0, 0)\nend\n"
	for _, tc := range []struct{ devServer, devClient bool }{{false, false}, {true, true}, {false, true}} {
		dev := tc.devServer && tc.devClient
		t.Run(fmt.Sprintf("dev server %v, dev client %v", tc.devServer, tc.devClient), func(t *testing.T) {
			dir := arenaWith(t, map[string]string{"scripts/join.lua": joinLua}, "")
			var h *harness
			if tc.devServer {
				h = devServe(t, dir)
			} else {
				h = newHarness(t, load(t, dir))
			}
			h.dev = tc.devClient
			var log strings.Builder
			h.server.log = slogTo(&log)
			a := h.join(load(t, dir), memnet.Lan, 7)
			h.runUntil(3*time.Second, "the refusal", func() bool { return a.c.Net().State() != transport.StateJoining })
			got := a.c.Net().LastError()
			want := "The server could not seat you: the game's join handler failed."
			if dev {
				want = "The server could not seat you: the game's join handler failed: scripts/join.lua:3: attempt to index a non-table object(nil) with key 'spawn'"
			}
			t.Logf("told: %q", got)
			if a.c.Net().State() != transport.StateRefused || got != want || a.c.Game().LastError() != want {
				t.Fatalf("state %v, told %q\nwant %q", a.c.Net().State(), got, want)
			}
			if !strings.Contains(log.String(), "join handler failed") || !strings.Contains(log.String(), "scripts/join.lua:3") {
				t.Errorf("the server's log does not hold the error:\n%s", log.String())
			}
			if h.server.JoinErrors() == 0 {
				t.Error("no join error counted")
			}
		})
	}
}

// slogTo is a logger writing every line to w.
func slogTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

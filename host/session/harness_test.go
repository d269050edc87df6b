package session

import (
	"fmt"
	"log/slog"
	"net/netip"
	"testing"
	"time"

	"vkm/host/bot"
	"vkm/host/game"
	"vkm/host/project"
	"vkm/transport"
	"vkm/transport/memnet"
)

// harness runs a Server and Clients in one process over
// seeded simulated links, on a synthetic clock: every session test is
// deterministic from its seed.
type harness struct {
	t       testing.TB
	now     transport.Time
	server  *Server
	clients []*peer
	// dev makes the clients it joins take a dev server's reloads.
	dev bool
}

// peer is one client of a harness, with its own link to the server.
type peer struct {
	c     *Client
	addr  netip.AddrPort
	pipe  *memnet.Pipe // AtoB: client to server (Up); BtoA: server to client (Down)
	input game.Input
	// cut drops everything the server sends this client while set: a burst
	// of total loss.
	cut bool
	// cutUp drops everything the client sends, as cut does what the
	// server sends it.
	cutUp bool
	// afterTick, if set, runs after every tick the client plays.
	afterTick func(*game.Game)
}

// unbudgeted is the harness's budget clock: it never advances, so no
// behavior call is stopped for wall time it spent waiting for a core while
// parallel tests share a loaded machine. The harness judges what a match
// does in simulated time; stopping runaway scripts is scripting's to test.
func unbudgeted() time.Duration { return 0 }

// frameStep is the harness's frame: both ends run one every 2 ms.
const frameStep = 2 * time.Millisecond

func newHarness(t testing.TB, server *project.Project) *harness {
	t.Helper()
	s, err := NewServer(ServerConfig{Project: server, Logger: testLogger(t), BudgetClock: unbudgeted})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &harness{t: t, server: s}
}

// join adds a client playing p over a link with the given profile.
func (h *harness) join(p *project.Project, profile memnet.Profile, seed uint64) *peer {
	h.t.Helper()
	n := len(h.clients) + 1
	c, err := NewClient(ClientConfig{Project: p, Name: fmt.Sprintf("p%d", n), Logger: testLogger(h.t), Now: h.now, Dev: h.dev, BudgetClock: unbudgeted})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(c.Close)
	pipe, err := memnet.NewPipe(profile, seed)
	if err != nil {
		h.t.Fatal(err)
	}
	pr := &peer{
		c:    c,
		addr: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(n)}), 40000),
		pipe: pipe,
	}
	h.clients = append(h.clients, pr)
	return pr
}

// step advances the synthetic clock by one frame and runs everything due.
func (h *harness) step() {
	h.now += transport.Time(frameStep)
	for _, p := range h.clients {
		for {
			b, ok := p.pipe.AtoB.Receive(h.now)
			if !ok {
				break
			}
			h.server.Receive(p.addr, b, h.now)
		}
	}
	h.server.Advance(frameStep, h.now)
	for {
		to, b, ok := h.server.Net().NextDatagram()
		if !ok {
			break
		}
		for _, p := range h.clients {
			if p.addr == to && !p.cut {
				p.pipe.BtoA.Send(b, h.now)
			}
		}
	}
	for _, p := range h.clients {
		for {
			b, ok := p.pipe.BtoA.Receive(h.now)
			if !ok {
				break
			}
			p.c.Receive(b, h.now)
		}
		p.c.Frame(frameStep, p.input, p.afterTick, h.now)
		for {
			b, ok := p.c.Net().NextDatagram()
			if !ok {
				break
			}
			if !p.cutUp {
				p.pipe.AtoB.Send(b, h.now)
			}
		}
	}
}

// run steps for d of synthetic time.
func (h *harness) run(d time.Duration) {
	for end := h.now + transport.Time(d); h.now < end; {
		h.step()
	}
}

// runUntil steps until done returns true, failing after limit.
func (h *harness) runUntil(limit time.Duration, what string, done func() bool) {
	h.t.Helper()
	for end := h.now + transport.Time(limit); !done(); h.step() {
		if h.now >= end {
			h.t.Fatalf("%s did not happen within %v of synthetic time", what, limit)
		}
	}
}

func TestTwoClientsJoinOverBroadbandInProcess(t *testing.T) {
	const seed = 404
	t.Logf("seed %d", seed)
	h := newHarness(t, loadArena(t))
	a := h.join(loadArena(t), memnet.Broadband, seed)
	b := h.join(loadArena(t), memnet.Broadband, seed+1)
	h.runUntil(5*time.Second, "both joins", func() bool {
		return a.c.Playing() && b.c.Playing()
	})
	t.Logf("joined after %v; players %d; a is player %d, b is player %d",
		time.Duration(h.now), h.server.Net().PlayerCount(), a.c.Net().Player(), b.c.Net().Player())
	if h.server.Net().PlayerCount() != 2 || len(h.server.seats) != 2 {
		t.Fatalf("server seats %d players", h.server.Net().PlayerCount())
	}
	// The server spawned a character for each through the join handler.
	for player, st := range h.server.seats {
		if name := h.server.Game().Store().Name(st.entity); name != "player" {
			t.Fatalf("player %d's entity is %q", player, name)
		}
	}
	// One leaves: its character goes with it.
	a.c.Net().Leave(h.now)
	gone := h.server.seats[a.c.Net().Player()].entity
	h.runUntil(2*time.Second, "the leave", func() bool { return h.server.Net().PlayerCount() == 1 })
	if h.server.Game().Store().Alive(gone) {
		t.Fatal("the departed player's character is still in the world")
	}
}

// testLogger logs warnings and worse into the test's output.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// seated joins a client playing the arena over profile and runs until it
// is playing with its character named; with a bot seed it plays with a
// wander bot of that seed.
func (h *harness) seated(profile memnet.Profile, seed uint64, withBot bool) *peer {
	h.t.Helper()
	a := h.join(loadArena(h.t), profile, seed)
	if withBot {
		p := loadArena(h.t)
		b, err := bot.New("wander", seed, len(p.Axes), len(p.Buttons))
		if err != nil {
			h.t.Fatal(err)
		}
		a.input = b
	}
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
	return a
}

// loadArena loads the example project.
func loadArena(t testing.TB) *project.Project {
	t.Helper()
	p, err := project.LoadProject("../../projects/arena")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

package session

import (
	"fmt"
	"testing"
	"time"

	"vkm/host/project"
	"vkm/transport"
	"vkm/transport/memnet"
)

// watchFor joins a spectator client of p.
func (h *harness) watchFor(p *project.Project, seed uint64) *peer {
	h.t.Helper()
	n := len(h.clients) + 1
	pr := h.join(p, memnet.Broadband, seed)
	c, err := NewClient(ClientConfig{Project: p, Name: fmt.Sprintf("w%d", n), Logger: testLogger(h.t), Now: h.now, Spectator: true})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(c.Close)
	pr.c.Close()
	pr.c = c
	return pr
}

// TestSpectatorTakesNoSeat fills a two-player arena, then: a third player
// is refused as full, a spectator is let in all the same, holds no seat and
// no entity, is told the world and the roster, follows a player, is listed
// apart (net.spectators(), the transport's counts), and a player who
// leaves frees a seat a player takes, not the spectator. A second
// spectator finds the spectators' bound of one full.
func TestSpectatorTakesNoSeat(t *testing.T) {
	const seed = 1101
	t.Logf("seed %d", seed)
	small := func() *project.Project {
		p := loadArena(t)
		p.Players, p.Spectators = 2, 1
		return p
	}
	h := newHarness(t, small())
	a := h.seated(memnet.Broadband, seed, false)
	b := h.seated(memnet.Broadband, seed+1, false)
	third := h.join(small(), memnet.Broadband, seed+2)
	h.runUntil(3*time.Second, "the third player's refusal", func() bool { return third.c.Net().State() == transport.StateRefused })
	if got := third.c.Net().LastError(); got == "" {
		t.Fatal("the third player was refused without a reason")
	}

	w := h.watchFor(small(), seed+3)
	h.runUntil(3*time.Second, "the spectator's join", func() bool { return w.c.Playing() })
	srv := h.server
	if n := srv.Net().PlayerCount(); n != 2 {
		t.Fatalf("%d players counted with a spectator watching, want 2", n)
	}
	if n := srv.Net().Spectators(); n != 1 || len(srv.seats) != 2 || srv.SpectatorCount() != 1 {
		t.Fatalf("spectators %d, seats %d, watchers %d", n, len(srv.seats), srv.SpectatorCount())
	}
	if _, seated := srv.seats[w.c.Net().Player()]; seated {
		t.Fatal("the spectator holds a seat")
	}
	if !w.c.Game().Own().IsNone() {
		t.Fatalf("the spectator owns entity %v", w.c.Game().Own())
	}
	// It is told the world: both players' characters reach it, and the
	// roster names them.
	ea, eb := srv.seats[a.c.Net().Player()].entity, srv.seats[b.c.Net().Player()].entity
	h.runUntil(3*time.Second, "the players' characters on the spectator's end", func() bool {
		st := w.c.Game().Store()
		return st.Alive(ea) && st.Alive(eb) && len(w.c.Game().Players()) == 2
	})
	// It follows a player.
	if err := w.c.Follow(b.c.Net().Player()); err != nil {
		t.Fatal(err)
	}
	h.runUntil(2*time.Second, "the follow", func() bool {
		sp := srv.Game().Spectators()
		return len(sp) == 1 && sp[0].Follows == b.c.Net().Player()
	})
	if got, ok := w.c.Followed(); !ok || got != eb {
		t.Fatalf("the spectator follows %v (held %v), want %v", got, ok, eb)
	}
	h.runUntil(time.Second, "the spectator's snapshots looking from the followed player", func() bool {
		return srv.watchers[w.c.Net().Player()].peer.Focus() == eb
	})
	if _, err := w.c.AddGuest("g", nil); err != ErrSpectatorGuests {
		t.Fatalf("a spectator's guest: %v", err)
	}
	if err := a.c.Follow(1); err != ErrNotSpectator {
		t.Fatalf("a player's Follow: %v", err)
	}
	for _, p := range srv.Game().Players() {
		if p.Number == w.c.Net().Player() {
			t.Fatal("net.players() lists the spectator")
		}
	}

	// A second spectator finds the spectators' bound full.
	w2 := h.watchFor(small(), seed+4)
	h.runUntil(3*time.Second, "the second spectator's refusal", func() bool { return w2.c.Net().State() == transport.StateRefused })

	// A player leaves: a player takes the seat; the spectator watches on.
	a.c.Net().Leave(h.now)
	h.runUntil(2*time.Second, "the leave", func() bool { return srv.Net().PlayerCount() == 1 })
	c := h.seated(memnet.Broadband, seed+5, false)
	if !c.c.Playing() || srv.Net().PlayerCount() != 2 || srv.SpectatorCount() != 1 {
		t.Fatalf("after a leave and a join: players %d, spectators %d", srv.Net().PlayerCount(), srv.SpectatorCount())
	}
	w.c.Net().Leave(h.now)
	h.runUntil(2*time.Second, "the spectator's leave", func() bool { return srv.SpectatorCount() == 0 })
	if srv.Net().PlayerCount() != 2 {
		t.Fatalf("the spectator's leave took a player: %d left", srv.Net().PlayerCount())
	}
	// Another spectator takes the freed place, and is kicked.
	w3 := h.watchFor(small(), seed+6)
	h.runUntil(3*time.Second, "the third spectator's join", func() bool { return w3.c.Playing() })
	if !srv.Kick(w3.c.Net().Player(), "no watching") {
		t.Fatal("Kick did not find the spectator")
	}
	h.runUntil(2*time.Second, "the kick", func() bool { return srv.SpectatorCount() == 0 && srv.Net().Spectators() == 0 })
}

package session

import (
	"math"
	"testing"
	"time"

	"vkm/host/game"
	"vkm/transport/memnet"
)

// TestAnotherPlayersShotsArePresentedOnce: player A stands and fires; the
// arena's walker keeps each shot's cause (its tick and aim) in the Shot
// component, and every client's on_update shows a shot whose cause it has
// not shown yet. Player B, whose client never runs A's shots, shows each
// of them once, from where A stands; A's own client shows each once too,
// at once from its prediction and never again from the snapshots or
// replays that follow; both as many as the server fired.
func TestAnotherPlayersShotsArePresentedOnce(t *testing.T) {
	h := newHarness(t, loadArena(t))
	p := loadArena(t)
	a := h.join(p, memnet.Broadband, 61)
	b := h.join(loadArena(t), memnet.Broadband, 62)
	h.runUntil(5*time.Second, "both joins", func() bool {
		return a.c.Playing() && b.c.Playing() && !a.c.Game().Own().IsNone() && !b.c.Game().Own().IsNone()
	})
	h.run(time.Second) // both land
	shooter := a.c.Game().Own()
	type shot struct{ x, y float64 }
	shotsBy := func(g *game.Game, into *[]shot) {
		for _, ev := range g.DrainEvents() {
			if ev.Name == "shot" && ev.Fields["by"] == float64(shooter.Slot) {
				*into = append(*into, shot{ev.Fields["x1"].(float64), ev.Fields["y1"].(float64)})
			}
		}
	}
	var onServer, onA, onB []shot
	drain := func(d time.Duration) {
		for i := 0; i < int(d/frameStep); i++ {
			h.step()
			shotsBy(h.server.Game(), &onServer)
			shotsBy(a.c.Game(), &onA)
			shotsBy(b.c.Game(), &onB)
		}
	}
	drain(0)
	onServer, onA, onB = nil, nil, nil
	a.input = &trigger{button: p.ButtonIndex("fire"), every: 24}
	drain(6 * time.Second)
	a.input = nil
	drain(time.Second) // the last shots' causes reach B
	t.Logf("shots by A: %d on the server, %d on A's client, %d on B's", len(onServer), len(onA), len(onB))
	if len(onServer) < 10 {
		t.Fatalf("the server saw %d shots: the test proves little", len(onServer))
	}
	if len(onA) != len(onServer) || len(onB) != len(onServer) {
		t.Fatalf("shots by A: server %d, A's client %d, B's client %d; want the same on every end", len(onServer), len(onA), len(onB))
	}
	for i, s := range onServer {
		if d := math.Hypot(onB[i].x-s.x, onB[i].y-s.y); d > 0.05 {
			t.Errorf("shot %d leaves (%.3f, %.3f) on B's client, (%.3f, %.3f) on the server", i, onB[i].x, onB[i].y, s.x, s.y)
		}
	}
}

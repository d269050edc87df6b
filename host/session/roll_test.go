package session

import (
	"testing"
	"time"

	"vkm/host/game"
	"vkm/transport/memnet"
)

// TestPredictedRollsMatchTheServers has a behavior roll math.random every
// tick on a player's character. The client predicts it with its own tick
// numbers; the server must roll by the client tick of the command it runs,
// or a respawn point, a spread or anything else drawn at random would be
// predicted wrong.
func TestPredictedRollsMatchTheServers(t *testing.T) {
	const seed = 19
	h := newHarness(t, loadLagcomp(t))
	a := h.join(loadLagcomp(t), memnet.Broadband, seed)
	a.input = &scriptedInput{}
	h.runUntil(5*time.Second, "the join", func() bool { return !a.c.Game().Own().IsNone() })
	g := a.c.Game()
	roll := g.Schema().Index("Roll")
	// Each end's roll, by the client tick it was made for, as the tick
	// that made it left it.
	client, server := map[uint32]float64{}, map[uint32]float64{}
	a.afterTick = func(g *game.Game) {
		if !g.IsReplaying() {
			client[g.Tick()] = g.Store().Component(g.Own(), roll)[0]
		}
	}
	h.server.afterTick = func(s *game.Game) { server[h.server.drivenTick[g.Own()]] = s.Store().Component(g.Own(), roll)[0] }
	h.run(3 * time.Second)
	same, compared := 0, 0
	for tick, v := range server {
		if c, ok := client[tick]; ok && tick != 0 {
			compared++
			if c == v {
				same++
			}
		}
	}
	t.Logf("seed %d: %d client ticks compared, %d rolled the same on both ends", seed, compared, same)
	if compared < 100 || same != compared {
		t.Fatalf("%d of %d ticks rolled alike", same, compared)
	}
}

package session

import (
	"testing"
	"time"

	"vkm/host/bot"
	"vkm/transport/memnet"
)

// BenchmarkReplay20Ticks measures what a correction costs a client in the
// arena: 20 ticks run again (behaviors of what it simulates, the character
// controller, physics over the whole world) with its own character and
// whatever it leases simulated.
func BenchmarkReplay20Ticks(b *testing.B) {
	h := newHarness(b, loadArena(b))
	a := h.join(loadArena(b), memnet.Perfect, 1)
	p := loadArena(b)
	bot, err := bot.New("wander", 1, len(p.Axes), len(p.Buttons))
	if err != nil {
		b.Fatal(err)
	}
	a.input = bot
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
	h.run(2 * time.Second)
	g := a.c.Game()
	to := g.Tick()
	from := to - 19
	b.ReportAllocs()
	for b.Loop() {
		if n := g.Replay(from, to, a.c.rec.command, a.c.recordPrediction); n != 20 {
			b.Fatalf("replayed %d ticks, want 20", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/20, "µs/replayed-tick")
}

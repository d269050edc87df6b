package game

import (
	"testing"
	"vkm/host/bot"
)

// BenchmarkArenaTick measures one whole tick of the example arena offline
// (behaviors, controller, physics) with a wander bot driving the player.
func BenchmarkArenaTick(b *testing.B) {
	g := newGame(b, loadArena(b))
	p := g.project
	bot, err := bot.New("wander", 1, len(p.Axes), len(p.Buttons))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		g.SetCommand(bot.Next())
		g.RunTick()
		g.DrainEvents()
	}
}

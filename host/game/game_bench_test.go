package game

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"vkm/host/bot"
	"vkm/host/project"
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

// BenchmarkOrbitsTick measures one tick of bench/orbits offline: 500
// kinematic bodies, each steered along a circle by a small Lua behavior,
// the scripted crowd a server runs with no client. Besides the mean it
// reports the median and 99th percentile of single ticks and how many
// garbage collections ran per thousand ticks, since a tick's tail is
// what a player feels.
func BenchmarkOrbitsTick(b *testing.B) {
	p, err := project.LoadProject("../../bench/orbits")
	if err != nil {
		b.Fatal(err)
	}
	g := newGame(b, p)
	for range 64 { // let every orbiter start
		g.RunTick()
	}
	var times []time.Duration
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		g.RunTick()
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	slices.Sort(times)
	at := func(q float64) float64 { return float64(times[int(q*float64(len(times)-1))].Microseconds()) }
	b.ReportMetric(at(0.5), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
	b.ReportMetric(float64(after.NumGC-before.NumGC)*1000/float64(len(times)), "gc/1000ticks")
}

package session

import (
	"fmt"
	"testing"
	"time"

	"vkm/host/bot"
	"vkm/host/game"
	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/transport/memnet"
)

// awake names the bodies of g that are awake.
func awake(g *game.Game) []string {
	var out []string
	g.Store().Each(func(id entity.ID) bool {
		if rb := g.Store().Rigidbody(id); rb != nil && rb.Awake {
			out = append(out, g.Store().Name(id))
		}
		return true
	})
	return out
}

// TestHaulSettlesSilent serves the haul to two clients that play nothing
// over the broadband link, lets it stand for twenty seconds, and counts
// what the server sends each in the ten seconds after: once the bridge,
// the cart and the crane have come to rest, they fall asleep and the
// snapshots fall silent.
func TestHaulSettlesSilent(t *testing.T) {
	load := func() *project.Project {
		p, err := project.LoadProject("../../projects/haul")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	h := newHarness(t, load())
	var peers []*peer
	for i := range 2 {
		peers = append(peers, h.join(load(), memnet.Broadband, uint64(31+i)))
	}
	h.runUntil(5*time.Second, "two joins", func() bool {
		for _, a := range peers {
			if !a.c.Playing() || a.c.Game().Own().IsNone() {
				return false
			}
		}
		return true
	})
	h.run(20 * time.Second)
	sent := func() (n uint64) {
		for _, p := range h.server.Net().Players(nil, h.now) {
			n += p.BytesOut
		}
		return n
	}
	before, start := sent(), h.now
	h.run(10 * time.Second)
	perClient := float64(sent()-before) / time.Duration(h.now-start).Seconds() / float64(len(peers))
	still := awake(h.server.Game())
	t.Logf("haul, two idle clients over broadband: %.0f B/s each after 20 s standing; awake on the server: %v", perClient, still)
	if len(still) > 0 {
		t.Errorf("after 20 s standing, awake on the server: %v", still)
	}
}

// TestALateJoinerOnTheHaul serves the haul to one wandering bot for twenty
// seconds, so its bridge, cart and crane have a history on the server,
// then has a second wandering bot join and play for thirty, over the
// broadband link, three seeds, and counts the late joiner's corrections by
// cause: whatever jointed group it first touches it starts from its own
// history of it, not the server's.
func TestALateJoinerOnTheHaul(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a measurement: three 50-second runs")
	}
	load := func() *project.Project {
		p, err := project.LoadProject("../../projects/haul")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	var total [NumCauses]uint64
	for _, seed := range []uint64{1, 2, 3} {
		h := newHarness(t, load())
		first := h.join(load(), memnet.Broadband, 100+seed)
		b, err := bot.New("wander", 100+seed, len(load().Axes), len(load().Buttons))
		if err != nil {
			t.Fatal(err)
		}
		first.input = b
		h.run(20 * time.Second)
		late := h.join(load(), memnet.Broadband, seed)
		if late.input, err = bot.New("wander", seed, len(load().Axes), len(load().Buttons)); err != nil {
			t.Fatal(err)
		}
		h.runUntil(5*time.Second, "the late join", func() bool { return late.c.Playing() && !late.c.Game().Own().IsNone() })
		before := late.c.rec
		h.run(30 * time.Second)
		r := late.c.rec
		line := ""
		for c := range NumCauses {
			n := r.byCause[c].Count - before.byCause[c].Count
			total[c] += n
			line += fmt.Sprintf(" %s %d", c, n)
		}
		t.Logf("seed %d: the late joiner's corrections in 30 s: %d:%s", seed, r.corrections-before.corrections, line)
	}
	line := ""
	for c := range NumCauses {
		line += fmt.Sprintf(" %s %d", c, total[c])
	}
	t.Logf("three late joiners, corrections by cause:%s", line)
}

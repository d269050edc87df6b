package session

import (
	"testing"
	"time"

	"vkm/host/bot"
	"vkm/host/project"
	"vkm/transport/memnet"
)

// seatedBot joins a client playing p over profile with a wander bot of
// seed and runs until it is playing with its runner named.
func (h *harness) seatedBot(p *project.Project, profile memnet.Profile, seed uint64) *peer {
	h.t.Helper()
	a := h.join(p, profile, seed)
	b, err := bot.New("wander", seed, len(p.Axes), len(p.Buttons))
	if err != nil {
		h.t.Fatal(err)
	}
	a.input = b
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
	return a
}

// feel is what two players counted of a match: the frames each drew
// something moving frozen, and the corrections of each one's prediction.
type feel struct {
	stalls, corrections [2]uint64
}

// coinsMatch plays two wander bots on the coin yard over broadband for
// 14 s; with visitor, a third joins 3 s in and leaves 4 s later. It
// returns what the two counted.
func coinsMatch(t *testing.T, seed uint64, visitor bool) feel {
	h := newHarness(t, loadCoins(t))
	ps := [2]*peer{h.seatedBot(loadCoins(t), memnet.Broadband, seed), h.seatedBot(loadCoins(t), memnet.Broadband, seed+1)}
	start := h.now
	h.run(3 * time.Second)
	if visitor {
		v := h.seatedBot(loadCoins(t), memnet.Broadband, seed+2)
		if h.server.Net().PlayerCount() != 3 {
			t.Fatalf("%d players seated with the visitor", h.server.Net().PlayerCount())
		}
		h.run(4 * time.Second)
		v.c.Net().Leave(h.now)
		h.runUntil(2*time.Second, "the visitor's leave", func() bool { return h.server.Net().PlayerCount() == 2 })
	}
	h.run(14*time.Second - time.Duration(h.now-start))
	var f feel
	for i, p := range ps {
		s := p.c.Stats(h.now)
		f.stalls[i], f.corrections[i] = s.InterpStalls, s.Corrections
	}
	return f
}

// TestAJoinAndALeaveDoNotStallTheOthers plays the same seeded match with a
// player joining and leaving halfway and without, and compares what the
// two who stayed counted. A player coming and going is news to the others
// (a runner built, one destroyed, coins dropped where it stood), not a
// pause: the frames drawn frozen may not grow, and the corrections only by
// the few the visitor's shoves cost.
func TestAJoinAndALeaveDoNotStallTheOthers(t *testing.T) {
	t.Parallel() // its own sessions, game and links; nothing shared
	for _, seed := range []uint64{11, 23} {
		alone := coinsMatch(t, seed, false)
		visited := coinsMatch(t, seed, true)
		t.Logf("seed %d: without the visitor, stalls %v, corrections %v; with it, stalls %v, corrections %v",
			seed, alone.stalls, alone.corrections, visited.stalls, visited.corrections)
		for i := range 2 {
			if visited.stalls[i] > alone.stalls[i]+stallSlack {
				t.Errorf("seed %d, player %d: %d frames drawn frozen with a join and a leave, %d without", seed, i+1, visited.stalls[i], alone.stalls[i])
			}
			if visited.corrections[i] > alone.corrections[i]+correctionSlack {
				t.Errorf("seed %d, player %d: %d corrections with a join and a leave, %d without", seed, i+1, visited.corrections[i], alone.corrections[i])
			}
		}
	}
}

// The slack a visitor may add: a frame or two of a late snapshot, and a
// few corrections where its runner meets the others'.
const (
	stallSlack      = 5
	correctionSlack = 10
)

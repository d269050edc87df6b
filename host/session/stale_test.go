package session

import (
	"testing"
	"time"

	"vkm/transport/memnet"
)

// TestASnapshotJudgingNoNewTickCorrectsNothing cuts a running player's
// commands off for 400 ms, as a stalled client process or a burst of
// upstream loss does: the server runs its last command dry, then the zero
// command, then, past MaxDepth dry ticks, ticks that claim no client tick,
// and every snapshot of those names the tick last claimed while the
// character moves on. Such a snapshot judges no prediction: no tick is
// corrected twice, and the whole outage costs at most a correction a tick
// the server ran dry, with one more when the commands come back.
func TestASnapshotJudgingNoNewTickCorrectsNothing(t *testing.T) {
	t.Parallel() // its own sessions, game and link; nothing shared
	for _, seed := range []uint64{5, 6} {
		h := newHarness(t, meetProject(t))
		a := h.join(meetProject(t), memnet.Broadband, seed)
		h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
		p := a.c.Game().Project()
		a.input = &shuttle{dir: 1, toward: 30, away: 30, run: p.AxisIndex("run"), jump: p.ButtonIndex("jump")}
		h.run(2 * time.Second)
		before := a.c.rec
		a.cutUp = true
		h.run(400 * time.Millisecond)
		a.cutUp = false
		h.run(time.Second)
		r := &a.c.rec
		n := r.corrections - before.corrections
		seen := map[uint32]bool{}
		recent := r.recentList()
		for _, c := range recent[len(recent)-min(int(n), len(recent)):] {
			if seen[c.Tick] {
				t.Errorf("seed %d: tick %d corrected twice", seed, c.Tick)
			}
			seen[c.Tick] = true
		}
		// The dry ticks that claim a client tick: RepeatTicks of the last
		// command and MaxDepth - RepeatTicks of the zero command.
		const bound = 10 + 1
		t.Logf("seed %d: %d corrections over a 400 ms outage and the second after", seed, n)
		if n > bound {
			t.Errorf("seed %d: %d corrections over the outage; want at most %d", seed, n, bound)
		}
	}
}

package host

import (
	"testing"
	"time"

	"vkm/internal/entity"
	"vkm/transport/memnet"
)

// TestACorrectionLandsOnTheServersAnswerExactly knocks the client's
// character on the server alone, in the middle of a bot's play, which the
// client cannot predict. The snapshot that judges the tick of the knock is
// a correction, and the replay from the server's answer must land on that
// answer bit for bit: every tick judged in the two seconds after it is
// exact, and nothing more is replayed.
func TestACorrectionLandsOnTheServersAnswerExactly(t *testing.T) {
	for _, profile := range []memnet.Profile{memnet.Perfect, memnet.Broadband} {
		t.Run(profile.Name, func(t *testing.T) {
			const seed = 77
			h := newHarness(t, loadArena(t))
			a := h.seated(profile, seed, true)
			h.run(5 * time.Second)
			srv, own := h.server.game, a.c.game.own
			a.c.rec.maxCorrection = 0
			before := a.c.rec
			srv.ApplyImpulse(entity.None, own, 0, 400) // up, two metres a tick, on the server only
			h.runUntil(time.Second, "the knock's correction", func() bool { return a.c.rec.corrections > before.corrections })
			knocked := a.c.rec
			a.c.rec.maxError = 0
			h.run(2 * time.Second)
			r := a.c.rec
			t.Logf("seed %d, %s: the knock was corrected by %.1f mm, replaying %d ticks; then %d corrections and a largest prediction error of %.1f mm in two seconds",
				seed, profile.Name, knocked.maxCorrection*1000, knocked.replayed-before.replayed,
				r.corrections-knocked.corrections, r.maxError*1000)
			if n := r.corrections - knocked.corrections; n != 0 || r.maxError != 0 {
				t.Errorf("after the knock's correction: %d more, largest prediction error %g mm; want none and 0.0", n, r.maxError*1000)
			}
		})
	}
}

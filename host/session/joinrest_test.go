package session

import (
	"testing"
	"time"

	"vkm/transport/memnet"
)

// TestAClientStandingStillFromItsJoinIsNotCorrected seats players on
// bench/ball who stand where they spawned, as a served bot may for its
// first ticks, and counts their corrections from the join. The client
// builds its world from the first snapshot, after its clock has run ticks
// on an empty world, and the first correction replays from the physics
// kept after one of those: the bodies built since must still find their
// pairs then, or the character, resting on the floor, falls a tick's
// gravity through it in every replayed tick, and every snapshot after
// corrects it by 5 mm, for as long as it stands there.
func TestAClientStandingStillFromItsJoinIsNotCorrected(t *testing.T) {
	t.Parallel() // its own sessions, game and link; nothing shared
	for _, seed := range []uint64{3, 7} {
		h := newHarness(t, loadBall(t))
		var ps []*peer
		for i := range uint64(4) {
			ps = append(ps, h.join(loadBall(t), memnet.Broadband, seed+i))
		}
		h.run(3 * time.Second)
		for i, p := range ps {
			r := &p.c.rec
			if !p.c.Playing() || p.c.Game().Own().IsNone() {
				t.Fatalf("seed %d, client %d: not seated after three seconds", seed, i+1)
			}
			// The first snapshot to judge a tick judges one before the
			// client had a character to predict: replayed from, and
			// counted apart, not as a correction.
			if n := r.corrections; n > 0 {
				t.Errorf("seed %d, client %d: %d corrections standing still (largest %.1f mm); want none", seed, i+1, n, r.byCause[CauseOther].Largest*1000)
			}
			if r.unpredicted != 1 {
				t.Errorf("seed %d, client %d: %d judged ticks without a prediction; want the join's 1", seed, i+1, r.unpredicted)
			}
		}
	}
}

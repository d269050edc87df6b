package session

import (
	"fmt"
	"testing"
	"time"

	"vkm/internal/entity"
	"vkm/prediction"
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
			srv, own := h.server.Game(), a.c.Game().Own()
			a.c.rec.maxCorrection = 0
			before := a.c.rec
			srv.World().ApplyImpulse(entity.None, own, 0, 400) // up, two metres a tick, on the server only
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

// TestPredictionHoldsWhileCratesAreKnockedAbout plays a minute with a wander
// bot on the seeds whose bots knock crates into others and leave them
// tumbling: a shot crate resting in a pile, a crate run into another, a
// crate still falling or settling when the character meets it again. The
// client predicts all of it, so on a link that loses no command nothing is
// ever corrected.
func TestPredictionHoldsWhileCratesAreKnockedAbout(t *testing.T) {
	t.Parallel() // its own sessions, game and link; nothing shared
	if testing.Short() {
		t.Skip("a long seeded match: runs without -short")
	}
	for _, profile := range []memnet.Profile{memnet.Perfect, memnet.Broadband} {
		seeds := []uint64{5, 7, 8, 42, 99, 2024}
		if raceEnabled {
			seeds = seeds[:2] // a minute each takes ten under the detector
		}
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("%s/%d", profile.Name, seed), func(t *testing.T) {
				h := newHarness(t, loadArena(t))
				a := h.seated(profile, seed, true)
				h.run(time.Second)
				before := a.c.rec
				a.c.rec.maxError = 0
				h.run(60 * time.Second)
				r := a.c.rec
				n, replayed := r.corrections-before.corrections, r.replayed-before.replayed
				t.Logf("seed %d, %s: %d corrections, %d ticks replayed, largest prediction error %.1f mm in a minute",
					seed, profile.Name, n, replayed, r.maxError*1000)
				// A pack the character picks up is the server's decision
				// (a client does not simulate pickups, or two players could
				// both take one): its Picked.tick, and Health.hp when the
				// pack healed, are taken without a replay, since none of
				// the client's ticks wrote those fields; they are not
				// corrections.
				t.Logf("%d snapshots adopted what only the server writes", r.adopted-before.adopted)
				if n != 0 || replayed != 0 || r.maxError != 0 {
					t.Errorf("%d corrections, %d ticks replayed, largest prediction error %g mm; want none and 0.0", n, replayed, r.maxError*1000)
				}
			})
		}
	}
}

// TestALeasedBodyStillMovingLeasesWhatItTouches knocks a crate resting on
// two others with an impulse from the client's own character, as its shot
// does (on both ends), far from the character. The crates it rests on are leased with it,
// since the knock moves them on the server too, and the knocked crate stays
// leased for as long as it moves, longer than a lease lasts; once it and
// everything it touched are asleep, the leases lapse.
func TestALeasedBodyStillMovingLeasesWhatItTouches(t *testing.T) {
	h := newHarness(t, loadArena(t))
	a := h.seated(memnet.Perfect, 1, false)
	h.run(time.Second) // land
	g := a.c.Game()
	top, left, right := g.World().Find("crate7"), g.World().Find("crate5"), g.World().Find("crate6")
	if top.IsNone() || left.IsNone() || right.IsNone() {
		t.Fatal("the arena has no crate7 on crate5 and crate6")
	}
	// The knock is on both ends, as a shot's is: a leased body is
	// replayed from the server's word when its prediction strays from it
	// (leaseStrayed), and a knock the server never had would be undone.
	g.World().ApplyImpulse(g.Own(), top, 4, 0)
	h.server.Game().World().ApplyImpulse(entity.None, top, 4, 0)
	knocked := g.Tick()
	if !g.Simulates(top) {
		t.Fatal("a crate the own character knocks is not leased")
	}
	tick := g.Tick()
	h.runUntil(time.Second, "the next tick", func() bool { return g.Tick() > tick })
	if !g.Simulates(left) || !g.Simulates(right) {
		t.Fatalf("after the knock crate5 leased %v, crate6 %v; want both", g.Simulates(left), g.Simulates(right))
	}
	lastMoving := knocked
	h.runUntil(10*time.Second, "the leases lapsing", func() bool {
		if g.Tick() != tick {
			tick = g.Tick()
			if rb := g.Store().Rigidbody(top); g.Simulates(top) && rb.Awake {
				lastMoving = tick
			}
		}
		return !g.Simulates(top) && !g.Simulates(left) && !g.Simulates(right)
	})
	lapsed := g.Tick()
	t.Logf("knocked at tick %d, moving until tick %d, leases lapsed at tick %d", knocked, lastMoving, lapsed)
	if lastMoving-knocked <= prediction.LeaseTicks {
		t.Fatalf("the crate moved for %d ticks, no longer than a lease lasts (%d): the test proves nothing", lastMoving-knocked, prediction.LeaseTicks)
	}
	if lapsed-lastMoving > prediction.LeaseTicks+1 {
		t.Fatalf("the leases lapsed %d ticks after the crate stopped moving; want within %d", lapsed-lastMoving, prediction.LeaseTicks+1)
	}
}

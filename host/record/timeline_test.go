package record

import (
	"slices"
	"testing"
	"time"
)

func newTimeline(t *testing.T, b []byte, every uint32) *Timeline {
	t.Helper()
	rec, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := NewTimeline(rec, TimelineConfig{KeyEvery: every})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tl.Close)
	return tl
}

// TestTimelineJumpLandsOnThePlayedHash plays a recording to its end on a
// timeline, jumps back to the middle and compares the frame there with a
// fresh replay played to it a tick at a time: the same world hash, and
// the same poses as a second timeline stepped there tick by tick. The
// jump back runs no tick of simulation, and applies fewer than a
// keyframe interval of changes.
func TestTimelineJumpLandsOnThePlayedHash(t *testing.T) {
	b := arenaMatch(t, 8*64, Config{})
	const every = 64
	tl := newTimeline(t, b, every)
	if err := tl.Jump(1 << 30); err != nil {
		t.Fatal(err)
	}
	if !tl.Ended() || tl.At() != tl.Simulated() || tl.Mismatch != nil {
		t.Fatalf("at the end: ended %v, at %d of %d, mismatch %v", tl.Ended(), tl.At(), tl.Simulated(), tl.Mismatch)
	}
	ran := tl.Ran()
	mid := tl.Simulated()/2 + 3
	if err := tl.Jump(mid); err != nil {
		t.Fatal(err)
	}
	f, err := tl.Frame(tl.At())
	if err != nil {
		t.Fatal(err)
	}
	if tl.Ran() != ran || tl.Applied >= every {
		t.Fatalf("the jump back ran %d ticks and applied %d ticks of changes", tl.Ran()-ran, tl.Applied)
	}

	rec, _ := Parse(b)
	step, err := NewPlayer(rec, PlayConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer step.Close()
	for step.Tick() < mid {
		if err := step.Step(); err != nil {
			t.Fatal(err)
		}
	}
	want := WorldHash(step.Game())
	t.Logf("tick %d: jumped %016x (from keyframe %d, %d ticks of changes), played %016x", mid, f.Hash, mid/every*every, tl.Applied, want)
	if f.Tick != mid || f.Hash != want {
		t.Fatalf("jumped to tick %d with hash %016x; played to %d with %016x", f.Tick, f.Hash, step.Tick(), want)
	}

	stepped := newTimeline(t, b, every)
	for stepped.At() < mid {
		if err := stepped.Step(); err != nil {
			t.Fatal(err)
		}
	}
	g, err := stepped.Frame(stepped.At())
	if err != nil {
		t.Fatal(err)
	}
	// The stepped timeline's frontier is mid: its live world is what the
	// rebuilt frames must say.
	if stepped.Simulated() != mid || !slices.Equal(stepped.cur, f.Poses) {
		t.Fatalf("the rebuilt frame differs from the world captured at tick %d", mid)
	}
	if g.Hash != f.Hash || !slices.Equal(g.Poses, f.Poses) || len(f.Poses) == 0 {
		t.Fatalf("stepped to %d: hash %016x, %d poses; jumped: %016x, %d poses", g.Tick, g.Hash, len(g.Poses), f.Hash, len(f.Poses))
	}
	if len(f.Players) == 0 {
		t.Fatal("the frame names no player")
	}
}

// TestTimelineJumpDoesNotReplayFromZero counts the ticks a timeline
// simulates: a jump back runs none, and a jump past the frontier runs
// only the ticks beyond it.
func TestTimelineJumpDoesNotReplayFromZero(t *testing.T) {
	b := arenaMatch(t, 8*64, Config{})
	tl := newTimeline(t, b, 64)
	if err := tl.Jump(6 * 64); err != nil {
		t.Fatal(err)
	}
	if tl.Ran() != 6*64 {
		t.Fatalf("a jump to tick %d ran %d ticks", 6*64, tl.Ran())
	}
	if err := tl.Jump(2*64 + 5); err != nil {
		t.Fatal(err)
	}
	if tl.Ran() != 6*64 {
		t.Fatalf("a jump back ran %d ticks", tl.Ran()-6*64)
	}
	if err := tl.Jump(7 * 64); err != nil {
		t.Fatal(err)
	}
	if tl.Ran() != 7*64 {
		t.Fatalf("a jump from tick %d on to %d ran %d ticks, want 64", 2*64+5, 7*64, tl.Ran()-6*64)
	}
}

// TestTimelineControls: play at a speed, pause, step, the end pauses, and
// the camera's choice.
func TestTimelineControls(t *testing.T) {
	b := arenaMatch(t, 4*64, Config{})
	tl := newTimeline(t, b, 64)
	if tl.Playing() || tl.At() != 0 || tl.Speed() != 1 {
		t.Fatalf("a new timeline: playing %v at %d speed %v", tl.Playing(), tl.At(), tl.Speed())
	}
	tl.Play()
	if err := tl.Advance(time.Second / 2); err != nil || tl.At() != 32 {
		t.Fatalf("half a second of play at 64 Hz: at %d, %v", tl.At(), err)
	}
	if err := tl.SetSpeed(2); err != nil {
		t.Fatal(err)
	}
	if err := tl.Advance(time.Second / 4); err != nil || tl.At() != 64 {
		t.Fatalf("a quarter second at twice the pace: at %d, %v", tl.At(), err)
	}
	tl.Pause()
	tl.Advance(time.Second)
	if tl.At() != 64 {
		t.Fatalf("paused, the timeline moved to %d", tl.At())
	}
	if err := tl.Step(); err != nil || tl.At() != 65 || tl.Playing() {
		t.Fatalf("a step: at %d, playing %v, %v", tl.At(), tl.Playing(), err)
	}
	for _, bad := range []float64{0, -1, MaxSpeed + 1} {
		if tl.SetSpeed(bad) == nil {
			t.Errorf("speed %v taken", bad)
		}
	}
	tl.Play()
	if err := tl.Advance(time.Hour); err != nil || tl.Playing() || !tl.Ended() || tl.At() != tl.Simulated() {
		t.Fatalf("played past the end: at %d of %d, playing %v, %v", tl.At(), tl.Simulated(), tl.Playing(), err)
	}
	tl.Follow(2)
	if p, free := tl.Follows(); p != 2 || free {
		t.Fatalf("following %d, free %v", p, free)
	}
	tl.FreeCamera()
	if _, free := tl.Follows(); !free {
		t.Fatal("the camera is not free")
	}
}

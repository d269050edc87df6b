package session

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/transport/memnet"
)

// meetProject is a floor between two walls 12 m apart and, for each
// player, a character that runs on the run axis and jumps on the jump
// button: two players spawn 4 m apart, in each other's way.
func meetProject(t testing.TB) *project.Project {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"project.toml": `name = "meet"
players = 2
tickRate = 64
entryScene = "scene.toml"
entryScript = "main.lua"
[[axis]]
name = "run"
negative = ["KeyA"]
positive = ["KeyD"]
[[button]]
name = "jump"
keys = ["Space"]
`,
		"scene.toml": `[physics]
gravity = [0.0, -20.0]

[[entity]]
id = 1
name = "floor"
[entity.body]
type = "static"
[[entity.body.shape]]
chain = [[-6.0, 0.0], [6.0, 0.0], [6.0, 12.0], [-6.0, 12.0]]
loop = true
friction = 0.8
`,
		"runner.toml": `[[entity]]
uid = 1
name = "runner"
behavior = "runner"
[entity.body]
type = "dynamic"
fixedRotation = true
[[entity.body.shape]]
polygon = [[-0.4, -0.8], [0.4, -0.8], [0.4, 0.7], [0.25, 0.85], [-0.25, 0.85], [-0.4, 0.7]]
density = 1.0
friction = 0.0
[entity.controller]
speed = 8.0
accel = 70.0
airAccel = 30.0
jumpSpeed = 14.0
`,
		"main.lua": `
local Runner = {}
function Runner:on_fixed_update(dt)
  if not self:is_simulated() then return end
  local c = self:command()
  self:move(c.axis.run)
  if c.pressed.jump then self:jump() end
end
function vkmRegisterBehaviors(r) r.runner = Runner end
function vkmSetupNetwork(net)
  net.on_join(function(player)
    return vkm.find("floor"):spawn("runner.toml", player * 4 - 6, 0.9)
  end)
end
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// shuttle runs toward the middle of the hall for toward ticks, away from
// it for away ticks, and over again; it jumps on every jumpEvery-th run
// at the other (0: never). dir is the way to the middle.
type shuttle struct {
	dir             float64
	toward, away    int
	jumpEvery, tick int
	runs            int
	run, jump       int // the command's slots
}

func (s *shuttle) Next() prediction.Command {
	var c prediction.Command
	phase := s.tick % (s.toward + s.away)
	if phase == 0 {
		s.runs++
	}
	s.tick++
	if phase < s.toward {
		c.Axes[s.run] = s.dir
		if s.jumpEvery > 0 && s.runs%s.jumpEvery == 0 && phase == s.toward/2 {
			c.Pressed |= 1 << s.jump
			c.Held |= 1 << s.jump
		}
	} else {
		c.Axes[s.run] = -s.dir
	}
	return c
}

// meetingPair seats two players in the meeting project over broadband
// (link seeds seed and seed+100) and sets them shuttling toward each other,
// jumping every jumpA and jumpB trips (0: never).
func meetingPair(t *testing.T, seed uint64, jumpA, jumpB int) (*harness, *peer, *peer) {
	t.Helper()
	h := newHarness(t, meetProject(t))
	a := h.join(meetProject(t), memnet.Broadband, seed)
	b := h.join(meetProject(t), memnet.Broadband, seed+100)
	h.runUntil(5*time.Second, "both joins", func() bool {
		return a.c.Playing() && b.c.Playing() && !a.c.Game().Own().IsNone() && !b.c.Game().Own().IsNone()
	})
	h.run(time.Second)
	p := a.c.Game().Project()
	run, jump := p.AxisIndex("run"), p.ButtonIndex("jump")
	a.input = &shuttle{dir: 1, toward: 70, away: 45, jumpEvery: jumpA, run: run, jump: jump}
	b.input = &shuttle{dir: -1, toward: 83, away: 52, jumpEvery: jumpB, run: run, jump: jump}
	return h, a, b
}

// TestPlayersRunningIntoEachOtherAreRarelyCorrected has two players on
// broadband links run at each other, shove and part, over and over for
// twenty seconds, on periods that do not divide each other so that they
// meet at every speed; now and then one jumps as they meet. Each client
// predicts its own character against the other's, which it does not
// simulate: where the other stands in its world decides how often it is
// corrected.
func TestPlayersRunningIntoEachOtherAreRarelyCorrected(t *testing.T) {
	t.Parallel()     // its own sessions, game and link; nothing shared
	const bound = 15 // corrections in the twenty seconds, each client, teleports aside
	for _, seed := range []uint64{11, 12} {
		h, a, b := meetingPair(t, seed, 3, 4)
		before := [2]reconciler{a.c.rec, b.c.rec}
		h.run(20 * time.Second)
		for i, pr := range []*peer{a, b} {
			r := &pr.c.rec
			n := r.corrections - before[i].corrections
			tele := r.byCause[CauseTeleport].Count - before[i].byCause[CauseTeleport].Count
			t.Logf("seed %d, client %d: %d corrections (shove %d, other %d, teleport %d), %d ticks replayed, largest eased %.1f mm",
				seed, i+1, n, r.byCause[CauseShove].Count-before[i].byCause[CauseShove].Count,
				r.byCause[CauseOther].Count-before[i].byCause[CauseOther].Count, tele,
				r.replayed-before[i].replayed, r.maxCorrection*1000)
			if n-tele > bound {
				t.Errorf("seed %d, client %d: %d corrections in twenty seconds of meeting; want at most %d", seed, i+1, n-tele, bound)
			}
		}
	}
}

// TestRunIntentReadsTheControllersRate reads the run a word implies from
// velocities a tick apart, as the arena's character controller moves them.
func TestRunIntentReadsTheControllersRate(t *testing.T) {
	ctl := &entity.CharacterController{Mode: entity.SideView, Speed: 8, Accel: 70, AirAccel: 30, Grounded: true}
	s := 1.0 / 64
	step := 70 * s
	for _, c := range []struct {
		name   string
		v0, v1 float64
		was    float64
		run    float64
		free   bool
	}{
		{"full speed", 8, 8, 0, 1, true},
		{"speeding up to the right", 0, step, 0, 1, true},
		{"speeding up to the left", -2, -2 - step, 1, -1, true},
		{"slowing toward rest", 4, 4 - step, 1, 0, true},
		{"turning through rest", step / 2, -step / 2, 1, -1, true},
		{"leaning, still", 0, 0, 1, 1, false},
		{"stopped by a collision", 8, 0, 1, 1, false},
		{"standing", 0, 0, 0, 0, false},
	} {
		run, free := runIntent(ctl, c.v0, c.v1, s, c.was)
		if run != c.run || free != c.free {
			t.Errorf("%s: run %g free %v; want %g %v", c.name, run, free, c.run, c.free)
		}
	}
}

// TestRelayedRunsKeepHeadOnMeetingsSmall has two players on broadband
// links run head-on into each other, push, turn and part, over and over,
// never jumping: every meeting is one. Each client carries the other
// character on the run the server relays, and stops it against its own
// character where the two meet: without either, every client has
// corrections of a quarter of a metre, and nearly twice as many.
func TestRelayedRunsKeepHeadOnMeetingsSmall(t *testing.T) {
	t.Parallel() // its own sessions, game and link; nothing shared
	const (
		seeds = 6
		bound = 200 // corrections in all, teleports aside (300 without either; 190 relayed alone, 223 stopped alone)
		most  = 9   // clients whose largest eased correction is over 100 mm (all 12 without stopping)
	)
	total, large := uint64(0), 0
	for seed := uint64(11); seed < 11+seeds; seed++ {
		h, a, b := meetingPair(t, seed, 0, 0)
		before := [2]reconciler{a.c.rec, b.c.rec}
		h.run(20 * time.Second)
		for i, pr := range []*peer{a, b} {
			r := &pr.c.rec
			n := r.corrections - before[i].corrections
			tele := r.byCause[CauseTeleport].Count - before[i].byCause[CauseTeleport].Count
			t.Logf("seed %d, client %d: %d corrections (shove %d, other %d, teleport %d), largest eased %.1f mm",
				seed, i+1, n, r.byCause[CauseShove].Count-before[i].byCause[CauseShove].Count,
				r.byCause[CauseOther].Count-before[i].byCause[CauseOther].Count, tele, r.maxCorrection*1000)
			total += n - tele
			if r.maxCorrection > 0.1 {
				large++
			}
		}
	}
	t.Logf("%d corrections in all, %d clients with an eased correction over 100 mm", total, large)
	if total > bound {
		t.Errorf("%d corrections over %d twenty-second runs of two clients; want at most %d", total, seeds, bound)
	}
	if large > most {
		t.Errorf("%d of %d clients had an eased correction over 100 mm; want at most %d", large, 2*seeds, most)
	}
}

// TestFourWanderersAreRarelyCorrected plays the arena with four wander
// bots on broadband links for thirty seconds: characters meet at every
// speed, in the air and against crates. Each client carries the others on
// their relayed runs, stops them against its own character and lands them
// on the floor; carried on their words alone, the same seeds cost twice
// the corrections.
func TestFourWanderersAreRarelyCorrected(t *testing.T) {
	t.Parallel() // its own sessions, game and link; nothing shared
	if testing.Short() {
		t.Skip("a long seeded match: runs without -short")
	}
	const (
		seed = 3
		// Corrections in all, teleports aside: 15 now, 19 with the others
		// carried by dead reckoning alone (not by the step where their
		// words agree with it; see carried), 96 before revisions
		// (revise.go), 166 carried on their words alone. The count moves with how the arena's props tumble, not
		// with how exactly it is told: with the angular velocity's step
		// at 0.01, 0.005, 0.002, 0.001 and 0.0005 rad/s it was 78, 119,
		// 109, 82 and 96 before revisions, and 96 at every finer step.
		bound = 25
	)
	h := newHarness(t, loadArena(t))
	var ps []*peer
	for i := range uint64(4) {
		ps = append(ps, h.seated(memnet.Broadband, seed+i, true))
	}
	before := make([]reconciler, len(ps))
	for i, p := range ps {
		before[i] = p.c.rec
	}
	h.run(30 * time.Second)
	total := uint64(0)
	for i, p := range ps {
		r := &p.c.rec
		n := r.corrections - before[i].corrections
		tele := r.byCause[CauseTeleport].Count - before[i].byCause[CauseTeleport].Count
		t.Logf("seed %d, client %d: %d corrections (shove %d, lease %d, other %d, teleport %d), largest eased %.1f mm; %s",
			seed+uint64(i), i+1, n, r.byCause[CauseShove].Count-before[i].byCause[CauseShove].Count,
			r.byCause[CauseLease].Count-before[i].byCause[CauseLease].Count,
			r.byCause[CauseOther].Count-before[i].byCause[CauseOther].Count, tele, r.maxCorrection*1000,
			revised(r, &before[i]))
		total += n - tele
	}
	t.Logf("%d corrections in all", total)
	if total > bound {
		t.Errorf("%d corrections in thirty seconds of four wanderers; want at most %d", total, bound)
	}
	// A revision is a meeting's small difference: there are some, and
	// none larger than ReviseLimit.
	revs := uint64(0)
	for i, p := range ps {
		r := &p.c.rec
		revs += r.rev.count - before[i].rev.count
		if r.rev.largest > ReviseLimit {
			t.Errorf("client %d: a revision of %.1f mm; want at most %.0f", i+1, r.rev.largest*1000, ReviseLimit*1000)
		}
	}
	if revs == 0 {
		t.Error("no revision in thirty seconds of four wanderers meeting")
	}
}

// revised describes the revisions a client took since before, and the
// profile of its shoves' corrections.
func revised(r, before *reconciler) string {
	s := fmt.Sprintf("%d revisions (%d moved, largest %.1f mm), shoves",
		r.rev.count-before.rev.count, r.rev.moved-before.rev.moved, r.rev.largest*1000)
	for p := range NumProfiles {
		s += fmt.Sprintf(" %s %d (%.0f mm)", p, r.rev.profile[p]-before.rev.profile[p], r.rev.profLargest[p]*1000)
	}
	s += "; revisions"
	for p := range NumProfiles {
		s += fmt.Sprintf(" %s %d", p, r.rev.byProfile[p]-before.rev.byProfile[p])
	}
	return s
}

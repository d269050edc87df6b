package agones

import (
	"errors"
	"testing"
	"time"
)

// sim runs a Core on a synthetic clock: a serving loop that beats at
// 64 Hz while it runs, and an SDK server whose answer to each call the
// test chooses (nil: it lands).
type sim struct {
	t      *testing.T
	c      *Core
	now    time.Time
	answer func(Call) error
	made   []Call
	at     []time.Time
}

func newSim(t *testing.T, cfg Config) *sim {
	return &sim{t: t, c: NewCore(cfg), now: time.Unix(1000, 0), answer: func(Call) error { return nil }}
}

// run advances the clock by d in 1/64 s steps, the loop beating at each
// when beating, making every call due.
func (s *sim) run(d time.Duration, beating bool) {
	end := s.now.Add(d)
	for s.now.Before(end) {
		if beating {
			s.c.Beat(s.now)
		}
		for {
			call, ok := s.c.Next(s.now)
			if !ok {
				break
			}
			s.made = append(s.made, call)
			s.at = append(s.at, s.now)
			s.c.Done(s.now, call, s.answer(call))
		}
		s.now = s.now.Add(time.Second / 64)
	}
}

func (s *sim) count(k Kind) int {
	n := 0
	for _, c := range s.made {
		if c.Kind == k {
			n++
		}
	}
	return n
}

// TestReadyThenHealthOnTheLoopsHeartbeat: Ready once the server serves,
// the labels and the capacity once; a Health ping each period while the
// loop runs, none while it stalls, and again once it runs.
func TestReadyThenHealthOnTheLoopsHeartbeat(t *testing.T) {
	s := newSim(t, Config{HealthPeriod: time.Second, Capacity: 4,
		Labels: [][2]string{{"vkm-project", "arena"}, {"vkm-fingerprint", "0123abcd"}}, Annotations: [][2]string{{"vkm-project", "arena"}}})
	s.c.Serving(s.now)
	s.run(10*time.Second, true)
	if s.count(Ready) != 1 || s.count(SetLabel) != 2 || s.count(SetAnnotation) != 1 || s.count(SetCapacity) != 1 {
		t.Errorf("calls %v: want one Ready, two labels, an annotation and the capacity", s.made)
	}
	if n := s.count(Health); n < 10 || n > 11 {
		t.Errorf("%d Health pings in 10 s at one a second", n)
	}
	before := s.count(Health)
	s.run(5*time.Second, false)
	if n := s.count(Health) - before; n > 1 {
		t.Errorf("%d Health pings while the loop stalled for 5 s, want at most the one its last beat allowed", n)
	}
	before = s.count(Health)
	s.run(3*time.Second, true)
	if n := s.count(Health) - before; n < 3 || n > 4 {
		t.Errorf("%d Health pings in the 3 s after the loop ran again", n)
	}
	t.Logf("%d calls: %d Health", len(s.made), s.count(Health))
}

// TestAnAllocatedServerWithPlayersIsNeverReady: the SDK server refuses
// Ready at first; meanwhile Agones allocates the server and players are
// seated. The Ready being retried is never made; once the players have
// left for the grace, the match is over and the server asks Shutdown.
func TestAnAllocatedServerWithPlayersIsNeverReady(t *testing.T) {
	s := newSim(t, Config{})
	refused := 0
	s.answer = func(c Call) error {
		if c.Kind == Ready && refused < 3 {
			refused++
			return errors.New("connection refused")
		}
		return nil
	}
	s.c.Serving(s.now)
	s.run(150*time.Millisecond, true) // the first two Readys fail
	s.c.Watched(s.now, GameServer{State: StateAllocated})
	s.c.Roster(s.now, []string{"7", "9"})
	s.run(10*time.Second, true)
	if s.count(Ready) != refused {
		t.Fatalf("%d Ready calls, %d refused: a Ready was made for an allocated server with players", s.count(Ready), refused)
	}
	s.c.Roster(s.now, []string{"9"})
	s.run(10*time.Second, true)
	s.c.Roster(s.now, nil)
	s.run(DefaultMatchEndGrace-time.Second, true)
	if s.count(Shutdown) != 0 {
		t.Fatal("Shutdown before the grace passed")
	}
	s.run(2*time.Second, true)
	if s.count(Shutdown) != 1 || s.count(Ready) != refused || s.count(Allocate) != 0 {
		t.Errorf("after the match: %d Shutdown, %d Ready, %d Allocate; want 1, %d (the refused), 0", s.count(Shutdown), s.count(Ready), s.count(Allocate), refused)
	}
	s.run(2*time.Minute, true)
	if s.count(Ready) != refused || s.count(Shutdown) != 1 {
		t.Errorf("later: %d Ready, %d Shutdown", s.count(Ready), s.count(Shutdown))
	}
}

// TestPlayersOnAReadyServerAllocateIt: players a lobby sent to a Ready
// server make it allocate itself, once; it is not Ready again while they
// play, nor after they leave: the match is over.
func TestPlayersOnAReadyServerAllocateIt(t *testing.T) {
	s := newSim(t, Config{})
	s.c.Serving(s.now)
	s.run(time.Second, true)
	s.c.Watched(s.now, GameServer{State: StateReady})
	s.c.Roster(s.now, []string{"1"})
	s.run(time.Second, true)
	s.c.Watched(s.now, GameServer{State: StateReady}) // a late line of the watch
	s.c.Watched(s.now, GameServer{State: StateAllocated})
	s.run(time.Second, true)
	s.c.Roster(s.now, nil)
	s.run(10*time.Second, true)
	if s.count(Ready) != 1 || s.count(Allocate) != 1 || s.count(Shutdown) != 1 {
		t.Errorf("%d Ready, %d Allocate, %d Shutdown; want 1, 1, 1: %v", s.count(Ready), s.count(Allocate), s.count(Shutdown), s.made)
	}
}

// TestAnIdleAllocationIsReadyAgain: allocated, nobody comes within
// IdleAllocation: Ready again; a drain stops any further Ready, and the
// stop asks Shutdown.
func TestAnIdleAllocationIsReadyAgain(t *testing.T) {
	s := newSim(t, Config{IdleAllocation: 30 * time.Second})
	s.c.Serving(s.now)
	s.run(time.Second, true)
	s.c.Watched(s.now, GameServer{State: StateAllocated})
	s.run(29*time.Second, true)
	if s.count(Ready) != 1 {
		t.Fatalf("%d Ready before the allocation went idle", s.count(Ready))
	}
	s.run(2*time.Second, true)
	if s.count(Ready) != 2 || s.c.State() != StateReady {
		t.Fatalf("%d Ready, state %s after an idle allocation", s.count(Ready), s.c.State())
	}
	s.c.Watched(s.now, GameServer{State: StateAllocated})
	s.c.Draining(s.now)
	s.run(time.Minute, true)
	if s.count(Ready) != 2 {
		t.Errorf("a draining server was made Ready")
	}
	s.c.Stopped(s.now)
	s.run(time.Second, false)
	if s.count(Shutdown) != 1 {
		t.Errorf("%d Shutdown after the stop", s.count(Shutdown))
	}
}

// TestPlayerTracking: the capacity first, then a connect for each player
// seated and a disconnect for each gone; an SDK server that refuses the
// calls (the feature is off) turns them off, and the rest goes on.
func TestPlayerTracking(t *testing.T) {
	s := newSim(t, Config{Capacity: 4})
	s.c.Serving(s.now)
	s.c.Roster(s.now, []string{"b", "a"})
	s.run(time.Second, true)
	s.c.Roster(s.now, []string{"c", "b"})
	s.run(time.Second, true)
	var log []string
	for _, c := range s.made {
		switch c.Kind {
		case SetCapacity:
			log = append(log, "cap")
		case PlayerConnect:
			log = append(log, "+"+c.Player)
		case PlayerDisconnect:
			log = append(log, "-"+c.Player)
		}
	}
	if got := fmtList(log); got != "cap +a +b -a +c" {
		t.Errorf("player calls %s, want cap +a +b -a +c", got)
	}

	off := newSim(t, Config{Capacity: 4})
	off.answer = func(c Call) error {
		if c.Kind == SetCapacity {
			return &StatusError{Code: 500, Body: "PlayerTracking is not enabled"}
		}
		return nil
	}
	off.c.Serving(off.now)
	off.c.Roster(off.now, []string{"a"})
	off.run(5*time.Second, true)
	if off.count(SetCapacity) != 1 || off.count(PlayerConnect) != 0 || off.c.Tracking() || off.count(Health) < 4 {
		t.Errorf("with tracking off: %d capacity, %d connects, tracking %v, %d Health", off.count(SetCapacity), off.count(PlayerConnect), off.c.Tracking(), off.count(Health))
	}
}

func fmtList(l []string) string {
	out := ""
	for i, s := range l {
		if i > 0 {
			out += " "
		}
		out += s
	}
	return out
}

// TestRetriesBackOff: a call the SDK server does not answer is retried
// after 100 ms, doubling to 2 s.
func TestRetriesBackOff(t *testing.T) {
	s := newSim(t, Config{})
	s.answer = func(c Call) error {
		if c.Kind == Ready {
			return errors.New("connection refused")
		}
		return nil
	}
	s.c.Serving(s.now)
	s.run(10*time.Second, false)
	var gaps []time.Duration
	var last time.Time
	for i, c := range s.made {
		if c.Kind == Ready {
			if !last.IsZero() {
				gaps = append(gaps, s.at[i].Sub(last).Round(10*time.Millisecond))
			}
			last = s.at[i]
		}
	}
	want := []time.Duration{110, 200, 410, 800, 1600, 2000, 2000}
	if len(gaps) < len(want) {
		t.Fatalf("gaps %v", gaps)
	}
	for i, w := range want {
		if d := gaps[i] - w*time.Millisecond; d < -20*time.Millisecond || d > 20*time.Millisecond {
			t.Errorf("gap %d: %v, want about %v (all: %v)", i, gaps[i], w*time.Millisecond, gaps)
		}
	}
}

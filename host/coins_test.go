package host

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"vkm/host/netio"
	"vkm/host/project"
)

// TestCoinsPlaysRoundsWithFourBots serves the coin game to four bot
// clients on loopback, with 3-second rounds and a mint that fills the yard
// at once, for ten seconds of game time. One bot leaves after four and a
// half seconds, between the first round's end and the second's. No end may
// raise a script error; coins must be collected, a round must end with a
// winner named in the server's log, and the leave handler must have run
// for the bot that left.
func TestCoinsPlaysRoundsWithFourBots(t *testing.T) {
	synctest.Test(t, testCoinsRounds)
}

func testCoinsRounds(t *testing.T) {
	p := coinsCopy(t, "scenes/yard.toml",
		"props = { length = 60 }", "props = { length = 3 }",
		"every = 0.5, most = 8", "every = 0.05, most = 30")
	var logs lockedBuffer
	n := netio.NewLoopback()
	addr, stop := servedLogging(t, n, p, slog.New(slog.NewTextHandler(&logs, nil)))
	defer func() {
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	}()

	play := func(name string, count int, seed uint64, d time.Duration) (Report, error) {
		ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
		defer cancel()
		return PlayBots(ctx, BotsConfig{
			Play: PlayConfig{Project: p, Connect: addr, Net: n, Name: name, Duration: d, Logger: testLogger(t)},
			Kind: "wander", Seed: seed, Count: count,
		})
	}
	var (
		wg       sync.WaitGroup
		leaver   Report
		leaveErr error
	)
	wg.Go(func() { leaver, leaveErr = play("leaver", 1, 100, 4500*time.Millisecond) })
	stayers, err := play("", 3, 1, 10*time.Second)
	wg.Wait()
	srv := stop()
	if err != nil || leaveErr != nil {
		t.Fatalf("bots: %v, %v", err, leaveErr)
	}

	for i, c := range append(stayers.Clients, leaver.Clients...) {
		t.Logf("client %d: player %d %s/%s, %d ticks, %d corrections, events %v", i+1, c.Player, c.State, c.Exit, c.Ticks, c.Corrections, c.Events)
		if c.Exit != "ok" || c.Player == 0 || c.Errors != 0 {
			t.Errorf("client %d: exit %s as player %d, %d script errors %v (%s)", i+1, c.Exit, c.Player, c.Errors, c.ErrorMessages, c.LastError)
		}
	}
	t.Logf("server: %d joins, %d leaves, %d errors, events %v", srv.Joins, srv.Leaves, srv.Errors, srv.Events)
	if srv.Errors != 0 || srv.Joins != 4 {
		t.Errorf("server: %d script errors, %d joins; want none and 4", srv.Errors, srv.Joins)
	}
	if srv.Events["coin"] == 0 {
		t.Errorf("no coin was collected: events %v", srv.Events)
	}
	// Every client shows the coins taken while it watched, once each,
	// from the cause on the taker (Took), never a take the server did not
	// make: the stayers watched from start to end.
	for i, c := range stayers.Clients {
		if n := uint64(c.Events["pickup"]); n == 0 || n > srv.Events["coin"] {
			t.Errorf("stayer %d showed %d pickups of the server's %d coins", i+1, n, srv.Events["coin"])
		}
	}

	log := logs.String()
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "msg=lua") {
			t.Log(line[strings.Index(line, "msg=lua"):])
		}
	}
	won := regexp.MustCompile(`round \d+ over: (leaver1|bot[1-3])( and (leaver1|bot[1-3]))* (wins|share it) with \d+ coins?`)
	if srv.Events["round_over"] == 0 || !won.MatchString(log) {
		t.Errorf("no round ended with a winner (%d round_over events)", srv.Events["round_over"])
	}
	// Each round's end lists every player, best first: four lines the first
	// time, while the leaver is still seated.
	if !strings.Contains(log, `msg="  4. `) {
		t.Errorf("the first round's scoreboard does not list four players")
	}
	if srv.Leaves == 0 || srv.Events["left"] == 0 || !strings.Contains(log, fmt.Sprintf("player %d left, dropping ", leaver.Clients[0].Player)) {
		t.Errorf("the leave handler did not run for player %d: %d leaves, %d left events", leaver.Clients[0].Player, srv.Leaves, srv.Events["left"])
	}
}

// coinsCopy returns the coin game with file edited in memory: each old,
// new pair of pairs replaces old, which must be there, by new.
func coinsCopy(t *testing.T, file string, pairs ...string) *project.Project {
	t.Helper()
	return projectCopy(t, loadProject(t, "coins"), func(name string, data []byte) []byte {
		if name != file {
			return data
		}
		for i := 0; i+1 < len(pairs); i += 2 {
			if !bytes.Contains(data, []byte(pairs[i])) {
				t.Fatalf("%s holds no %q", name, pairs[i])
			}
			data = bytes.Replace(data, []byte(pairs[i]), []byte(pairs[i+1]), 1)
		}
		return data
	})
}

// lockedBuffer is a bytes.Buffer the server's goroutines may log to.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

package host

import (
	"context"
	"math"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"vkm/host/game"
	"vkm/host/netio"
	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/prediction"
)

// pacer runs one way for a number of ticks, then the other.
type pacer struct {
	axis, every, n int
}

func (p *pacer) Next() prediction.Command {
	var c prediction.Command
	c.Axes[p.axis] = 1
	if p.n/p.every%2 == 1 {
		c.Axes[p.axis] = -1
	}
	p.n++
	return c
}

// TestDevReload is hot reload as a developer meets it, end to end: a --dev
// server and a --dev client, as Serve and Play run them, play the arena,
// running; the walker's script is saved at half speed on disk; within a
// second both ends run the character at the new speed, nobody disconnects,
// and the client corrects nothing in the five seconds after. It runs on an
// in-process network under testing/synctest, so its seconds are the
// bubble's and a busy machine cannot stretch them.
func TestDevReload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { devReload(t, netio.NewLoopback(), true) })
}

// TestDevReloadOverUDP is the same on real UDP sockets on 127.0.0.1 and
// the wall clock, as a smoke test: both ends reload and the client plays
// on. Timing and corrections are left to TestDevReload, since a loaded
// machine stretches real time.
func TestDevReloadOverUDP(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of real sockets on the wall clock: runs without -short")
	}
	devReload(t, nil, false)
}

// devReload plays the reload on n (nil: UDP); strict also holds the reload
// to a second and the five seconds after it to no correction.
func devReload(t *testing.T, n *netio.Loopback, strict bool) {
	dir := copyProject(t, "../projects/arena")
	sp, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// What each end has seen, written on its own goroutine.
	type end struct {
		reloadedAt time.Time
		fastest    float64 // |vx| of the player's character since the last reset
		own        bool
	}
	var (
		mu         sync.Mutex
		srv, cli   end
		report     ClientReport
		reportedAt time.Time
	)
	watch := func(e *end, g *game.Game, id func(*game.Game) (float64, bool)) {
		mu.Lock()
		defer mu.Unlock()
		if g.Reloads() > 0 && e.reloadedAt.IsZero() {
			e.reloadedAt = time.Now()
		}
		if vx, ok := id(g); ok {
			e.fastest, e.own = math.Max(e.fastest, math.Abs(vx)), true
		}
	}
	ready := make(chan netip.AddrPort, 1)
	served := make(chan error, 1)
	go func() {
		_, err := Serve(ctx, ServeConfig{
			Project: sp, Addr: "127.0.0.1:0", Net: n, Dev: true, Logger: testLogger(t),
			Ready: func(a netip.AddrPort) { ready <- a },
			AfterTick: func(g *game.Game) {
				watch(&srv, g, func(g *game.Game) (float64, bool) {
					vx, ok := 0.0, false
					g.Store().Each(func(id entity.ID) bool {
						if g.Command(id) != nil && g.Store().Rigidbody(id) != nil {
							vx, ok = g.Store().Rigidbody(id).VX, true
						}
						return !ok
					})
					return vx, ok
				})
			},
		})
		served <- err
	}()
	addr := <-ready
	// The player runs back and forth along the hall, pressing no button:
	// on a real link a command now and then arrives too late for its tick,
	// and a late held axis is repeated exactly, where a late button edge
	// would be a correction the reload did not cause.
	bot := &pacer{axis: cp.AxisIndex("run"), every: 2 * 64}
	played := make(chan error, 1)
	go func() {
		_, err := Play(ctx, PlayConfig{
			Project: cp, Connect: addr.String(), Net: n, Dev: true, Input: bot, Logger: testLogger(t),
			AfterTick: func(g *game.Game) {
				watch(&cli, g, func(g *game.Game) (float64, bool) {
					if rb := g.Store().Rigidbody(g.Own()); rb != nil && g.Simulates(g.Own()) {
						return rb.VX, true
					}
					return 0, false
				})
			},
			OnStatus: func(r ClientReport) {
				mu.Lock()
				report, reportedAt = r, time.Now()
				mu.Unlock()
			},
		})
		played <- err
	}()
	// poll waits on the other goroutines' progress, not on time.
	poll := func(what string, within time.Duration, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(within)
		for {
			mu.Lock()
			done := ok()
			mu.Unlock()
			if done {
				return
			}
			if time.Now().After(deadline) {
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("%s: not within %v; reloaded at %v (client) and %v (server); the client's last report %+v", what, within,
					cli.reloadedAt.Format(time.StampMilli), srv.reloadedAt.Format(time.StampMilli), report)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	poll("the client playing with a character", 10*time.Second, func() bool { return cli.own && srv.own })
	start := time.Now()
	poll("three seconds of play", 10*time.Second, func() bool { return reportedAt.After(start.Add(3 * time.Second)) })
	mu.Lock()
	c0, s0 := cli.fastest, srv.fastest
	mu.Unlock()

	if err := os.WriteFile(filepath.Join(dir, "scripts/walker.lua"), slowWalker(t), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := time.Now()
	// How soon is held to a second by the strict run, on synctest's clock;
	// on the wall clock a busy machine may take longer.
	poll("the reload on both ends", 15*time.Second, func() bool { return !cli.reloadedAt.IsZero() && !srv.reloadedAt.IsZero() })
	mu.Lock()
	tookC, tookS := cli.reloadedAt.Sub(saved), srv.reloadedAt.Sub(saved)
	before := report
	mu.Unlock()
	after := time.Now()
	// The controller takes a few ticks to slow from 8 to 4 m/s; the speed
	// is measured from a quarter of a second on.
	poll("a quarter of a second after the reload", time.Second, func() bool { return time.Since(after) > time.Second/4 })
	mu.Lock()
	cli.fastest, srv.fastest = 0, 0
	mu.Unlock()
	// The smoke test plays on for a second, enough to see the new speed;
	// the strict one for the five seconds it holds to no correction.
	playOn := time.Second
	if strict {
		playOn = 5 * time.Second
	}
	poll("play after the reload", 15*time.Second, func() bool { return reportedAt.After(after.Add(playOn)) })
	mu.Lock()
	c1, s1, r := cli.fastest, srv.fastest, report
	mu.Unlock()
	t.Logf("reloaded %v (client) and %v (server) after the save; fastest run before %.2f/%.2f m/s (client/server), after %.2f/%.2f; corrections %d → %d; state %s",
		tookC.Round(time.Millisecond), tookS.Round(time.Millisecond), c0, s0, c1, s1, before.Corrections, r.Corrections, r.State)
	if strict && (tookC > time.Second || tookS > time.Second) {
		t.Errorf("the reload took more than a second")
	}
	if c0 < 6 || s0 < 6 || c1 > 4.01 || s1 > 4.01 {
		t.Errorf("the run speed did not halve on both ends")
	}
	if r.State != "playing" {
		t.Errorf("the client is %s", r.State)
	}
	if strict && r.Corrections != before.Corrections {
		t.Errorf("%d corrections in the five seconds after the reload", r.Corrections-before.Corrections)
	}
	cancel()
	if err := <-played; err != nil {
		t.Error(err)
	}
	if err := <-served; err != nil {
		t.Error(err)
	}
}

package host

import (
	"context"
	"log/slog"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"vkm/host/netio"
	"vkm/transport/handshake"
)

// drainHook is the arena's vkmSetupNetwork with a drain handler that
// leaves a mark the server's report counts: a pickup that emits a
// "drain" event.
const drainHook = `  net.on_join(join)
  net.on_drain(function(left)
    local e = net.spawn("prefabs/pickup.toml", 0, 0)
    e:emit("drain", { left = left })
  end)
`

// TestDrainPlaysOnThenSaysGoodbye drains a server with two bots playing:
// a join during the drain is refused as shutting down, the bots play on
// until the drain time passes and are then told the server shut down,
// the game's drain handler ran once, and Serve returns its report.
func TestDrainPlaysOnThenSaysGoodbye(t *testing.T) {
	synctest.Test(t, testDrain)
}

func testDrain(t *testing.T) {
	const drainTime = 3 * time.Second
	n := netio.NewLoopback()
	p := arenaCopy(t, func(name string, data []byte) []byte {
		if name != "scripts/main.lua" {
			return data
		}
		s := string(data)
		if !strings.Contains(s, "  net.on_join(join)\n") {
			t.Fatal("the arena's main.lua no longer registers net.on_join(join)")
		}
		return []byte(strings.Replace(s, "  net.on_join(join)\n", drainHook, 1))
	})
	drain := make(chan struct{}, 2)
	ready := make(chan netip.AddrPort, 1)
	type result struct {
		rep *ServerReport
		err error
	}
	done := make(chan result, 1)
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	go func() {
		rep, err := Serve(ctx, ServeConfig{Project: p, Addr: "127.0.0.1:0", Net: n, Drain: drain, DrainTime: drainTime,
			Ready:  func(a netip.AddrPort) { ready <- a },
			Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))})
		done <- result{rep, err}
	}()
	addr := (<-ready).String()

	var seated atomic.Int32
	allSeated := make(chan struct{})
	type botsResult struct {
		rep Report
		err error
	}
	bots := make(chan botsResult, 1)
	go func() {
		rep, err := PlayBots(ctx, BotsConfig{
			Play: PlayConfig{Project: p, Connect: addr, Net: n, Logger: testLogger(t)},
			Kind: "wander", Seed: 1, Count: 2,
			OnState: func(i int, state, why string) {
				if state == "playing" && seated.Add(1) == 2 {
					close(allSeated)
				}
			},
		})
		bots <- botsResult{rep, err}
	}()
	select {
	case <-allSeated:
	case <-ctx.Done():
		t.Fatal("the bots were never seated")
	}
	start := time.Now()
	drain <- struct{}{}

	late := join(t, n, p, addr, "refused", "playing", "disconnected")
	if late.Refusal != handshake.ReasonShuttingDown.String() || late.LastError != "The server is shutting down." {
		t.Errorf("a join during the drain: refusal %q, %q; want shutting_down", late.Refusal, late.LastError)
	}

	b := <-bots
	if b.err != nil {
		t.Fatal(b.err)
	}
	took := time.Since(start)
	if took < drainTime || took > drainTime+time.Second {
		t.Errorf("the bots were sent away %v after the drain began, want within a second after %v", took, drainTime)
	}
	for i, c := range b.rep.Clients {
		if c.State != "disconnected" || c.LastError != "The server shut down." {
			t.Errorf("bot %d ended %s %q, want disconnected by the server's shutdown", i+1, c.State, c.LastError)
		}
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.rep == nil {
		t.Fatal("no report")
	}
	if r.rep.Events["drain"] != 1 {
		t.Errorf("drain events %d, want the drain handler to have run once (events %v)", r.rep.Events["drain"], r.rep.Events)
	}
	// A client says Hello more than once before it hears back, and each is
	// refused: one join, at least one refusal.
	if r.rep.Refused == 0 || r.rep.Joins != 2 || r.rep.Players != 2 || r.rep.Errors != 0 {
		t.Errorf("report: refused %d joins %d players %d errors %d; want some, 2, 2, 0", r.rep.Refused, r.rep.Joins, r.rep.Players, r.rep.Errors)
	}
	if ctx.Err() != nil {
		t.Error("Serve ran until the test's deadline")
	}
}

// TestDrainEndsOnceEveryoneLeft: a drained server with no players stops
// at once rather than after its drain time, as does one with no drain
// time.
func TestDrainEndsOnceEveryoneLeft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, c := range []struct {
			twice     bool
			drainTime time.Duration
		}{{false, time.Hour}, {false, 0}} {
			drain := make(chan struct{}, 2)
			done := make(chan *ServerReport, 1)
			go func() {
				rep, err := Serve(context.Background(), ServeConfig{Project: loadArena(t), Addr: "127.0.0.1:0", Net: netio.NewLoopback(),
					Drain: drain, DrainTime: c.drainTime, Logger: testLogger(t)})
				if err != nil {
					t.Error(err)
				}
				done <- rep
			}()
			start := time.Now()
			drain <- struct{}{}
			if c.twice {
				drain <- struct{}{}
			}
			rep := <-done
			if rep == nil {
				t.Fatal("no report")
			}
			if took := time.Since(start); took > time.Second {
				t.Errorf("%+v: an empty server took %v to stop", c, took)
			}
		}
	})
}

// TestSecondDrainStopsAtOnce: told to stop again while draining, a server
// with a player says goodbye at once and returns its report.
func TestSecondDrainStopsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := netio.NewLoopback()
		p := loadArena(t)
		drain := make(chan struct{}, 2)
		ready := make(chan netip.AddrPort, 1)
		done := make(chan *ServerReport, 1)
		go func() {
			rep, err := Serve(context.Background(), ServeConfig{Project: p, Addr: "127.0.0.1:0", Net: n,
				Drain: drain, DrainTime: time.Hour, Ready: func(a netip.AddrPort) { ready <- a }, Logger: testLogger(t)})
			if err != nil {
				t.Error(err)
			}
			done <- rep
		}()
		addr := (<-ready).String()
		ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
		defer cancel()
		seated := make(chan struct{})
		bot := make(chan ClientReport, 1)
		go func() {
			rep, err := Play(ctx, PlayConfig{Project: p, Connect: addr, Net: n, Logger: testLogger(t),
				OnState: func(state, why string) {
					if state == "playing" {
						close(seated)
					}
				}})
			if err != nil {
				t.Error(err)
			}
			bot <- rep
		}()
		select {
		case <-seated:
		case <-ctx.Done():
			t.Fatal("never seated")
		}
		drain <- struct{}{}
		time.Sleep(2 * time.Second) // synctest: two seconds of the drain go by
		select {
		case <-done:
			t.Fatal("the server stopped with a player seated and most of its drain time left")
		default:
		}
		start := time.Now()
		drain <- struct{}{}
		if rep := <-done; rep == nil || rep.Players != 1 {
			t.Fatalf("report %+v, want one with the player still seated", rep)
		}
		if took := time.Since(start); took > 100*time.Millisecond {
			t.Errorf("the second request took %v to stop the server", took)
		}
		if c := <-bot; c.State != "disconnected" || c.LastError != "The server shut down." {
			t.Errorf("the player ended %s %q, want told the server shut down", c.State, c.LastError)
		}
	})
}

package host

import (
	"context"
	"io/fs"
	"log/slog"
	"net/netip"
	"strings"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"
	"vkm/host/netio"
	"vkm/host/project"
)

// testDeadline bounds every session test: a join on loopback takes
// milliseconds, so reaching it means something is stuck, not slow.
const testDeadline = 20 * time.Second

// The end-to-end tests here run Serve and Play as the programs do, on an
// in-process Loopback under testing/synctest: the loops wait on channels
// and timers only, so time passes when every end is waiting, and a busy
// machine cannot make a test late. One of each kind also runs on real UDP
// and the wall clock, as a smoke test of the sockets.

// served starts Serve for p on a free loopback port of n (nil: UDP on
// 127.0.0.1) and returns its address and a function that stops it and
// returns its report.
func served(t *testing.T, n *netio.Loopback, p *project.Project) (string, func() *ServerReport) {
	t.Helper()
	return servedLogging(t, n, p, nil)
}

// servedLogging is served with the server's log going to log (nil: the
// test's output, warnings and worse).
func servedLogging(t *testing.T, n *netio.Loopback, p *project.Project, log *slog.Logger) (string, func() *ServerReport) {
	t.Helper()
	return servedWith(t, n, ServeConfig{Project: p, Logger: log})
}

// servedWith is served for cfg, whose Addr, Net and Ready it sets, and
// Logger when it is nil.
func servedWith(t *testing.T, n *netio.Loopback, cfg ServeConfig) (string, func() *ServerReport) {
	t.Helper()
	// Twice the deadline: a client's play of testDeadline (the relay's
	// 20 s on the synctest clock) ends before its server's context does.
	ctx, cancel := context.WithTimeout(context.Background(), 2*testDeadline)
	ready := make(chan netip.AddrPort, 1)
	type result struct {
		rep *ServerReport
		err error
	}
	done := make(chan result, 1)
	go func() {
		cfg.Addr, cfg.Net, cfg.Ready = "127.0.0.1:0", n, func(a netip.AddrPort) { ready <- a }
		if cfg.Logger == nil {
			cfg.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
		}
		rep, err := Serve(ctx, cfg)
		done <- result{rep, err}
	}()
	var addr netip.AddrPort
	select {
	case addr = <-ready:
	case r := <-done:
		cancel()
		t.Fatalf("Serve ended before listening: %v", r.err)
	}
	stop := func() *ServerReport {
		cancel()
		r := <-done
		if r.err != nil {
			t.Errorf("Serve: %v", r.err)
		}
		return r.rep
	}
	return addr.String(), stop
}

// join plays p as a client of addr on n until its session reaches a state
// in until (then it leaves) and returns the report.
func join(t *testing.T, n *netio.Loopback, p *project.Project, addr string, until ...string) ClientReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	rep, err := Play(ctx, PlayConfig{
		Project: p, Connect: addr, Net: n, Name: "tester",
		OnState: func(state, why string) {
			for _, s := range until {
				if s == state {
					cancel()
				}
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("the session never reached %v: %+v", until, rep)
	}
	return rep
}

// arenaCopy returns the arena with one file replaced, in memory.
func arenaCopy(t *testing.T, edit func(name string, data []byte) []byte) *project.Project {
	t.Helper()
	return projectCopy(t, loadArena(t), edit)
}

// projectCopy returns p with its files passed through edit, in memory.
func projectCopy(t *testing.T, p *project.Project, edit func(name string, data []byte) []byte) *project.Project {
	t.Helper()
	fsys := fstest.MapFS{}
	err := fs.WalkDir(p.FS, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(p.FS, name)
		if err != nil {
			return err
		}
		fsys[name] = &fstest.MapFile{Data: edit(name, data)}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	q := *p
	q.FS = fsys
	return &q
}

func TestAClientJoinsAServerAndLeaves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { joinAndLeave(t, netio.NewLoopback()) })
}

func TestAClientJoinsAServerAndLeavesOverUDP(t *testing.T) { joinAndLeave(t, nil) }

func joinAndLeave(t *testing.T, n *netio.Loopback) {
	addr, stop := served(t, n, loadArena(t))
	rep := join(t, n, loadArena(t), addr, "playing")
	t.Logf("client: %+v", rep)
	if rep.State != "playing" || rep.Exit != "ok" || rep.Player != 1 || rep.LastError != "" {
		t.Fatalf("client report %+v, want playing as player 1", rep)
	}
	srv := stop()
	t.Logf("server: %+v", srv)
	if srv.Joins != 1 {
		t.Fatalf("server saw %d joins", srv.Joins)
	}
}

func TestRefusalsReachThePlayerAsSentences(t *testing.T) {
	swapped := arenaCopy(t, func(name string, data []byte) []byte {
		if name != "scripts/main.lua" {
			return data
		}
		health := "  net.component(\"Health\", {\n    {\"hp\", net.int(0, 100)},\n  })\n"
		s := strings.Replace(string(data), health, "", 1)
		return []byte(strings.Replace(s, "  net.on_join(", health+"  net.on_join(", 1))
	})
	fast := loadArena(t)
	fast.TickRate = 128
	declining := arenaCopy(t, func(name string, data []byte) []byte {
		if name != "scripts/join.lua" {
			return data
		}
		s := strings.Replace(string(data), "return function(player)", "return function(player)\n  do return nil end", 1)
		if s == string(data) {
			t.Fatal("scripts/join.lua no longer returns the join handler as this test expects")
		}
		return []byte(s)
	})
	for _, tc := range []struct {
		name         string
		server       *project.Project
		client       *project.Project
		refusal      string
		sentenceHint string
	}{
		{"the same types in another order", loadArena(t), swapped, "mismatch", ""},
		{"another tick rate", loadArena(t), fast, "tick_rate", "128"},
		{"the game declines", declining, loadArena(t), "declined", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := netio.NewLoopback()
				addr, stop := served(t, n, tc.server)
				defer stop()
				rep := join(t, n, tc.client, addr, "refused")
				t.Logf("client: state %s refusal %s: %q", rep.State, rep.Refusal, rep.LastError)
				if rep.State != "refused" || rep.Exit != "refused" || rep.Refusal != tc.refusal || rep.LastError == "" {
					t.Fatalf("report %+v, want refused for %s with a sentence", rep, tc.refusal)
				}
				if !strings.Contains(rep.LastError, tc.sentenceHint) {
					t.Fatalf("sentence %q does not say %q", rep.LastError, tc.sentenceHint)
				}
			})
		})
	}
}

func TestAServerGoodbyeLeavesTheClientDisconnected(t *testing.T) {
	synctest.Test(t, testServerGoodbye)
}

func testServerGoodbye(t *testing.T) {
	n := netio.NewLoopback()
	addr, stop := served(t, n, loadArena(t))
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	var stopped bool
	rep, err := Play(ctx, PlayConfig{
		Project: loadArena(t), Connect: addr, Net: n,
		OnState: func(state, why string) {
			switch state {
			case "playing":
				if !stopped {
					stopped = true
					go stop() // the server shuts down and says goodbye
				}
			case "disconnected":
				cancel()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("client: %+v", rep)
	if rep.State != "disconnected" || rep.Exit != "disconnected" || !strings.Contains(rep.LastError, "shut down") {
		t.Fatalf("report %+v, want disconnected by the server's goodbye", rep)
	}
}

func TestAJoinSurvivesASimulatedBadLink(t *testing.T) {
	synctest.Test(t, testBadLink)
}

func testBadLink(t *testing.T) {
	const seed = 20261129
	n := netio.NewLoopback()
	t.Logf("sim seed %d", seed)
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	ready := make(chan netip.AddrPort, 1)
	done := make(chan error, 1)
	go func() {
		_, err := Serve(ctx, ServeConfig{Project: loadArena(t), Addr: "127.0.0.1:0", Net: n, Sim: "awful", SimSeed: seed,
			Ready: func(a netip.AddrPort) { ready <- a }})
		done <- err
	}()
	addr := (<-ready).String()
	cctx, ccancel := context.WithTimeout(ctx, testDeadline)
	defer ccancel()
	rep, err := Play(cctx, PlayConfig{Project: loadArena(t), Connect: addr, Net: n, Sim: "awful", SimSeed: seed + 1,
		OnState: func(state, why string) { ccancel() }})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("client over an awful link both ways: %+v", rep)
	if rep.State != "playing" {
		t.Fatalf("state %s (%s), want playing", rep.State, rep.LastError)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

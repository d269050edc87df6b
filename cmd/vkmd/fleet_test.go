package main

import (
	"context"
	"log/slog"
	"net/netip"
	"testing"
	"time"

	"vkm/host"
	"vkm/host/fleet"
	"vkm/host/project"
	"vkm/internal/redistest"
)

// fleetCfg joins a server's configuration to a fresh fleet, and returns
// it, the channel its stop signals come on, the context joinFleet made and
// the directory it registers in.
func fleetCfg(t *testing.T, duration time.Duration) (*host.ServeConfig, chan struct{}, context.Context, *fleet.Directory) {
	t.Helper()
	url := redistest.Start(t)
	p, err := project.LoadProject("../../projects/arena")
	if err != nil {
		t.Fatal(err)
	}
	stops := make(chan struct{}, 2)
	cfg := &host.ServeConfig{Project: p, Drain: stops, Duration: duration}
	ctx, leave, err := joinFleet(context.Background(), url, cfg, p, slog.New(slog.NewTextHandler(t.Output(), nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(leave)
	rdb, err := fleet.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	return cfg, stops, ctx, fleet.NewDirectory(rdb)
}

func listed(t *testing.T, d *fleet.Directory) int {
	t.Helper()
	ss, err := d.Servers(context.Background(), "arena")
	if err != nil {
		t.Fatal(err)
	}
	return len(ss)
}

var readyAddr = netip.MustParseAddrPort("127.0.0.1:27960")

// The server's drain starts only once it has left the directory: when the
// first stop reaches the serving loop, no lobby can find the server.
func TestADrainStartsAfterLeavingTheDirectory(t *testing.T) {
	cfg, stops, _, d := fleetCfg(t, 0)
	cfg.Ready(readyAddr)
	if n := listed(t, d); n != 1 {
		t.Fatalf("%d servers listed once ready, want 1", n)
	}
	stops <- struct{}{}
	<-cfg.Drain
	if n := listed(t, d); n != 0 {
		t.Fatalf("the drain began with the server still listed (%d)", n)
	}
	cfg.Seated(1) // a change of players after leaving writes nothing
	if n := listed(t, d); n != 0 {
		t.Fatalf("the server was listed again after it left (%d)", n)
	}
	stops <- struct{}{} // the second signal stops it, and is passed on too
	<-cfg.Drain
}

// A stop that comes before the server listens keeps it out of the
// directory for good.
func TestAServerStoppedBeforeItListensIsNeverListed(t *testing.T) {
	cfg, stops, _, d := fleetCfg(t, 0)
	stops <- struct{}{}
	<-cfg.Drain
	cfg.Ready(readyAddr)
	if n := listed(t, d); n != 0 {
		t.Fatalf("a server stopped before it listened was listed (%d)", n)
	}
}

// With --duration the run ends by the context joinFleet returns, once the
// server has left the directory.
func TestTheDurationEndsTheRunAfterLeaving(t *testing.T) {
	cfg, _, ctx, d := fleetCfg(t, 200*time.Millisecond)
	if cfg.Duration != 0 {
		t.Fatalf("Serve is left a duration of %v: it would stop before leaving", cfg.Duration)
	}
	cfg.Ready(readyAddr)
	if n := listed(t, d); n != 1 {
		t.Fatalf("%d servers listed once ready, want 1", n)
	}
	<-ctx.Done()
	if n := listed(t, d); n != 0 {
		t.Fatalf("the run ended with the server still listed (%d)", n)
	}
}

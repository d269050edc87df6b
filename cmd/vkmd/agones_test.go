package main

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net/netip"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"vkm/host"
	"vkm/host/agones"
	"vkm/host/project"
	"vkm/internal/agonestest"
	"vkm/transport/token"
)

// waitSDK waits up to limit for cond, checked at each call or change the
// stand-in sees and every 50 ms.
func waitSDK(t *testing.T, sdk *agonestest.SDK, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(limit)
	for {
		changed := sdk.Changed()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("%s: not within %v; state %s, calls %v", what, limit, sdk.State(), paths(sdk.Calls("")))
		}
	}
}

func paths(calls []agonestest.Call) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.Path)
	}
	return out
}

// TestAgonesThroughAMatchAndADrain serves the arena as vkmd --agones does
// (host.JoinAgones, then host.Serve on UDP) beside the stand-in SDK server
// (internal/agonestest, written from Agones' documentation of its HTTP
// API): the public address comes from the GameServer; the stand-in sees
// Ready once serving, the labels, Health at one a second while the loop
// runs; Agones' allocator allocates it; two bots join and are counted as
// players; the server is never made Ready again; a drain plays on and,
// once it has ended, the server asks Shutdown.
func TestAgonesThroughAMatchAndADrain(t *testing.T) {
	port := freePort(t)
	public := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port))
	p, err := project.LoadProject("../../projects/arena")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	logger := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelInfo}))

	// With a key, the GameServer's address is what the players' tokens
	// must name (a GameServer of its own: leaving shuts it down).
	keyedSDK := agonestest.New(t, "127.0.0.1", port)
	t.Setenv(agones.PortEnv, keyedSDK.Port())
	key, err := token.NewKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keyed := host.ServeConfig{Project: p, Key: &key}
	leaveKeyed, err := host.JoinAgones(ctx, &keyed, logger)
	if err != nil {
		t.Fatal(err)
	}
	leaveKeyed()
	if len(keyed.Public) != 1 || keyed.Public[0] != public {
		t.Fatalf("public %v, want the GameServer's %v", keyed.Public, public)
	}

	sdk := agonestest.New(t, "127.0.0.1", port)
	t.Setenv(agones.PortEnv, sdk.Port())
	stops := make(chan struct{}, 2)
	cfg := host.ServeConfig{Project: p, Addr: "127.0.0.1:" + strconv.Itoa(port), Drain: stops, DrainTime: 2 * time.Second, Logger: logger}
	leave, err := host.JoinAgones(ctx, &cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Public) != 0 {
		t.Fatalf("public %v set on a server without a key", cfg.Public)
	}
	served := make(chan error, 1)
	go func() {
		_, err := host.Serve(ctx, cfg)
		served <- err
	}()
	waitSDK(t, sdk, 20*time.Second, "Ready", func() bool { return sdk.State() == "Ready" })
	healthFrom, from := len(sdk.Calls("/health")), time.Now()
	time.Sleep(3 * time.Second) // the span whose pings are counted
	pings := len(sdk.Calls("/health")) - healthFrom
	span := time.Since(from)
	t.Logf("%d Health pings in %v at one a second", pings, span.Round(time.Millisecond))
	if want := span.Seconds(); float64(pings) < want-1.5 || float64(pings) > want+1 {
		t.Errorf("%d Health pings in %v, want one a second", pings, span)
	}
	if l := sdk.Labels(); l["agones.dev/sdk-vkm-project"] != "arena" || l["agones.dev/sdk-vkm-fingerprint"] == "" {
		t.Errorf("labels %v", l)
	}
	if a := sdk.Annotations()["agones.dev/sdk-vkm-public"]; a != public.String() {
		t.Errorf("the public address annotated is %q, want %v", a, public)
	}

	if !sdk.Allocate() {
		t.Fatalf("the allocator could not allocate a GameServer in state %s", sdk.State())
	}
	var seated atomic.Int32
	bots := make(chan error, 1)
	go func() {
		_, err := host.PlayBots(ctx, host.BotsConfig{Play: host.PlayConfig{Project: p, Connect: public.String(), Logger: slog.New(slog.DiscardHandler)},
			Kind: "wander", Seed: 1, Count: 2, OnState: func(i int, state, why string) {
				if state == "playing" {
					seated.Add(1)
				}
			}})
		bots <- err
	}()
	waitSDK(t, sdk, 20*time.Second, "two players connected", func() bool { return len(sdk.Players()) == 2 })
	if sdk.Capacity() != int64(p.Players) || sdk.State() != "Allocated" {
		t.Errorf("capacity %d (want %d), state %s (want Allocated)", sdk.Capacity(), p.Players, sdk.State())
	}
	drained := time.Now()
	stops <- struct{}{}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	leave()
	<-bots
	shut := sdk.Calls("/shutdown")
	if len(shut) != 1 || shut[0].At.Sub(drained) < cfg.DrainTime || sdk.State() != "Shutdown" {
		t.Errorf("/shutdown calls %v, the drain began at %v and took %v; state %s", shut, drained, cfg.DrainTime, sdk.State())
	}
	if n := len(sdk.Calls("/ready")); n != 1 {
		t.Errorf("%d calls of /ready, want the one at the start", n)
	}
	if n := len(sdk.Calls("/allocate")); n != 0 {
		t.Errorf("%d calls of /allocate on a server Agones allocated", n)
	}
	t.Logf("calls: %d in all, %d Health, players connected %d, disconnected %d", len(sdk.Calls("")), len(sdk.Calls("/health")),
		len(sdk.Calls("/alpha/player/connect")), len(sdk.Calls("/alpha/player/disconnect")))
}

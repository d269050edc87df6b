package host

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vkm/host/project"
)

// TestAdminListenerServesTheArena serves the arena with two bots on real
// UDP and the admin listener on 127.0.0.1:0, outside synctest since an
// HTTP listener waits on the network: it polls /metrics until the tick
// histogram has observations and vkm_players is the bots seated, then
// until the bytes sent have moved on from that scrape; /healthz and
// /readyz answer 200 while it plays.
func TestAdminListenerServesTheArena(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	base, addr, served := servedWithAdmin(t, ctx, loadArena(t))

	const bots = 2
	botsCtx, stopBots := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, err := PlayBots(botsCtx, BotsConfig{Play: PlayConfig{Project: loadArena(t), Connect: addr, Logger: testLogger(t)},
			Kind: "wander", Seed: 1, Count: bots})
		if err != nil {
			t.Error(err)
		}
	}()

	first := pollMetrics(t, ctx, base, "the tick histogram observed and every bot seated", func(m map[string]float64) bool {
		return m["vkm_tick_duration_seconds_count"] > 0 && m["vkm_players"] == bots && m["vkm_bytes_sent_total"] > 0
	})
	pollMetrics(t, ctx, base, "the bytes sent moving on", func(m map[string]float64) bool {
		return m["vkm_bytes_sent_total"] > first["vkm_bytes_sent_total"]
	})
	// Healthy while playing: on a machine busy with other work one probe
	// may land in a stretch where the loop waited for a core longer than
	// two tick periods, so the probe asks again until the loop answers
	// healthy; a stalled loop never would.
	for _, path := range []string{"/healthz", "/readyz"} {
		deadline := time.Now().Add(10 * time.Second)
		for {
			code, body := httpGet(t, base+path)
			if code == http.StatusOK {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("%s: %d %q while playing for 10 s, want 200", path, code, body)
				break
			}
			time.Sleep(10 * time.Millisecond) // polling the server's goroutine
		}
	}
	stopBots()
	wg.Wait()
	cancel()
	if err := served(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("the admin listener still answers after Serve returned")
	}
}

// TestReadyzSaysFullWhenEverySeatIsTaken seats one bot on a one-seat
// arena: /readyz says ready before it joins and 503 "full" once it sits.
func TestReadyzSaysFullWhenEverySeatIsTaken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	p := loadArena(t)
	p.Players = 1
	base, addr, served := servedWithAdmin(t, ctx, p)
	if code, body := httpGet(t, base+"/readyz"); code != http.StatusOK || !strings.Contains(body, "ready: 0 of 1") {
		t.Errorf("/readyz with no one seated: %d %q, want 200 saying ready", code, body)
	}
	botsCtx, stopBots := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if _, err := PlayBots(botsCtx, BotsConfig{Play: PlayConfig{Project: loadArena(t), Connect: addr, Logger: testLogger(t)},
			Kind: "wander", Seed: 1, Count: 1}); err != nil {
			t.Error(err)
		}
	}()
	for {
		code, body := httpGet(t, base+"/readyz")
		if code == http.StatusServiceUnavailable && strings.Contains(body, "full: 1 of 1 seats taken") {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("/readyz never said full: last %d %q", code, body)
		case <-time.After(20 * time.Millisecond): // the polling interval
		}
	}
	stopBots()
	wg.Wait()
	cancel()
	if err := served(); err != nil {
		t.Fatal(err)
	}
}

// servedWithAdmin serves p on real UDP with the admin listener, both on
// free ports of 127.0.0.1, until ctx ends; it returns the listener's base
// URL, the game's address, and a function that waits for Serve to return.
func servedWithAdmin(t *testing.T, ctx context.Context, p *project.Project) (base, addr string, wait func() error) {
	t.Helper()
	ready := make(chan netip.AddrPort, 1)
	admin := make(chan net.Addr, 1)
	served := make(chan error, 1)
	go func() {
		_, err := Serve(ctx, ServeConfig{Project: p, Addr: "127.0.0.1:0", Admin: "127.0.0.1:0", Logger: testLogger(t),
			Ready: func(a netip.AddrPort) { ready <- a }, AdminReady: func(a net.Addr) { admin <- a }})
		served <- err
	}()
	select {
	case a := <-admin:
		base = "http://" + a.String()
	case err := <-served:
		t.Fatalf("Serve ended before listening: %v", err)
	}
	return base, (<-ready).String(), func() error { return <-served }
}

// pollMetrics scrapes base's /metrics until cond holds of its samples
// and returns them; it fails the test when ctx ends first.
func pollMetrics(t *testing.T, ctx context.Context, base, what string, cond func(map[string]float64) bool) map[string]float64 {
	t.Helper()
	var m map[string]float64
	for {
		code, body := httpGet(t, base+"/metrics")
		if code != http.StatusOK {
			t.Fatalf("/metrics: %d %s", code, body)
		}
		if m = parseSamples(t, body); cond(m) {
			return m
		}
		select {
		case <-ctx.Done():
			t.Fatalf("/metrics never showed %s: players %v, ticks %v, bytes sent %v", what,
				m["vkm_players"], m["vkm_tick_duration_seconds_count"], m["vkm_bytes_sent_total"])
		case <-time.After(50 * time.Millisecond): // the polling interval
		}
	}
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// parseSamples reads a text exposition's samples, by name and labels as
// written.
func parseSamples(t *testing.T, body string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("sample %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

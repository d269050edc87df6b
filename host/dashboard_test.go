package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vkm/host/game"
	"vkm/transport/handshake"
)

// metricName matches the names of the metrics vkmd serves (its own, the
// Go runtime's and the process's) in a query or a rule; histogram series
// (_bucket, _sum, _count) are named as scraped.
var metricName = regexp.MustCompile(`\b(?:vkm|go|process)_[a-z0-9_]+\b`)

// TestDashboardAndAlertsQueryWhatIsServed serves the arena with the admin
// listener and a bot playing, scrapes /metrics once the players' round
// trips have been observed, and checks that every metric the Grafana
// dashboard (deploy/grafana/vkm.json) and the alert rules
// (deploy/prometheus/alerts.yml) name is in the scrape: a metric renamed
// or dropped fails it here rather than as an empty panel or an alert that
// never fires.
func TestDashboardAndAlertsQueryWhatIsServed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	base, addr, served := servedWithAdmin(t, ctx, loadArena(t))
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
	m := pollMetrics(t, ctx, base, "a player's round trip observed", func(m map[string]float64) bool {
		return m["vkm_player_rtt_seconds_count"] > 0 && m["vkm_player_loss_ratio_count"] > 0
	})
	stopBots()
	wg.Wait()
	cancel()
	if err := served(); err != nil {
		t.Fatal(err)
	}
	scraped := map[string]bool{}
	build := ""
	for sample := range m {
		name, _, _ := strings.Cut(sample, "{")
		scraped[name] = true
		if name == "vkm_build_info" {
			build = sample
		}
	}
	if want := fmt.Sprintf(`protocol="%d"`, handshake.Version); !strings.Contains(build, want) || !strings.Contains(build, `version="devel"`) {
		t.Errorf("vkm_build_info is %q, want the protocol label %s and version devel (no version configured)", build, want)
	}

	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	raw, err := os.ReadFile(filepath.Join("..", "deploy", "grafana", "vkm.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("deploy/grafana/vkm.json: %v", err)
	}
	queries := 0
	used := map[string][]string{} // name: where
	for _, p := range dash.Panels {
		for _, q := range p.Targets {
			queries++
			for _, name := range metricName.FindAllString(q.Expr, -1) {
				used[name] = append(used[name], "vkm.json: "+p.Title)
			}
		}
	}
	rules, err := os.ReadFile(filepath.Join("..", "deploy", "prometheus", "alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(rules), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		for _, name := range metricName.FindAllString(line, -1) {
			used[name] = append(used[name], "alerts.yml:"+strconv.Itoa(i+1))
		}
	}
	names := make([]string, 0, len(used))
	for name := range used {
		names = append(names, name)
	}
	sort.Strings(names)
	t.Logf("%d queries in the dashboard, %d metric names in it and the rules, %d series names scraped", queries, len(names), len(scraped))
	if queries < 10 || len(names) < 10 {
		t.Fatalf("found %d queries and %d names: the files were not read as meant", queries, len(names))
	}
	for _, name := range names {
		if !scraped[name] {
			t.Errorf("%s (%s) is not in the scrape of a served arena", name, strings.Join(used[name], ", "))
		}
	}
}

// TestHealthzFailsOnAStalledLoopAndRecovers serves the arena with a stall
// bound of 300 ms and stalls its serving loop for real: a tick's hook
// blocks until released. /healthz answers 200 while it ticks, 503 saying
// it stalled once the loop has been stuck past the bound, and 200 again
// once the loop runs.
func TestHealthzFailsOnAStalledLoopAndRecovers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	stall := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	stalling := false
	admin := make(chan net.Addr, 1)
	served := make(chan error, 1)
	go func() {
		_, err := Serve(ctx, ServeConfig{Project: loadArena(t), Addr: "127.0.0.1:0", Admin: "127.0.0.1:0", HealthStall: 300 * time.Millisecond,
			Logger: testLogger(t), AdminReady: func(a net.Addr) { admin <- a },
			AfterTick: func(*game.Game) {
				select {
				case <-stall:
					once.Do(func() { stalling = true; <-release })
				default:
				}
			}})
		served <- err
	}()
	var base string
	select {
	case a := <-admin:
		base = "http://" + a.String()
	case err := <-served:
		t.Fatalf("Serve ended before listening: %v", err)
	}
	poll := func(what string, want int, says string) string {
		t.Helper()
		for {
			code, body := httpGet(t, base+"/healthz")
			if code == want && strings.Contains(body, says) {
				return body
			}
			select {
			case <-ctx.Done():
				t.Fatalf("/healthz never answered %d %q %s: last %d %q", want, says, what, code, body)
			case <-time.After(20 * time.Millisecond): // the polling interval
			}
		}
	}
	poll("while ticking", http.StatusOK, "ok: last tick")
	close(stall)
	body := poll("with the loop stuck", http.StatusServiceUnavailable, "(limit 300ms)")
	t.Logf("stuck: %s", strings.TrimSpace(body))
	close(release)
	poll("once the loop runs again", http.StatusOK, "ok: last tick")
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if !stalling {
		t.Error("the loop was never stalled")
	}
}

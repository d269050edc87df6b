package admin

import (
	"bufio"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"vkm/host/figures"
)

// get serves one GET of path from h and returns its status and body.
func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String()
}

// TestHealthzFailsWhenTheLoopStalls feeds a last tick at t0 and asks at
// times after it: healthy within the stall bound (a second by default,
// Config.Stall when set, never under two tick periods), 503 saying why
// after; a few late ticks' worth of silence is not a stall.
func TestHealthzFailsWhenTheLoopStalls(t *testing.T) {
	t0 := time.Unix(1000, 0)
	period := time.Second / 64
	for _, tc := range []struct {
		stall time.Duration
		at    []time.Duration
		codes []int
		says  []string
	}{
		{0, []time.Duration{period / 2, 3 * period, 900 * time.Millisecond, 1100 * time.Millisecond},
			[]int{200, 200, 200, 503}, []string{"ok: last tick", "ok: last tick", "ok: last tick", "stalled: no tick for 1.1s (limit 1s)"}},
		{200 * time.Millisecond, []time.Duration{3 * period, 250 * time.Millisecond},
			[]int{200, 503}, []string{"ok: last tick", "stalled: no tick for 250ms (limit 200ms)"}},
		{time.Millisecond, []time.Duration{2 * period, 3 * period},
			[]int{200, 503}, []string{"ok: last tick", "stalled: no tick for 46.875ms (limit 31.25ms)"}},
	} {
		now := t0
		a := New(Config{Seats: 4, TickPeriod: period, Stall: tc.stall, Now: func() time.Time { return now }})
		h := a.Handler()
		if code, body := get(t, h, "/healthz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "no tick") {
			t.Errorf("before any tick: %d %q, want 503 saying no tick has run", code, body)
		}
		a.Ticked(t0)
		for i, after := range tc.at {
			now = t0.Add(after)
			code, body := get(t, h, "/healthz")
			if code != tc.codes[i] || !strings.Contains(body, tc.says[i]) || strings.Count(body, "\n") != 1 {
				t.Errorf("stall %v, at t0 + %v: %d %q, want %d and one line saying %q", tc.stall, after, code, body, tc.codes[i], tc.says[i])
			}
		}
	}
}

// TestBuildInfoAndThePlayersLinks: vkm_build_info is 1 with the version,
// protocol and Go labels; the players' round trips and losses are
// histograms with no label of a player, a round trip of 0 left out.
func TestBuildInfoAndThePlayersLinks(t *testing.T) {
	a := New(Config{Seats: 4, TickPeriod: time.Second / 64, Version: "v1.2.3", Protocol: 8})
	a.ObservePlayer(30*time.Millisecond, 0)
	a.ObservePlayer(120*time.Millisecond, 0.03)
	a.ObservePlayer(0, 0)
	_, body := get(t, a.Handler(), "/metrics")
	m := samples(t, body)
	build := fmt.Sprintf(`vkm_build_info{go=%q,protocol="8",version="v1.2.3"}`, runtime.Version())
	for name, want := range map[string]float64{
		build:                          1,
		"vkm_player_rtt_seconds_count": 2,
		`vkm_player_rtt_seconds_bucket{le="0.04"}`: 1,
		`vkm_player_rtt_seconds_bucket{le="0.16"}`: 2,
		"vkm_player_rtt_seconds_sum":               0.15,
		"vkm_player_loss_ratio_count":              3,
		`vkm_player_loss_ratio_bucket{le="0"}`:     2,
		`vkm_player_loss_ratio_bucket{le="0.05"}`:  3,
	} {
		got, ok := m[name]
		if !ok || got < want*0.999 || got > want*1.001 {
			t.Errorf("%s = %v (found %v), want %v", name, got, ok, want)
		}
	}
	if code, body := get(t, New(Config{Seats: 1, TickPeriod: time.Second}).Handler(), "/metrics"); code != 200 || !strings.Contains(body, `version="devel"`) {
		t.Errorf("with no version: %d, want vkm_build_info's version devel:\n%.300s", code, body)
	}
}

// TestReadyzSaysFullAndShuttingDown: ready while a seat is free, 503 when
// every seat is taken or the server is shutting down, each saying why.
func TestReadyzSaysFullAndShuttingDown(t *testing.T) {
	a := New(Config{Seats: 1, TickPeriod: time.Second / 64})
	h := a.Handler()
	for _, tc := range []struct {
		name string
		set  func()
		code int
		says string
	}{
		{"empty", func() {}, http.StatusOK, "ready: 0 of 1 seats taken"},
		{"full", func() { a.SetPlayers(1) }, http.StatusServiceUnavailable, "full: 1 of 1 seats taken"},
		{"seat freed", func() { a.SetPlayers(0) }, http.StatusOK, "ready: 0 of 1"},
		{"closing", a.Closing, http.StatusServiceUnavailable, "shutting down"},
	} {
		tc.set()
		if code, body := get(t, h, "/readyz"); code != tc.code || !strings.Contains(body, tc.says) {
			t.Errorf("%s: %d %q, want %d saying %q", tc.name, code, body, tc.code, tc.says)
		}
	}
}

// samples parses a text exposition into its samples, by name and labels
// as written ("vkm_refusals_total{reason=\"full\"}").
func samples(t testing.TB, body string) map[string]float64 {
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

// TestMetricsReportWhatTheLoopHandedOver: the timings, the players and
// the figures last handed over, by their names and labels, with HELP and
// TYPE, and the Go and process collectors beside them; what the figures
// read after the hand-over is not served until the next.
func TestMetricsReportWhatTheLoopHandedOver(t *testing.T) {
	joins := uint64(5)
	set := &figures.Set{}
	set.Add(
		figures.Figure{Key: "joins", Metric: "vkm_joins_total", Help: "Players seated.", Uint: func() uint64 { return joins }},
		figures.Figure{Key: "refused", Uint: func() uint64 { return 1 }},
		figures.Figure{Metric: "vkm_refusals_total", Help: "Joins refused, by reason.", Label: "reason", Uints: func(each func(string, uint64)) {
			each("full", 1)
			each("version", 0)
		}},
		figures.Figure{Metric: "vkm_web_peers", Help: "Browser peers.", Kind: figures.Gauge, Label: "transport", Uints: func(each func(string, uint64)) {
			each("webrtc", 2)
		}},
		figures.Figure{Metric: "vkm_wall_seconds", Help: "Wall time served.", Kind: figures.Gauge, Float: func() float64 { return 1.5 }},
	)
	a := New(Config{Seats: 4, TickPeriod: time.Second / 64, Figures: set})
	a.ObserveTick(40 * time.Microsecond)
	a.ObserveTick(60 * time.Microsecond)
	a.ObserveSend(100 * time.Microsecond)
	a.SetPlayers(3)
	var v figures.Values
	set.Read(&v, figures.InMetrics)
	a.Update(&v)
	joins = 6
	set.Read(&v, figures.InMetrics) // read, not handed over
	code, body := get(t, a.Handler(), "/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	m := samples(t, body)
	for name, want := range map[string]float64{
		"vkm_tick_duration_seconds_count":             2,
		`vkm_tick_duration_seconds_bucket{le="+Inf"}`: 2,
		"vkm_tick_duration_seconds_sum":               100e-6,
		"vkm_send_round_duration_seconds_count":       1,
		"vkm_ticks_total":                             2,
		"vkm_players":                                 3,
		"vkm_player_seats":                            4,
		"vkm_joins_total":                             5,
		`vkm_refusals_total{reason="full"}`:           1,
		`vkm_refusals_total{reason="version"}`:        0,
		`vkm_web_peers{transport="webrtc"}`:           2,
		"vkm_wall_seconds":                            1.5,
	} {
		got, ok := m[name]
		if !ok || got < want*0.999 || got > want*1.001 {
			t.Errorf("%s = %v (found %v), want %v", name, got, ok, want)
		}
	}
	for _, want := range []string{"# HELP vkm_tick_duration_seconds ", "# HELP vkm_joins_total Players seated.\n", "# TYPE vkm_joins_total counter",
		"# TYPE vkm_web_peers gauge", "# TYPE vkm_wall_seconds gauge", "go_goroutines", "process_cpu_seconds_total"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics does not have %q", want)
		}
	}
	// The figure without a Metric is not served.
	families := map[string]bool{}
	for name := range m {
		if family, _, _ := strings.Cut(name, "{"); strings.HasPrefix(family, "vkm_") {
			families[family] = true
		}
	}
	if len(families) != 21 { // the four histograms' three, and nine more
		t.Errorf("/metrics serves %d vkm_ families: %v", len(families), families)
	}
}

// TestProfilesAreOnTheAdminMux: /debug/pprof/ answers on the handler.
func TestProfilesAreOnTheAdminMux(t *testing.T) {
	code, body := get(t, New(Config{Seats: 1, TickPeriod: time.Second}).Handler(), "/debug/pprof/")
	if code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("/debug/pprof/: %d, want 200 listing the profiles:\n%.300s", code, body)
	}
}

// TestReadyzAsksTheReadinessCheck: a Readiness error makes /readyz 503
// with its text, and the server is ready again once it has none.
func TestReadyzAsksTheReadinessCheck(t *testing.T) {
	var why error = errFleet
	a := New(Config{Seats: 2, TickPeriod: time.Second / 64, Readiness: func() error { return why }})
	h := a.Handler()
	if code, body := get(t, h, "/readyz"); code != http.StatusServiceUnavailable || body != "not ready: not in the fleet directory\n" {
		t.Errorf("with the check failing: %d %q, want 503 saying why", code, body)
	}
	why = nil
	if code, body := get(t, h, "/readyz"); code != http.StatusOK || !strings.Contains(body, "ready: 0 of 2") {
		t.Errorf("with the check passing: %d %q, want 200", code, body)
	}
}

var errFleet = errors.New("not in the fleet directory")

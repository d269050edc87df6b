package admin

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// get serves one GET of path from h and returns its status and body.
func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String()
}

// TestHealthzFailsWhenTheLoopStalls feeds a last tick at t0 and asks at
// times after it: healthy within two tick periods, 503 saying why after.
func TestHealthzFailsWhenTheLoopStalls(t *testing.T) {
	t0 := time.Unix(1000, 0)
	period := time.Second / 64
	now := t0
	a := New(Config{Seats: 4, TickPeriod: period, Now: func() time.Time { return now }})
	h := a.Handler()
	if code, body := get(t, h, "/healthz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "no tick") {
		t.Errorf("before any tick: %d %q, want 503 saying no tick has run", code, body)
	}
	a.Ticked(t0)
	for _, tc := range []struct {
		after time.Duration
		code  int
		says  string
	}{
		{period / 2, http.StatusOK, "ok: last tick"},
		{2 * period, http.StatusOK, "ok: last tick"},
		{3 * period, http.StatusServiceUnavailable, "stalled: no tick for 46.875ms (limit 31.25ms)"},
	} {
		now = t0.Add(tc.after)
		code, body := get(t, h, "/healthz")
		if code != tc.code || !strings.Contains(body, tc.says) || strings.Count(body, "\n") != 1 {
			t.Errorf("at t0 + %v: %d %q, want %d and one line saying %q", tc.after, code, body, tc.code, tc.says)
		}
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
// the last snapshot's counters, by their names and labels, with HELP, and
// the Go and process collectors beside them.
func TestMetricsReportWhatTheLoopHandedOver(t *testing.T) {
	a := New(Config{Seats: 4, TickPeriod: time.Second / 64})
	a.ObserveTick(40 * time.Microsecond)
	a.ObserveTick(60 * time.Microsecond)
	a.ObserveSend(100 * time.Microsecond)
	a.SetPlayers(3)
	a.Update(func(s *Snapshot) {
		*s = Snapshot{Joins: 5, Leaves: 2, Refusals: map[string]uint64{"full": 1}, PacketsIn: 10, PacketsOut: 20,
			BytesIn: 300, BytesOut: 4000, BadPackets: 1, Repeats: 6, Skips: 7,
			ScriptErrors: map[string]uint64{"walker": 2, NoBehavior: 1}, Reloads: 3, Events: map[string]uint64{"hit": 9},
			Web: &WebSnapshot{Peers: map[string]int{"webrtc": 2, "websocket": 1}, Connecting: map[string]int{"webrtc": 0, "websocket": 3},
				Admitted: map[string]uint64{"webrtc": 5, "websocket": 6}, Closed: map[string]uint64{"idle": 7, "handshake_deadline": 9},
				Drops: 4, Refused: 8}}
	})
	code, body := get(t, a.Handler(), "/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	m := samples(t, body)
	for name, want := range map[string]float64{
		"vkm_tick_duration_seconds_count":                   2,
		`vkm_tick_duration_seconds_bucket{le="+Inf"}`:       2,
		"vkm_tick_duration_seconds_sum":                     100e-6,
		"vkm_send_round_duration_seconds_count":             1,
		"vkm_ticks_total":                                   2,
		"vkm_players":                                       3,
		"vkm_player_seats":                                  4,
		"vkm_joins_total":                                   5,
		"vkm_leaves_total":                                  2,
		`vkm_refusals_total{reason="full"}`:                 1,
		"vkm_packets_received_total":                        10,
		"vkm_packets_sent_total":                            20,
		"vkm_bytes_received_total":                          300,
		"vkm_bytes_sent_total":                              4000,
		"vkm_bad_packets_total":                             1,
		"vkm_command_repeats_total":                         6,
		"vkm_command_skips_total":                           7,
		`vkm_script_errors_total{behavior="walker"}`:        2,
		`vkm_script_errors_total{behavior="none"}`:          1,
		"vkm_reloads_total":                                 3,
		`vkm_events_total{name="hit"}`:                      9,
		`vkm_web_peers{transport="webrtc"}`:                 2,
		`vkm_web_peers{transport="websocket"}`:              1,
		`vkm_web_connecting{transport="websocket"}`:         3,
		`vkm_web_admitted_total{transport="webrtc"}`:        5,
		`vkm_web_closed_total{reason="idle"}`:               7,
		`vkm_web_closed_total{reason="handshake_deadline"}`: 9,
		"vkm_web_dropped_datagrams_total":                   4,
		"vkm_web_refused_total":                             8,
	} {
		got, ok := m[name]
		if !ok || got < want*0.999 || got > want*1.001 {
			t.Errorf("%s = %v (found %v), want %v", name, got, ok, want)
		}
	}
	for _, want := range []string{"# HELP vkm_tick_duration_seconds ", "# TYPE vkm_joins_total counter", "go_goroutines", "process_cpu_seconds_total"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics does not have %q", want)
		}
	}
}

// TestProfilesAreOnTheAdminMux: /debug/pprof/ answers on the handler.
func TestProfilesAreOnTheAdminMux(t *testing.T) {
	code, body := get(t, New(Config{Seats: 1, TickPeriod: time.Second}).Handler(), "/debug/pprof/")
	if code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("/debug/pprof/: %d, want 200 listing the profiles:\n%.300s", code, body)
	}
}

package host

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"net"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"vkm/host/figures"
	"vkm/host/game"
	"vkm/host/session"
)

// TestAFigureAddedAppearsInTheReportTheStatusLineAndMetrics adds one
// counter to a server's figures, and nothing else: it appears on the
// status line, in /metrics with its help, and in the report, which has no
// field for it.
func TestAFigureAddedAppearsInTheReportTheStatusLineAndMetrics(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	var widgets uint64 // made on the serving goroutine, read there
	var status lockedBuffer
	admin := make(chan net.Addr, 1)
	served := make(chan *ServerReport, 1)
	go func() {
		rep, err := Serve(ctx, ServeConfig{Project: loadArena(t), Addr: "127.0.0.1:0", Logger: testLogger(t), Status: &status,
			Admin: "127.0.0.1:0", AdminReady: func(a net.Addr) { admin <- a },
			AfterTick: func(*game.Game) { widgets++ },
			Figures: []figures.Figure{{Key: "widgets", Metric: "vkm_widgets_total", Help: "Widgets made, one a tick.", Status: "widgets %d",
				Uint: func() uint64 { return widgets }}},
		})
		if err != nil {
			t.Error(err)
		}
		served <- rep
	}()
	base := "http://" + (<-admin).String()
	m := pollMetrics(t, ctx, base, "the widgets counted", func(m map[string]float64) bool { return m["vkm_widgets_total"] > 0 })
	if _, body := httpGet(t, base+"/metrics"); !strings.Contains(body, "# HELP vkm_widgets_total Widgets made, one a tick.\n# TYPE vkm_widgets_total counter\n") {
		t.Errorf("/metrics has no help and type for the widgets:\n%s", body)
	}
	for !regexp.MustCompile(`^tick \d+ players 0/4 \(insecure: no key; loopback only\) widgets \d+\n`).MatchString(status.String()) {
		select {
		case <-ctx.Done():
			t.Fatalf("the status line never counted the widgets: %q", status.String())
		case <-time.After(50 * time.Millisecond): // the polling interval
		}
	}
	cancel()
	rep := <-served
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if n, ok := got["widgets"].(float64); !ok || n < m["vkm_widgets_total"] || n != float64(rep.Ticks) {
		t.Errorf("the report says %v widgets, /metrics said %v, and it ran %d ticks:\n%s", got["widgets"], m["vkm_widgets_total"], rep.Ticks, b)
	}
}

// The figures of a server with a web listener keep the report's keys (each
// with a field of its own), the metrics' names, types and help, and the
// status line's words they had before they were figures.
func TestTheServersFiguresKeepTheirNames(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	ready := make(chan net.Addr, 2)
	served := make(chan *ServerReport, 1)
	var status lockedBuffer
	go func() {
		rep, err := Serve(ctx, ServeConfig{Project: loadArena(t), Addr: "127.0.0.1:0", Logger: testLogger(t), Status: &status,
			Web: "127.0.0.1:0", WebReady: func(net.Addr) {}, Admin: "127.0.0.1:0", AdminReady: func(a net.Addr) { ready <- a }})
		if err != nil {
			t.Error(err)
		}
		served <- rep
	}()
	base := "http://" + (<-ready).String()
	pollMetrics(t, ctx, base, "the web listener's counts", func(m map[string]float64) bool { _, ok := m["vkm_web_refused_total"]; return ok })
	_, body := httpGet(t, base+"/metrics")
	var metrics []string
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "# HELP vkm_") || strings.HasPrefix(line, "# TYPE vkm_") {
			metrics = append(metrics, line)
		}
	}
	want := []string{
		`# HELP vkm_bad_packets_total Command packets from players that did not parse.`,
		`# TYPE vkm_bad_packets_total counter`,
		`# HELP vkm_bans_total Bans an operator made.`,
		`# TYPE vkm_bans_total counter`,
		`# HELP vkm_build_info Always 1: the build's version, the protocol version it speaks and its Go toolchain, as labels.`,
		`# TYPE vkm_build_info gauge`,
		`# HELP vkm_bytes_received_total Bytes of the datagrams received, headers included.`,
		`# TYPE vkm_bytes_received_total counter`,
		`# HELP vkm_bytes_sent_total Bytes of the datagrams sent, headers included.`,
		`# TYPE vkm_bytes_sent_total counter`,
		`# HELP vkm_chat_dropped_total Chat lines dropped: over a player's rate, or from a muted player.`,
		`# TYPE vkm_chat_dropped_total counter`,
		`# HELP vkm_chat_lines_total Chat lines sent to the players, the server's own among them.`,
		`# TYPE vkm_chat_lines_total counter`,
		`# HELP vkm_chat_refused_total Chat lines the project's net.on_chat refused, or that did not parse.`,
		`# TYPE vkm_chat_refused_total counter`,
		`# HELP vkm_command_repeats_total Ticks a player's entity ran on a repeat of their last command, none having arrived.`,
		`# TYPE vkm_command_repeats_total counter`,
		`# HELP vkm_command_skips_total Player commands dropped to keep a command queue shallow.`,
		`# TYPE vkm_command_skips_total counter`,
		`# HELP vkm_joins_total Players seated.`,
		`# TYPE vkm_joins_total counter`,
		`# HELP vkm_kicks_total Players kicked by an operator (a ban's kick among them).`,
		`# TYPE vkm_kicks_total counter`,
		`# HELP vkm_leaves_total Players gone, for any reason.`,
		`# TYPE vkm_leaves_total counter`,
		`# HELP vkm_message_errors_total Message handlers that failed.`,
		`# TYPE vkm_message_errors_total counter`,
		`# HELP vkm_message_floods_total Seats ended for sending messages over their bound for seconds on end.`,
		`# TYPE vkm_message_floods_total counter`,
		`# HELP vkm_messages_dropped_total Project messages dropped: over a player's bound, too large, unreadable, or a full channel.`,
		`# TYPE vkm_messages_dropped_total counter`,
		`# HELP vkm_messages_received_total Project messages taken from players and handed to the handlers.`,
		`# TYPE vkm_messages_received_total counter`,
		`# HELP vkm_messages_sent_total Project messages queued to players.`,
		`# TYPE vkm_messages_sent_total counter`,
		`# HELP vkm_packets_received_total Datagrams received, dropped ones included.`,
		`# TYPE vkm_packets_received_total counter`,
		`# HELP vkm_packets_sent_total Datagrams sent.`,
		`# TYPE vkm_packets_sent_total counter`,
		`# HELP vkm_player_loss_ratio Datagram loss of the seated players (0..1, over their recent datagrams), one observation a player a second.`,
		`# TYPE vkm_player_loss_ratio histogram`,
		`# HELP vkm_player_rtt_seconds Round trips of the seated players, one observation a player a second.`,
		`# TYPE vkm_player_rtt_seconds histogram`,
		`# HELP vkm_player_seats Players the server seats at most.`,
		`# TYPE vkm_player_seats gauge`,
		`# HELP vkm_players Players seated now.`,
		`# TYPE vkm_players gauge`,
		`# HELP vkm_refusals_total Joins refused, by reason.`,
		`# TYPE vkm_refusals_total counter`,
		`# HELP vkm_reloads_total Script reloads that took effect (dev servers).`,
		`# TYPE vkm_reloads_total counter`,
		`# HELP vkm_script_errors_total Script errors, by the behavior whose callback failed ("none" outside one).`,
		`# TYPE vkm_script_errors_total counter`,
		`# HELP vkm_send_round_duration_seconds Wall time one send round took: building it, a snapshot per player, polling the connections.`,
		`# TYPE vkm_send_round_duration_seconds histogram`,
		`# HELP vkm_spectators Spectators watching now: they hold no player seat.`,
		`# TYPE vkm_spectators gauge`,
		`# HELP vkm_tick_duration_seconds Wall time one tick's simulation took: the commands taken for it, behaviors, controller, physics.`,
		`# TYPE vkm_tick_duration_seconds histogram`,
		`# HELP vkm_ticks_total Ticks the server has run.`,
		`# TYPE vkm_ticks_total counter`,
		`# HELP vkm_web_admitted_total Browser peers the vkm handshake welcomed, by transport.`,
		`# TYPE vkm_web_admitted_total counter`,
		`# HELP vkm_web_closed_total Offers and WebSocket upgrades that ended, turned away or closed, by reason (rate, address_cap, full, bad_request, offer_timeout, handshake_deadline, idle, client_closed, protocol, failed, shutdown).`,
		`# TYPE vkm_web_closed_total counter`,
		`# HELP vkm_web_connecting Offers and WebSocket upgrades on the web listener the vkm handshake has not welcomed yet, by transport.`,
		`# TYPE vkm_web_connecting gauge`,
		`# HELP vkm_web_dropped_datagrams_total Datagrams the web listener dropped: too large, or a reader or a peer's queue too far behind.`,
		`# TYPE vkm_web_dropped_datagrams_total counter`,
		`# HELP vkm_web_peers Browser peers open on the web listener now that the vkm handshake has welcomed, by transport (webrtc, websocket).`,
		`# TYPE vkm_web_peers gauge`,
		`# HELP vkm_web_refused_total Offers and WebSocket upgrades the web listener answered with an error status.`,
		`# TYPE vkm_web_refused_total counter`,
		`# HELP vkm_web_voice_dropped_not_speaker_total Voice packets dropped because their peer may not speak: not seated, or muted.`,
		`# TYPE vkm_web_voice_dropped_not_speaker_total counter`,
		`# HELP vkm_web_voice_dropped_over_cap_total Voice packets dropped for being over their speaker's cap (60 a second, after a burst of 20).`,
		`# TYPE vkm_web_voice_dropped_over_cap_total counter`,
		`# HELP vkm_web_voice_packets_in_total Voice (RTP) packets the web listener heard from speakers, forwarded or not.`,
		`# TYPE vkm_web_voice_packets_in_total counter`,
		`# HELP vkm_web_voice_packets_out_total Voice packets the web listener forwarded to listeners: one for each listener a packet went to.`,
		`# TYPE vkm_web_voice_packets_out_total counter`,
	}
	if !slices.Equal(metrics, want) {
		t.Errorf("/metrics's families:\n%s\nwant\n%s", strings.Join(metrics, "\n"), strings.Join(want, "\n"))
	}
	for !strings.Contains(status.String(), "\n") {
		select {
		case <-ctx.Done():
			t.Fatal("no status line")
		case <-time.After(50 * time.Millisecond): // the polling interval
		}
	}
	if line := status.String(); !regexp.MustCompile(`^tick \d+ players 0/4 \(insecure: no key; loopback only\) web webrtc 0 websocket 0 webtransport 0 connecting 0\n`).MatchString(line) {
		t.Errorf("status line %q", line)
	}
	cancel()
	rep := <-served
	if rep.other.Len() != 0 || rep.Web == nil || rep.Web.Peers == nil || rep.Web.Closed == nil || rep.Events == nil {
		t.Errorf("the report's figures without a field: %v; web %+v; events %v", rep.other, rep.Web, rep.Events)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	wantKeys := []string{"allocs_per_tick", "cpu_s", "errors", "events", "gcs", "joins", "leaves", "max_rss_mb", "peers", "players", "refused", "send_p50_us", "send_p99_us",
		"state", "tick_cpu_p50_us", "tick_cpu_p99_us", "tick_max_us", "tick_p50_us", "tick_p99_us", "tick_rate", "ticks", "wall_s", "web"}
	if got := slices.Sorted(maps.Keys(keys)); !slices.Equal(got, wantKeys) {
		t.Errorf("the report's keys %v, want %v", got, wantKeys)
	}
}

// A client's status line logs the figures it did before they were
// figures, in the same order, and every figure of a client's report, full
// or lite, has a field of its own.
func TestTheClientsFiguresKeepTheirNames(t *testing.T) {
	p := loadArena(t)
	c, err := session.NewClient(session.ClientConfig{Project: p})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl := &client{c: c, start: time.Now()}
	cl.figures = cl.newFigures()
	var vals figures.Values
	cl.figures.Read(&vals, figures.InStatus)
	var keys []string
	for _, a := range vals.Attrs(nil) {
		keys = append(keys, a.(slog.Attr).Key)
	}
	want := []string{"tick", "rtt_ms", "loss_permille", "in_bps", "out_bps", "corrections", "low_water", "target", "tick_speed", "interp_delay", "stalls", "look_behind"}
	if !slices.Equal(keys, want) {
		t.Errorf("the status line logs %v, want %v", keys, want)
	}
	if r := cl.report(); r.other.Len() != 0 || r.CorrectionsByCause["shove"] != 0 || len(r.CorrectionsByCause) != int(session.NumCauses) {
		t.Errorf("a client's report: figures without a field %v; by cause %v", r.other, r.CorrectionsByCause)
	}
	l := session.NewLite(session.LiteConfig{Project: p, Hello: session.Hello(c.Game()), Schema: c.Game().Schema()})
	start := time.Now()
	if r := liteReport(l, liteFigures(l, p.TickRate, start, cl.now)); r.other.Len() != 0 || r.TickRate != p.TickRate {
		t.Errorf("a lite client's report: figures without a field %v; %+v", r.other, r)
	}
}

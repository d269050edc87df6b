package host

import (
	"fmt"
	"math"
	"strings"
	"time"

	"vkm/host/figures"
	"vkm/host/game"
	"vkm/host/session"
	"vkm/transport"
	"vkm/transport/handshake"
)

// Every figure of each end, in the order its status line shows them: what
// its report, its status line and (a server's) /metrics read (package
// figures). A figure added here appears in each of them that it names: the
// report's JSON under its Key (its typed field, if it has one, filled from
// it), the status line by its Status, /metrics under its Metric.

// newFigures returns the server's figures: the session's, the loop's
// (loop.Stats, loop.IdleGC), the web listener's if it has one, and the
// program's own (ServeConfig.Figures).
func (srv *server) newFigures() *figures.Set {
	set := &figures.Set{}
	s := srv.s
	var st transport.ServerStats
	var tot session.Totals
	set.Prepare(func() { st, tot = s.Net().Stats(), s.Totals() })
	players := fmt.Sprintf("players %%d/%d", srv.cfg.Project.Players)
	if srv.note != "" {
		players += " (" + strings.ReplaceAll(srv.note, "%", "%%") + ")"
	}
	set.Add(
		figures.Figure{Key: "ticks", Status: "tick %d", Uint: func() uint64 { return uint64(s.Game().Tick()) }},
		figures.Figure{Key: "players", Status: players, Uint: func() uint64 { return uint64(s.Net().PlayerCount()) }},
		figures.Figure{Status: "draining, %.0fs left", Float: srv.drainLeft},
		figures.Figure{Key: "tick_rate", Uint: func() uint64 { return uint64(s.Game().TickRate()) }},
		figures.Figure{Key: "wall_s", Float: func() float64 { return round1(time.Since(srv.start).Seconds()) }},
	)
	set.Add(srv.stats.Figures()...)
	if srv.gc != nil {
		set.Add(srv.gc.Figures()...)
	}
	errs := scriptErrors{s: s}
	counter := func(metric, help string, read func() uint64) figures.Figure {
		return figures.Figure{Metric: metric, Help: help, Uint: read}
	}
	set.Add(
		figures.Figure{Key: "joins", Metric: "vkm_joins_total", Help: "Players seated.", Uint: func() uint64 { return st.Joins }},
		figures.Figure{Key: "leaves", Metric: "vkm_leaves_total", Help: "Players gone, for any reason.", Uint: func() uint64 { return st.Leaves }},
		figures.Figure{Key: "refused", Uint: func() uint64 {
			var n uint64
			for _, r := range st.Refusals {
				n += r
			}
			return n
		}},
		figures.Figure{Metric: "vkm_refusals_total", Help: "Joins refused, by reason.", Label: "reason", Uints: func(each func(string, uint64)) {
			for r := handshake.ReasonFull; r.Known(); r++ {
				each(r.String(), st.Refusals[r])
			}
		}},
		figures.Figure{Key: "errors", Uint: func() uint64 { return uint64(len(s.Game().ScriptErrors()) + s.JoinErrors()) }},
		figures.Figure{Metric: "vkm_script_errors_total", Help: "Script errors, by the behavior whose callback failed (\"none\" outside one).",
			Label: "behavior", Uints: errs.each},
		figures.Figure{Key: "events", Metric: "vkm_events_total", Help: "Presentation events the game emitted, by name.", Label: "name", Uints: s.EachEvent},
		counter("vkm_packets_received_total", "Datagrams received, dropped ones included.", func() uint64 { return st.PacketsIn }),
		counter("vkm_packets_sent_total", "Datagrams sent.", func() uint64 { return st.PacketsOut }),
		counter("vkm_bytes_received_total", "Bytes of the datagrams received, headers included.", func() uint64 { return st.BytesIn }),
		counter("vkm_bytes_sent_total", "Bytes of the datagrams sent, headers included.", func() uint64 { return st.BytesOut }),
		counter("vkm_bad_packets_total", "Command packets from players that did not parse.", func() uint64 { return tot.BadPackets }),
		counter("vkm_command_repeats_total", "Ticks a player's entity ran on a repeat of their last command, none having arrived.", func() uint64 { return tot.Repeats }),
		counter("vkm_command_skips_total", "Player commands dropped to keep a command queue shallow.", func() uint64 { return tot.Skips }),
		counter("vkm_reloads_total", "Script reloads that took effect (dev servers).", func() uint64 { return uint64(s.Game().Reloads()) }),
		figures.Figure{Key: "messages_in", Metric: "vkm_messages_received_total", Help: "Project messages taken from players and handed to the handlers.", Uint: func() uint64 { return tot.Messages.In }},
		figures.Figure{Key: "messages_out", Metric: "vkm_messages_sent_total", Help: "Project messages queued to players.", Uint: func() uint64 { return tot.Messages.Sent }},
		figures.Figure{Key: "messages_dropped", Metric: "vkm_messages_dropped_total", Help: "Project messages dropped: over a player's bound, too large, unreadable, or a full channel.", Uint: func() uint64 { return tot.Messages.Dropped }},
		figures.Figure{Key: "message_floods", Metric: "vkm_message_floods_total", Help: "Seats ended for sending messages over their bound for seconds on end.", Uint: func() uint64 { return tot.Floods }},
		figures.Figure{Key: "chat_lines", Metric: "vkm_chat_lines_total", Help: "Chat lines sent to the players, the server's own among them.", Uint: func() uint64 { return tot.Chat.Lines }},
		figures.Figure{Key: "chat_refused", Metric: "vkm_chat_refused_total", Help: "Chat lines the project's net.on_chat refused, or that did not parse.", Uint: func() uint64 { return tot.Chat.Refused }},
		figures.Figure{Key: "chat_dropped", Metric: "vkm_chat_dropped_total", Help: "Chat lines dropped: over a player's rate, or from a muted player.", Uint: func() uint64 { return tot.Chat.Dropped }},
		figures.Figure{Key: "kicks", Metric: "vkm_kicks_total", Help: "Players kicked by an operator (a ban's kick among them).", Uint: func() uint64 { return s.Kicks() }},
		figures.Figure{Key: "bans", Metric: "vkm_bans_total", Help: "Bans an operator made.", Uint: func() uint64 {
			if srv.mod == nil {
				return 0
			}
			return srv.mod.bans
		}},
		counter("vkm_message_errors_total", "Message handlers that failed.", func() uint64 { return uint64(s.Game().MessageErrors()) }),
	)
	if w, ok := srv.sock.(interface{ AddFigures(*figures.Set) }); ok {
		w.AddFigures(set)
	}
	set.Add(srv.cfg.Figures...)
	return set
}

// drainLeft is the seconds a drain has left, NaN when none has begun.
func (srv *server) drainLeft() float64 {
	if srv.drainEnd.IsZero() {
		return math.NaN()
	}
	return max(0, time.Until(srv.drainEnd).Seconds())
}

// scriptErrors counts a game's script errors by the behavior whose
// callback failed, as they come.
type scriptErrors struct {
	s     *session.Server
	seen  int
	count map[string]uint64
}

func (e *scriptErrors) each(fn func(behavior string, n uint64)) {
	errs := e.s.Game().ScriptErrors()
	for _, err := range errs[e.seen:] {
		b := err.Behavior
		if b == "" {
			b = figures.NoBehavior
		}
		if e.count == nil {
			e.count = map[string]uint64{}
		}
		e.count[b]++
	}
	e.seen = len(errs)
	if len(e.count) == 0 {
		// A zero sample before the first error, so a rate over the
		// counter (an alert's) has a series to start from.
		fn(figures.NoBehavior, 0)
	}
	for b, n := range e.count {
		fn(b, n)
	}
}

// gameFigures are what any client's report says of its game, offline or
// connected: its ticks, the events it presented, how far the own character
// travelled and each other player's, its script errors.
func (t *tally) figures(g *game.Game) []figures.Figure {
	return []figures.Figure{
		{Key: "ticks", Status: "tick", Uint: func() uint64 { return uint64(g.Tick()) }},
		{Key: "tick_rate", Uint: func() uint64 { return uint64(g.TickRate()) }},
		{Key: "events", Label: "name", Uints: func(each func(string, uint64)) {
			for name, n := range t.Events {
				each(name, uint64(n))
			}
		}},
		{Key: "distance_m", Float: func() float64 { return math.Round(t.Distance*1000) / 1000 }},
		{Key: "errors", Uint: func() uint64 { return uint64(len(g.ScriptErrors())) }},
		{Key: "others_distance_m", Label: "name", Floats: func(each func(string, float64)) {
			for name, k := range t.others {
				each(name, math.Round(k.distance*1000)/1000)
			}
		}},
	}
}

// linkFigures are a connected client's link: its round trip, loss and
// bytes a second each way since start, read from n at the session's time
// now().
func linkFigures(n *transport.Client, start time.Time, now func() transport.Time) []figures.Figure {
	perS := func(bytes func(transport.ClientStats) uint64) func() float64 {
		return func() float64 { return round1(float64(bytes(n.Stats())) / math.Max(time.Since(start).Seconds(), 1e-3)) }
	}
	return []figures.Figure{
		{Key: "rtt_ms", Status: "rtt_ms", Float: func() float64 {
			if conn := n.Conn(); conn != nil {
				return round1(float64(conn.RTT()) / float64(time.Millisecond))
			}
			return 0
		}},
		{Key: "loss_permille", Status: "loss_permille", Float: func() float64 {
			if conn := n.Conn(); conn != nil {
				return round1(conn.Loss(now()) * 1000)
			}
			return 0
		}},
		{Key: "bytes_in_per_s", Status: "in_bps", Float: perS(func(s transport.ClientStats) uint64 { return s.BytesIn })},
		{Key: "bytes_out_per_s", Status: "out_bps", Float: perS(func(s transport.ClientStats) uint64 { return s.BytesOut })},
	}
}

// newFigures returns a connected client's figures: its game's, its link's
// and its session's (corrections, pacing, interpolation).
func (cl *client) newFigures() *figures.Set {
	set := &figures.Set{}
	cs := &cl.stats
	set.Prepare(func() { *cs = cl.c.Stats(cl.now()) })
	set.Add(cl.tally.figures(cl.c.Game())...)
	set.Add(linkFigures(cl.c.Net(), cl.start, cl.now)...)
	byCause := func(each func(session.Cause, session.CauseFigures)) {
		for cause, f := range cs.ByCause {
			each(session.Cause(cause), f)
		}
	}
	set.Add(
		figures.Figure{Key: "corrections", Status: "corrections", Uint: func() uint64 { return cs.Corrections }},
		figures.Figure{Key: "replayed_ticks", Uint: func() uint64 { return cs.ReplayedTicks }},
		figures.Figure{Key: "max_correction_mm", Float: func() float64 { return round1(cs.MaxCorrection * 1000) }},
		figures.Figure{Key: "corrections_by_cause", Label: "cause", Uints: func(each func(string, uint64)) {
			byCause(func(c session.Cause, f session.CauseFigures) { each(c.String(), f.Count) })
		}},
		figures.Figure{Key: "largest_correction_by_cause", Label: "cause", Floats: func(each func(string, float64)) {
			byCause(func(c session.Cause, f session.CauseFigures) { each(c.String(), correctionSize(c, f.Largest)) })
		}},
		figures.Figure{Key: "adopted_snapshots", Uint: func() uint64 { return cs.Adopted }},
		figures.Figure{Key: "unpredicted_judged", Uint: func() uint64 { return cs.Unpredicted }},
		figures.Figure{Key: "lease_replays", Uint: func() uint64 { return cs.LeaseReplays }},
		figures.Figure{Key: "lease_replays_moved", Uint: func() uint64 { return cs.LeaseReplaysMoved }},
		figures.Figure{Key: "max_lease_replay_mm", Float: func() float64 { return round1(cs.MaxLeaseReplay * 1000) }},
		figures.Figure{Key: "revisions", Uint: func() uint64 { return cs.Revisions }},
		figures.Figure{Key: "revisions_moved", Uint: func() uint64 { return cs.RevisionsMoved }},
		figures.Figure{Key: "max_revision_mm", Float: func() float64 { return round1(cs.MaxRevision * 1000) }},
		figures.Figure{Key: "shove_profile", Label: "profile", Uints: func(each func(string, uint64)) {
			for p, n := range cs.Profile {
				each(session.Profile(p).String(), n)
			}
		}},
		figures.Figure{Key: "max_ease_mm", Float: func() float64 { return round1(cs.MaxEase * 1000) }},
		figures.Figure{Key: "revision_profile", Label: "profile", Uints: func(each func(string, uint64)) {
			for p, n := range cs.RevisionProfile {
				each(session.Profile(p).String(), n)
			}
		}},
		figures.Figure{Key: "bad_snapshots", Uint: func() uint64 { return uint64(cs.BadSnapshots) }},
		figures.Figure{Key: "unmade_entities", Uint: func() uint64 { return uint64(cs.UnmadeEntities) }},
		figures.Figure{Key: "pacing_low_water", Status: "low_water", Float: func() float64 { return cs.PacingLowWater }},
		figures.Figure{Key: "pacing_target", Status: "target", Float: func() float64 { return round1(cs.PacingTarget) }},
		figures.Figure{Key: "tick_speed", Status: "tick_speed", Float: func() float64 { return math.Round(cl.c.Game().Clock().Pace()*1000) / 1000 }},
		figures.Figure{Key: "interp_delay_ticks", Status: "interp_delay", Float: func() float64 { return round1(cs.InterpDelay) }},
		figures.Figure{Key: "interp_stalls", Status: "stalls", Uint: func() uint64 { return cs.InterpStalls }},
		figures.Figure{Key: "interp_extrapolated", Uint: func() uint64 { return cs.InterpExtrapolated }},
		figures.Figure{Key: "look_behind_ticks", Status: "look_behind", Float: func() float64 { return round1(cs.LookBehind) }},
		figures.Figure{Key: "messages_out", Uint: func() uint64 { return cs.MessagesSent }},
		figures.Figure{Key: "messages_in", Uint: func() uint64 { return cs.MessagesIn }},
		figures.Figure{Key: "messages_dropped", Uint: func() uint64 { return cs.MessagesDropped }},
	)
	return set
}

// liteFigures are a lite client's: what a full client reports, less what
// needs a world (events, distance, corrections, interpolation).
func liteFigures(l *session.Lite, tickRate int, start time.Time, now func() transport.Time) *figures.Set {
	set := &figures.Set{}
	var st session.LiteStats
	set.Prepare(func() { st = l.Stats() })
	set.Add(
		figures.Figure{Key: "ticks", Uint: func() uint64 { return uint64(st.Ticks) }},
		figures.Figure{Key: "tick_rate", Uint: func() uint64 { return uint64(tickRate) }},
	)
	set.Add(linkFigures(l.Net(), start, now)...)
	set.Add(
		figures.Figure{Key: "bad_snapshots", Uint: func() uint64 { return uint64(st.BadSnapshots) }},
		figures.Figure{Key: "pacing_low_water", Float: func() float64 { return st.PacingLowWater }},
		figures.Figure{Key: "pacing_target", Float: func() float64 { return round1(st.PacingTarget) }},
		figures.Figure{Key: "tick_speed", Float: func() float64 { return math.Round(st.TickSpeed*1000) / 1000 }},
	)
	return set
}

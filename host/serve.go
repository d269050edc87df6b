package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"runtime"
	"slices"
	"syscall"
	"time"

	"vkm/host/access"
	"vkm/host/browser"
	"vkm/host/figures"
	"vkm/host/game"
	"vkm/host/lan"
	"vkm/host/loop"
	"vkm/host/netio"
	"vkm/host/project"
	"vkm/host/session"
	"vkm/host/watch"
	"vkm/transport"
	"vkm/transport/handshake"
	"vkm/transport/token"
)

// ServeConfig says what Serve serves and how.
type ServeConfig struct {
	Project *project.Project
	// Addr is the UDP address to listen on, "host:port"; empty means the
	// project's port, and no host (empty, or ":port") means every
	// interface for a server with a Key or told Insecure, and 127.0.0.1
	// otherwise (port 0 picks a free one).
	Addr string
	// Key, if set, is the game's shared key: the server admits only
	// players with a connect token minted under it, and seals their
	// connections. Without one the server admits anyone whose build
	// matches, unsealed, and Validate refuses an address that is not
	// loopback unless Insecure is set.
	Key *token.Key
	// MOTD, if set, is the message of the day each player is sent as
	// they join, in place of the project's motd.
	MOTD string
	// AccessFile, if set, is the access list's file (bans and allows by
	// client id and address; host/access), read at start and written on
	// every change. Empty: a list kept in memory for the run.
	AccessFile string
	// Console, if set, is read for console lines (players, kick, ban,
	// unban, mute, unmute, say), each answered on ConsoleOut (nil:
	// discarded).
	Console    io.Reader
	ConsoleOut io.Writer
	// AdminToken is the bearer token the admin listener's POST endpoints
	// require; empty refuses them all.
	AdminToken string
	// Password, if not empty, is the password every joining player must
	// prove they know; the rest are refused with reason 14 (password).
	Password []byte
	Insecure bool
	// Public are the addresses players reach the server at, which their
	// tokens name (with a Key). Empty means the address listened on, or,
	// listening on every interface, the loopback addresses.
	Public []netip.AddrPort
	// Net, if set, is the in-process network to serve on instead of UDP.
	Net *netio.Loopback
	// Web, if set, is the TCP address ("host:port") of the web listener:
	// browsers (and PlayConfig.Web clients) play over WebRTC data
	// channels or WebSocket through it, and the browser client's page is
	// served there. Validate refuses an address that is not loopback
	// without a Key unless Insecure is set, as it does Addr. WebReady, if
	// set, is called with the address it listens on. The link simulator
	// (Sim) acts on UDP peers only.
	Web      string
	WebReady func(net.Addr)
	// WebTransport, with Web, also serves WebTransport sessions (HTTP/3
	// datagrams) on the next UDP port, which the page then tries first.
	// Off by default: here a WebTransport peer cost the server as much
	// CPU as a WebRTC one or more (BENCHMARKS.md, "WebTransport beside
	// WebRTC"), and it needs a second UDP port published.
	WebTransport bool
	// WebClient, if set, is the browser client's WebAssembly file the web
	// listener serves (built with GOOS=js GOARCH=wasm from cmd/webclient),
	// with the wasm_exec.js beside it or, failing that, the go
	// toolchain's. Empty builds it from the module's source with the go
	// toolchain when the server starts.
	WebClient string
	// Dev tells dev clients this is a development server.
	Dev bool
	// LAN, if not 0, is the UDP port to answer LAN discovery requests on
	// (host/lan; vkmd uses lan.Port), shared with the other servers on
	// the machine. A server listening on loopback answers only this
	// machine. Not with Net.
	LAN int
	// lanTargets, if set, are where the page's LAN search asks in place
	// of LANTargets (a test keeps to loopback).
	lanTargets []string
	// Relay, if set, is a relay's UDP address ("host:port"; no port:
	// relayd.DefaultPort): the server registers with it, is given a
	// join code, and players who cannot reach it directly join by
	// "CODE@RELAY" (transport/relay). JoinCode, if set, is called with
	// that text each time the relay gives a code. With a Key, tokens
	// naming relay.TokenAddr(code, the relay's port) are accepted too.
	Relay    string
	JoinCode func(string)
	// Sim names a link simulator profile to run every datagram through
	// (empty: none); SimSeed must then be set.
	Sim     string
	SimSeed uint64
	// Duration ends the run after this much wall time; 0 serves until ctx
	// ends.
	Duration time.Duration
	// Drain, if set, asks the server to stop, once per value received: the
	// first starts a drain of DrainTime (see below), the second (or the
	// first, when DrainTime is 0) stops it at once, as ctx ending does.
	// vkmd feeds it SIGTERM and SIGINT.
	Drain <-chan struct{}
	// DrainTime is how long a drain lets the match play on: the server
	// refuses new players (handshake.ReasonShuttingDown), /readyz says it
	// is not ready, the game's drain handler (net.on_drain) is told the
	// seconds left, and once every player has left or DrainTime has
	// passed, the server says goodbye to those still seated and stops.
	DrainTime time.Duration
	Logger    *slog.Logger
	// Status receives one status line a second; nil prints none.
	Status io.Writer
	// Ready, if set, is called with the address the server listens on once
	// it does (tests serve on port 0 and need to know which port they got).
	Ready func(netip.AddrPort)
	// Admin, if set, is the TCP address ("host:port") of the admin
	// listener: /metrics, /healthz, /readyz and /debug/pprof/ over HTTP.
	// Empty means none. Validate refuses an address that is not loopback
	// unless AdminPublic is set: the profiles and metrics are not for
	// everyone.
	Admin       string
	AdminPublic bool
	// HealthStall is how long the serving loop may run no tick before the
	// admin listener's /healthz fails (admin.Config.Stall; 0: a second).
	HealthStall time.Duration
	// Version is the build's version, which /metrics's vkm_build_info
	// names (empty: "devel").
	Version string
	// AdminReady, if set, is called with the admin listener's address once
	// it listens (tests listen on port 0).
	AdminReady func(net.Addr)
	// AfterTick, if set, is called on the serving goroutine after every
	// tick, for tools and tests that watch the game.
	AfterTick func(*game.Game)
	// TickLog, if set, receives a row for every tick (CSV with a header:
	// the columns are loop.TickRecord's), and the report lists the slowest
	// ticks: what their phases took on the wall and on the serving
	// thread's CPU clock, what they allocated, and whether the collector
	// was marking. Timing the phases costs a few clock reads a tick,
	// about 15 µs on Linux, inside the ticks timed.
	TickLog io.Writer
	// IdleGC runs the garbage collector between ticks, in the loop's
	// waits, once the heap has used half the room the collector's pacing
	// gives it, where the collection fits before the next tick; where it
	// does not, the collector runs by itself as it would otherwise (see
	// loop.IdleGC). The heap is bounded as without it. Off by default: the
	// collector is the process's, which another server in the same
	// process would share.
	IdleGC bool
	// Seated, if set, is called on the serving goroutine with the number
	// of seated players, once at the start and whenever it changes (a
	// fleet directory's seats free). It must not block.
	Seated func(players int)
	// Roster, if set, is called on the serving goroutine with every seated
	// player, once at the start and whenever a player is seated or goes
	// (an orchestrator's player tracking). The slice is the server's,
	// valid until the call returns. It must not block.
	Roster func(players []transport.PlayerInfo)
	// Readiness, if set, is asked by /readyz besides the seats and the
	// drain: an error makes the server not ready, its text saying why (a
	// fleet directory the server is not listed in). It is called on the
	// admin listener's goroutines, so it must be safe for concurrent use.
	Readiness func() error
	// Figures are figures of the program's own, which the report, the
	// status line and /metrics show beside the server's (package figures:
	// each where it names); their readers are called on the serving
	// goroutine.
	Figures []figures.Figure
	// Record, if set, is the folder the match is recorded into, one file
	// (host/record); RecordMax bounds that file (0: the default).
	Record    string
	RecordMax int64
}

// ServerReport is the JSON summary `vkmd --report` writes at exit. Its
// figures are the server's (host/figures.go), each under its key: its
// fields are filled from them, and a figure it has no field for is
// written beside them.
type ServerReport struct {
	State    string  `json:"state"`
	Ticks    uint32  `json:"ticks"`
	TickRate int     `json:"tick_rate"`
	WallS    float64 `json:"wall_s"`
	// CPUs (user + system) and MaxRSSMB (peak resident size) are the
	// serving process's, filled in by the program that owns the process
	// (vkmd); Serve leaves them 0.
	CPUs     float64 `json:"cpu_s"`
	MaxRSSMB float64 `json:"max_rss_mb"`
	// Tick* are the wall time one tick's simulation took (the commands
	// taken for it, behaviors, controller, physics; no sleeping), Send*
	// the time of one send round (building it, a snapshot per player,
	// polling the connections), in µs: median, 99th percentile, largest.
	TickP50us float64 `json:"tick_p50_us"`
	TickP99us float64 `json:"tick_p99_us"`
	TickMaxUs float64 `json:"tick_max_us"`
	// TickCPU* are the CPU time one tick took on the serving thread
	// (Linux; 0 elsewhere): where tick_p99_us is far above
	// tick_cpu_p99_us, the slow ticks waited for a core rather than
	// worked.
	TickCPUP50us float64 `json:"tick_cpu_p50_us"`
	TickCPUP99us float64 `json:"tick_cpu_p99_us"`
	SendP50us    float64 `json:"send_p50_us"`
	SendP99us    float64 `json:"send_p99_us"`
	// AllocsPerTick is the process's heap allocations per tick, the median
	// of one-second windows (so a join's burst is not steady state).
	AllocsPerTick float64 `json:"allocs_per_tick"`
	// SlowestTicks are the slowest ticks by wall time, slowest first,
	// when the run traced its ticks (ServeConfig.TickLog).
	SlowestTicks []loop.TickRecord `json:"slowest_ticks,omitempty"`
	// GCs counts the collections the process ran while serving; IdleGCs
	// those run between ticks (ServeConfig.IdleGC), IdleGCLate those of
	// them that ended more than 2 ms after the next tick or send round
	// was due, and
	// IdleGCP50us and IdleGCMaxUs what one took.
	GCs         uint64  `json:"gcs"`
	IdleGCs     uint64  `json:"idle_gcs,omitempty"`
	IdleGCLate  uint64  `json:"idle_gc_late,omitempty"`
	IdleGCP50us float64 `json:"idle_gc_p50_us,omitempty"`
	IdleGCMaxUs float64 `json:"idle_gc_max_us,omitempty"`
	Joins       uint64  `json:"joins"`
	Leaves      uint64  `json:"leaves"`
	Refused     uint64  `json:"refused"`
	Players     int     `json:"players"`
	Errors      int     `json:"errors"`
	// MessagesIn are the project messages taken from players,
	// MessagesOut those queued to them, MessagesDropped those dropped
	// either way, MessageFloods the seats ended for sending over their
	// bound.
	MessagesIn      uint64 `json:"messages_in,omitempty"`
	MessagesOut     uint64 `json:"messages_out,omitempty"`
	MessagesDropped uint64 `json:"messages_dropped,omitempty"`
	MessageFloods   uint64 `json:"message_floods,omitempty"`
	// ChatLines are the chat lines sent to the players, ChatRefused
	// those the project refused, ChatDropped those over a rate or muted.
	ChatLines   uint64 `json:"chat_lines,omitempty"`
	ChatRefused uint64 `json:"chat_refused,omitempty"`
	ChatDropped uint64 `json:"chat_dropped,omitempty"`
	// Kicks are the players an operator kicked, Bans the bans made.
	Kicks uint64 `json:"kicks,omitempty"`
	Bans  uint64 `json:"bans,omitempty"`
	// Events counts the presentation events the game emitted, by name; a
	// server presents nothing, so it counts them and keeps none.
	Events map[string]uint64    `json:"events"`
	Peers  []session.PeerReport `json:"peers"`
	// Web is the web listener's counts (with Web set).
	Web *WebReport `json:"web,omitempty"`

	// other are the figures it has no field for, by key.
	other figures.Extra
}

// MarshalJSON writes the report's fields and then the figures it has no
// field for.
func (r ServerReport) MarshalJSON() ([]byte, error) {
	type fields ServerReport
	b, err := json.Marshal(fields(r))
	if err != nil {
		return nil, err
	}
	return r.other.AppendTo(b)
}

// WebReport is what the web listener carried, as its gateway counts it:
// the browser peers open at the end that the vkm handshake has welcomed,
// and the attempts it has not yet, by transport ("webrtc", "websocket");
// the peers it welcomed, by transport; every offer and upgrade that ended,
// by reason; the datagrams it dropped and the offers and upgrades it
// refused; and datagrams and bytes each way.
type WebReport struct {
	Peers        map[string]int    `json:"peers"`
	Connecting   map[string]int    `json:"connecting"`
	Admitted     map[string]uint64 `json:"admitted"`
	Closed       map[string]uint64 `json:"closed"`
	Drops        uint64            `json:"drops"`
	Refused      uint64            `json:"refused"`
	DatagramsIn  uint64            `json:"datagrams_in"`
	DatagramsOut uint64            `json:"datagrams_out"`
	BytesIn      uint64            `json:"bytes_in"`
	BytesOut     uint64            `json:"bytes_out"`
	// Voice is the players' voice the gateway relayed (a project with
	// [voice]; zero without).
	Voice VoiceReport `json:"voice"`
}

// VoiceReport counts the voice a web listener relayed: RTP packets and
// their payload bytes heard from speakers and forwarded to listeners, and
// those dropped, over a speaker's cap or from a peer that may not speak.
type VoiceReport struct {
	PacketsIn         uint64 `json:"packets_in"`
	PacketsOut        uint64 `json:"packets_out"`
	BytesIn           uint64 `json:"bytes_in"`
	BytesOut          uint64 `json:"bytes_out"`
	DroppedOverCap    uint64 `json:"dropped_over_cap"`
	DroppedNotSpeaker uint64 `json:"dropped_not_speaker"`
}

// server runs a session.Server on a socket and the wall clock.
type server struct {
	cfg   ServeConfig
	log   *slog.Logger
	s     *session.Server
	sock  netio.Socket
	start time.Time
	stats *loop.Stats
	// voice decides the voice's routes, when the project has [voice]
	// and the server serves browsers (browser.VoicePlanner).
	voice *browser.VoicePlanner
	// afterTick is stats.TickDone, bound once so a tick makes no closure.
	afterTick func(*game.Game)
	// drainAt is the time drain gives the datagrams it reads, and recv
	// their receiver.
	drainAt transport.Time
	recv    func(netip.AddrPort, []byte)
	// admin is the admin listener's feed (nil: no listener).
	admin *adminFeed
	// note is what the status line says about security ("" with a key).
	note string
	// drainEnd is when a drain started by cfg.Drain ends (zero: none has).
	drainEnd time.Time
	// gc runs the collector between ticks (nil: cfg.IdleGC is off).
	gc *loop.IdleGC
	// figures are the server's, and vals what was last read of them;
	// line is the status line's buffer.
	figures *figures.Set
	vals    figures.Values
	line    []byte
	// mod answers console lines, which come through cmds (moderation.go).
	mod  *moderator
	cmds chan command
	// lan answers LAN discovery (nil: it does not).
	lan *lanAnswerer
}

// Serve runs cfg.Project as a dedicated server until ctx ends (or
// cfg.Duration passes): it listens on UDP, seats players through the
// project's join handler, ticks the world, sends snapshots, and says
// goodbye to every player on the way out. Told to drain (cfg.Drain), it
// seats no one new and plays on until its players have left or
// cfg.DrainTime has passed.
func Serve(ctx context.Context, cfg ServeConfig) (*ServerReport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// One thread runs the game from its loading on, so that thread's CPU
	// clock times the ticks (stats) and bounds the behaviors' calls
	// (loop.ScriptClock).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p := cfg.Project
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	srv := &server{cfg: cfg, log: logger, start: time.Now(), stats: loop.NewStats()}
	if cfg.IdleGC {
		srv.gc = loop.NewIdleGC()
	}
	srv.afterTick = srv.stats.TickDone
	if hook := cfg.AfterTick; hook != nil {
		srv.afterTick = func(g *game.Game) {
			srv.stats.TickDone(g)
			hook(g)
		}
	}
	// The socket first: a server with a key names its bound address in
	// the session's Auth.
	var err error
	srv.sock, err = netio.Listen(cfg.Net, cfg.listenAddr(p.Port), cfg.Sim, cfg.SimSeed)
	// The project's port taken (another server of it on this machine):
	// the next free one up to 15 above it, which a LAN search still finds.
	for i := 1; err != nil && errors.Is(err, syscall.EADDRINUSE) && cfg.Addr == "" && cfg.Net == nil && i <= 15 && p.Port+i <= 65535; i++ {
		if srv.sock, err = netio.Listen(nil, cfg.listenAddr(p.Port+i), cfg.Sim, cfg.SimSeed); err == nil {
			logger.Info("the project's port is taken: serving on the next free one", "project_port", p.Port, "port", p.Port+i)
		}
	}
	if err != nil {
		return nil, err
	}
	if cfg.Web != "" {
		ws, err := browser.Listen(browser.ListenConfig{Addr: cfg.webAddr(), Public: cfg.Public, Ready: cfg.WebReady, Logger: logger, WebTransport: cfg.WebTransport,
			Page: browser.PageConfig{Project: p, Dev: cfg.Dev, WebClient: cfg.WebClient, LAN: cfg.pageLAN()}}, srv.sock)
		if err != nil {
			srv.sock.Close()
			return nil, err
		}
		srv.sock = ws
		if l, ok := ws.(interface {
			OnLinkGone(func(netip.AddrPort, handshake.GoodbyeReason))
		}); ok {
			l.OnLinkGone(srv.linkGone) // told while drain reads the socket
		}
		if p.Voice.On() {
			srv.voice = browser.NewVoicePlanner(p.Voice, logger)
		}
	} else if p.Voice.On() {
		logger.Info("the project has [voice], which browsers carry: serve them with --web for the players to talk")
	}
	var relayed netip.AddrPort // the address tokens name the server by through the relay
	if cfg.Relay != "" {
		rs, at, err := serveRelay(ctx, cfg, srv.sock, logger)
		if err != nil {
			srv.sock.Close()
			return nil, err
		}
		srv.sock, relayed = rs, at
	}
	defer srv.sock.Close()
	srv.note = cfg.securityNote(srv.sock.LocalAddr())
	sc := session.ServerConfig{Project: p, Logger: logger, BudgetClock: loop.ScriptClock(), Auth: cfg.serverAuth(srv.sock.LocalAddr(), srv.start, logger), MOTD: cfg.MOTD, Password: cfg.Password}
	if sc.Auth != nil && relayed.IsValid() {
		sc.Auth.Addrs = append(sc.Auth.Addrs, relayed)
	}
	list, err := access.Load(cfg.AccessFile)
	if err != nil {
		return nil, err
	}
	srv.mod = &moderator{list: list, log: logger}
	srv.cmds = make(chan command)
	sc.Gate = srv.mod.gate
	if cfg.Dev {
		w, err := watch.New(p.FS)
		if err != nil {
			return nil, fmt.Errorf("host: --dev watches the project's files: %w", err)
		}
		sc.Changes = w
	}
	if srv.s, err = session.NewServer(sc); err != nil {
		return nil, err
	}
	defer srv.s.Close()
	if cfg.Record != "" {
		rec, err := startRecording(cfg.Record, cfg.RecordMax, srv.s, logger)
		if err != nil {
			return nil, err
		}
		defer stopRecording(rec, logger)
	}
	srv.mod.s = srv.s
	if cfg.Console != nil {
		out := cfg.ConsoleOut
		if out == nil {
			out = io.Discard
		}
		cctx, stopConsole := context.WithCancel(ctx)
		defer stopConsole()
		go console(cctx, cfg.Console, out, srv.cmds)
	}
	srv.figures = srv.newFigures()
	if cfg.Admin != "" {
		cfg.Logger = logger
		if srv.admin, err = startAdmin(cfg, srv.s, srv.figures, srv.cmds); err != nil {
			return nil, err
		}
		defer srv.admin.close()
		srv.stats.Observer = srv.admin.a
		logger.Info("admin listening", "addr", cfg.Admin)
	}
	if cfg.LAN != 0 && cfg.Net == nil {
		at := srv.sock.LocalAddr()
		a := lan.Answer{Project: p.Name, Fingerprint: session.Hello(srv.s.Game()).SchemaFP, Seats: uint16(min(p.Players, 0xffff)), Port: at.Port(), Key: cfg.Key != nil}
		if srv.lan = startLAN(cfg.LAN, a, at.Addr().IsLoopback(), logger); srv.lan != nil {
			defer srv.lan.close()
		}
	}
	if cfg.Ready != nil {
		cfg.Ready(srv.sock.LocalAddr())
	}
	logger.Info("serving", "project", p.Name, "addr", srv.sock.LocalAddr().String(), "tick_rate", p.TickRate, "players", p.Players, "dev", cfg.Dev, "sim", cfg.Sim, "sealed", cfg.Key != nil)
	if srv.note != "" {
		logger.Warn(srv.note)
	}
	if cfg.TickLog == nil {
		return srv.run(ctx)
	}
	tr := loop.NewTrace(cfg.TickLog, srv.start)
	srv.stats.Trace = tr
	srv.s.Game().TimePhases(func() game.PhaseTime {
		c, _ := loop.ThreadCPU()
		return game.PhaseTime{Wall: time.Since(srv.start), CPU: c}
	})
	rep, err := srv.run(ctx)
	if cerr := tr.Close(); cerr != nil {
		logger.Warn("the tick log was not written whole", "err", cerr)
	}
	return rep, err
}

// awake is a closed channel: a select on it does not wait. The loop that
// waited on its loop.Timer selects on it in place of its Go timer.
var awake = func() <-chan time.Time {
	c := make(chan time.Time)
	close(c)
	return c
}()

func (srv *server) now() transport.Time { return transport.Time(time.Since(srv.start)) }

// run serves until ctx ends, the duration passes or the socket fails. It
// wakes only when the session has something due (a tick that brings a send
// round, with any tick before it that waited for it; a connection deadline)
// or the status line is, and takes in every datagram
// that arrived since before anything else. A command is read only by a
// tick and an acknowledgement only by a send round, so taking them in just
// before those costs them nothing, and a server of N players is not woken
// N × 64 times a second besides: on a crowded server those wake-ups, each
// a goroutine hand-off, cost more than the datagrams themselves.
//
// Where it reads its socket itself, on Linux, it waits on a timerfd in the
// runtime's poller (loop.Timer) rather than on a Go timer, and
// looks at its channels (the context, the duration, a drain) as it wakes:
// the longest wait is to the next send round or status line, so none waits
// long to be seen.
func (srv *server) run(ctx context.Context) (*ServerReport, error) {
	last := time.Now()
	nextStatus := last.Add(time.Second)
	timer := time.NewTimer(0)
	defer timer.Stop()
	var stop <-chan time.Time
	if d := srv.cfg.Duration; d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		stop = t.C
	}
	srv.publish(figures.InMetrics)
	seated := -1
	var rostered roster
	// Only where the loop reads its socket itself: a socket with a reader
	// goroutine is an in-process one or the web's, and a test's fake clock
	// (testing/synctest) moves Go timers, not a timerfd.
	var lt *loop.Timer
	if _, direct := srv.sock.(netio.Direct); direct {
		var err error
		if lt, err = loop.NewTimer(); err != nil {
			srv.log.Debug("the serving loop waits on a Go timer", "err", err)
		} else {
			defer lt.Close()
		}
	}
	var wake time.Time
	for {
		tick := timer.C
		if lt != nil {
			lt.SleepUntil(wake)
			tick = awake
		}
		select {
		case <-ctx.Done():
			return srv.shutdown(), nil
		case <-stop:
			return srv.shutdown(), nil
		case <-srv.cfg.Drain:
			if !srv.drainEnd.IsZero() || srv.cfg.DrainTime <= 0 {
				return srv.shutdown(), nil
			}
			srv.startDrain(time.Now())
		case c := <-srv.cmds:
			c.reply <- srv.mod.do(c.line)
			continue
		case <-tick:
		}
		if err := srv.drain(); err != nil {
			return srv.report(), err
		}
		now := time.Now()
		ticks := srv.step(now.Sub(last), srv.now())
		srv.voice.Update(srv.s, srv.sock, now, srv.now())
		srv.flush()
		if srv.stats.Trace != nil {
			srv.stats.Trace.Write()
		}
		last = now
		if srv.lan != nil {
			srv.lan.players.Store(int32(srv.s.Net().PlayerCount()))
		}
		if srv.cfg.Seated != nil {
			if n := srv.s.Net().PlayerCount(); n != seated {
				seated = n
				srv.cfg.Seated(n)
			}
		}
		if srv.cfg.Roster != nil {
			rostered.update(srv)
		}
		if !srv.drainEnd.IsZero() && (srv.s.Net().PlayerCount() == 0 || !now.Before(srv.drainEnd)) {
			srv.log.Info("drained", "players_left", srv.s.Net().PlayerCount())
			return srv.shutdown(), nil
		}
		if srv.admin != nil {
			srv.admin.wake(now, ticks)
		}
		if srv.gc != nil {
			srv.gc.Maybe(func() time.Duration { return srv.s.Until(srv.now()) - time.Since(now) })
		}
		if !now.Before(nextStatus) {
			srv.stats.Sample(srv.s.Game().Tick())
			srv.publish(figures.InStatus | figures.InMetrics)
			if srv.admin != nil {
				srv.admin.observePlayers(srv.now())
			}
			nextStatus = nextStatus.Add(time.Second)
		}
		until := srv.s.Until(srv.now())
		if srv.stats.Slowest() > pairedTickMax {
			until = srv.s.UntilTick(srv.now())
		}
		wait := min(until, time.Until(nextStatus))
		if !srv.drainEnd.IsZero() {
			wait = min(wait, time.Until(srv.drainEnd))
		}
		if lt != nil {
			wake = time.Now().Add(wait)
		} else {
			timer.Reset(wait)
		}
	}
}

// roster is what the loop last told ServeConfig.Roster: it tells it
// again when the joins or leaves have moved since.
type roster struct {
	told          bool
	joins, leaves uint64
	players       []transport.PlayerInfo
}

func (r *roster) update(srv *server) {
	st := srv.s.Net().Stats()
	if r.told && st.Joins == r.joins && st.Leaves == r.leaves {
		return
	}
	r.told, r.joins, r.leaves = true, st.Joins, st.Leaves
	r.players = srv.s.Net().Players(r.players[:0], srv.now())
	r.players = slices.DeleteFunc(r.players, func(p transport.PlayerInfo) bool { return p.Spectator }) // they hold no seat
	srv.cfg.Roster(r.players)
}

// pairedTickMax is the longest a tick may have taken for the loop to let
// the next tick without a send round wait for the one with it
// (session.Server.Until): the waiting tick then runs first, so that round's
// snapshots go out later by its run time. Slower than this, the loop wakes
// for every tick (session.Server.UntilTick). Tuning constant: the arena's
// ticks take 0.05–0.2 ms, a crowd's 2–5 ms.
const pairedTickMax = time.Millisecond

// startDrain begins a drain at now: no one new is seated, /readyz turns
// not ready, and the game's drain handler is told the time left. The loop
// runs a wake-up straight after, so a server with no players stops at once.
func (srv *server) startDrain(now time.Time) {
	srv.drainEnd = now.Add(srv.cfg.DrainTime)
	if srv.admin != nil {
		srv.admin.a.Closing()
	}
	srv.publish(figures.InMetrics)
	srv.log.Info("draining: seating no one new; stopping once every player has left", "players", srv.s.Net().PlayerCount(), "within", srv.cfg.DrainTime)
	srv.s.Drain(srv.cfg.DrainTime.Seconds())
	srv.flush()
}

// drain hands the session every datagram waiting on the socket, without
// waiting for more; it fails once the socket has closed. A socket the loop
// reads itself is read in batches, into one reused buffer; otherwise its
// reader goroutine's channel is emptied.
func (srv *server) drain() error {
	if d, ok := srv.sock.(netio.Direct); ok {
		if srv.recv == nil {
			srv.recv = srv.receive // bound once: a wake-up makes no closure
		}
		srv.drainAt = srv.now()
		if err := d.ReadWaiting(srv.recv); err != nil {
			return fmt.Errorf("host: the socket closed: %v", err)
		}
		return nil
	}
	in := srv.sock.Incoming()
	for {
		select {
		case d, ok := <-in:
			if !ok {
				return fmt.Errorf("host: the socket closed: %v", srv.sock.Err())
			}
			srv.s.Receive(d.From, d.Bytes, srv.now())
		default:
			return nil
		}
	}
}

// step runs the session for one wake-up, timing each tick and the send
// round apart. The ticks now due run first, with a hook after each; the
// session's Advance then finds none left to run and does the rest in its
// own order (poll, events, the send round if one is due). It returns the
// ticks run.
func (srv *server) step(elapsed time.Duration, now transport.Time) int {
	srv.stats.Begin()
	ticks := srv.s.RunTicks(elapsed, now, srv.afterTick)
	start := time.Now()
	if srv.s.Advance(0, now) {
		srv.stats.Sent(time.Since(start))
	}
	return ticks
}

// linkGone ends the seat of a browser whose connection the web listener
// saw end (a tab closing may not get its Goodbye out), told while drain
// reads the socket.
func (srv *server) linkGone(addr netip.AddrPort, reason handshake.GoodbyeReason) {
	srv.s.LinkGone(addr, reason, srv.drainAt)
}

// receive hands the session one datagram read by drain.
func (srv *server) receive(from netip.AddrPort, b []byte) {
	srv.s.Receive(from, b, srv.drainAt)
}

// flush sends what the session has queued: in one batch on a socket the
// loop writes itself (the datagrams stay in the session's queue until the
// next datagram it receives, after this), one by one otherwise.
func (srv *server) flush() {
	d, batch := srv.sock.(netio.Direct)
	for {
		to, b, ok := srv.s.Net().NextDatagram()
		if !ok {
			break
		}
		var err error
		if batch {
			err = d.Queue(b, to)
		} else {
			err = srv.sock.WriteTo(b, to)
		}
		if err != nil {
			srv.log.Debug("send failed", "to", to.String(), "err", err)
		}
	}
	if batch {
		if err := d.Flush(); err != nil {
			srv.log.Debug("send failed", "err", err)
		}
	}
}

// publish reads the server's figures for parts and hands them on: the
// status line (figures.InStatus) to cfg.Status, /metrics's
// (figures.InMetrics) to the admin listener. A part with no reader is not
// read.
func (srv *server) publish(parts figures.Part) {
	if srv.cfg.Status == nil {
		parts &^= figures.InStatus
	}
	if srv.admin == nil {
		parts &^= figures.InMetrics
	}
	if parts == 0 {
		return
	}
	srv.figures.Read(&srv.vals, parts)
	if parts&figures.InStatus != 0 {
		srv.status()
	}
	if parts&figures.InMetrics != 0 {
		srv.admin.a.Update(&srv.vals)
	}
}

// status prints the once-a-second line: the figures read for it (tick,
// players...), then each player's link.
func (srv *server) status() {
	b := srv.vals.AppendStatus(srv.line[:0])
	for _, p := range srv.s.Peers(srv.now()) {
		b = fmt.Appendf(b, " | p%d rtt %.0fms loss %.1f%% in %.0fB/s out %.0fB/s repeats %d skips %d", p.Player, p.RTTms, p.LossPermille/10, p.BytesInPerS, p.BytesOutPerS, p.Repeats, p.Skips)
	}
	srv.line = append(b, '\n')
	srv.cfg.Status.Write(srv.line)
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// shutdown says goodbye to every player and returns the report.
func (srv *server) shutdown() *ServerReport {
	if srv.admin != nil {
		srv.admin.a.Closing()
	}
	srv.publish(figures.InMetrics)
	rep := srv.report()
	srv.s.Net().Goodbye(srv.now())
	srv.flush()
	return rep
}

// report is the server's report now: its figures, its players' links and
// the slowest ticks traced.
func (srv *server) report() *ServerReport {
	srv.figures.Read(&srv.vals, figures.InReport)
	rep := &ServerReport{State: "served", Peers: srv.s.Peers(srv.now())}
	rep.other = figures.Fill(rep, &srv.vals)
	if srv.stats.Trace != nil {
		rep.SlowestTicks = srv.stats.Trace.Slowest()
	}
	return rep
}

// DescribeSchema loads p as a server would and describes what it puts on
// the wire: every replicated type in order with its fields and codecs, and
// the fingerprint a join compares.
func DescribeSchema(p *project.Project) (string, error) {
	s, err := session.NewServer(session.ServerConfig{Project: p})
	if err != nil {
		return "", err
	}
	defer s.Close()
	return s.Game().Schema().Describe(), nil
}

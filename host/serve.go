package host

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/netip"
	"strings"
	"time"

	"vkm/transport"
)

// ServeConfig says what Serve serves and how.
type ServeConfig struct {
	Project *Project
	// Addr is the UDP address to listen on, "host:port"; empty means every
	// interface at the project's port (port 0 picks a free one).
	Addr string
	// Dev tells dev clients this is a development server.
	Dev bool
	// Sim names a link simulator profile to run every datagram through
	// (empty: none); SimSeed must then be set.
	Sim     string
	SimSeed uint64
	// Duration ends the run after this much wall time; 0 serves until ctx
	// ends.
	Duration time.Duration
	Logger   *slog.Logger
	// Status receives one status line a second; nil prints none.
	Status io.Writer
	// Ready, if set, is called with the address the server listens on once
	// it does (tests serve on port 0 and need to know which port they got).
	Ready func(netip.AddrPort)
}

// ServerReport is the JSON summary `vkmd --report` writes at exit.
type ServerReport struct {
	State    string       `json:"state"`
	Ticks    uint32       `json:"ticks"`
	TickRate int          `json:"tick_rate"`
	WallS    float64      `json:"wall_s"`
	Joins    uint64       `json:"joins"`
	Leaves   uint64       `json:"leaves"`
	Refused  uint64       `json:"refused"`
	Players  int          `json:"players"`
	Errors   int          `json:"errors"`
	Peers    []PeerReport `json:"peers"`
}

// PeerReport is one seated player's link, as a server's report gives it.
type PeerReport struct {
	Player       uint16  `json:"player"`
	Name         string  `json:"name,omitempty"`
	RTTms        float64 `json:"rtt_ms"`
	LossPermille float64 `json:"loss_permille"`
	BytesInPerS  float64 `json:"bytes_in_per_s"`
	BytesOutPerS float64 `json:"bytes_out_per_s"`
	// Repeats are ticks run dry on this player's last command; Skips are
	// commands dropped to keep their queue shallow.
	Repeats uint64 `json:"repeats"`
	Skips   uint64 `json:"skips"`
	// BadPackets are command packets from this player that did not parse.
	BadPackets uint64 `json:"bad_packets"`
}

// server runs a serverSession on a socket and the wall clock.
type server struct {
	cfg   ServeConfig
	log   *slog.Logger
	s     *serverSession
	sock  socket
	start time.Time
}

// Serve runs cfg.Project as a dedicated server until ctx ends (or
// cfg.Duration passes): it listens on UDP, seats players through the
// project's join handler, ticks the world, sends snapshots, and says
// goodbye to every player on the way out.
func Serve(ctx context.Context, cfg ServeConfig) (*ServerReport, error) {
	p := cfg.Project
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	g, err := NewGame(GameConfig{Project: p, Logger: logger, Role: Server})
	if err != nil {
		return nil, err
	}
	defer g.Close()
	srv := &server{cfg: cfg, log: logger, start: time.Now()}
	if srv.s, err = newServerSession(serverConfig{game: g, dev: cfg.Dev, logger: logger}); err != nil {
		return nil, err
	}
	addr := cfg.Addr
	if addr == "" {
		addr = fmt.Sprintf(":%d", p.Port)
	}
	if srv.sock, err = listen(addr, cfg.Sim, cfg.SimSeed); err != nil {
		return nil, err
	}
	defer srv.sock.Close()
	if cfg.Ready != nil {
		cfg.Ready(srv.sock.LocalAddr())
	}
	logger.Info("serving", "project", p.Name, "addr", srv.sock.LocalAddr().String(), "tick_rate", p.TickRate, "players", p.Players, "dev", cfg.Dev, "sim", cfg.Sim)
	return srv.run(ctx)
}

func (srv *server) now() transport.Time { return transport.Time(time.Since(srv.start)) }

func (srv *server) run(ctx context.Context) (*ServerReport, error) {
	err := pump(ctx, srv.cfg.Duration, srv.sock,
		func(d datagram) { srv.s.receive(d.From, d.Bytes, srv.now()) },
		func(elapsed time.Duration) time.Duration {
			srv.s.advance(elapsed, srv.now())
			srv.flush()
			return srv.s.until(srv.now())
		},
		srv.status)
	if err != nil {
		return srv.report(), err
	}
	return srv.shutdown(), nil
}

// flush sends what the session has queued.
func (srv *server) flush() {
	for {
		to, b, ok := srv.s.net.NextDatagram()
		if !ok {
			return
		}
		if err := srv.sock.WriteTo(b, to); err != nil {
			srv.log.Debug("send failed", "to", to.String(), "err", err)
		}
	}
}

// status prints the once-a-second line: tick, players, each player's link.
func (srv *server) status() {
	if srv.cfg.Status == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tick %d players %d/%d", srv.s.game.Tick(), srv.s.net.PlayerCount(), srv.cfg.Project.Players)
	for _, p := range srv.s.peers(srv.now()) {
		fmt.Fprintf(&b, " | p%d rtt %.0fms loss %.1f%% in %.0fB/s out %.0fB/s repeats %d skips %d", p.Player, p.RTTms, p.LossPermille/10, p.BytesInPerS, p.BytesOutPerS, p.Repeats, p.Skips)
	}
	fmt.Fprintln(srv.cfg.Status, b.String())
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// shutdown says goodbye to every player and returns the report.
func (srv *server) shutdown() *ServerReport {
	rep := srv.report()
	srv.s.net.Goodbye(srv.now())
	srv.flush()
	return rep
}

func (srv *server) report() *ServerReport {
	st := srv.s.net.Stats()
	var refused uint64
	for _, n := range st.Refusals {
		refused += n
	}
	g := srv.s.game
	return &ServerReport{
		State:    "served",
		Ticks:    g.Tick(),
		TickRate: g.TickRate(),
		WallS:    round1(time.Since(srv.start).Seconds()),
		Joins:    st.Joins,
		Leaves:   st.Leaves,
		Refused:  refused,
		Players:  srv.s.net.PlayerCount(),
		Errors:   len(g.ScriptErrors()) + srv.s.joinErr,
		Peers:    srv.s.peers(srv.now()),
	}
}

// DescribeSchema loads p as a server would and describes what it puts on
// the wire: every replicated type in order with its fields and codecs, and
// the fingerprint a join compares.
func DescribeSchema(p *Project) (string, error) {
	g, err := NewGame(GameConfig{Project: p, Role: Server})
	if err != nil {
		return "", err
	}
	defer g.Close()
	return g.schema.Describe(), nil
}

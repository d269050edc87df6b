package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/netip"
	"strings"
	"time"

	"vkm/internal/entity"
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
}

// server is a Game served over a transport.Server.
type server struct {
	cfg     ServeConfig
	log     *slog.Logger
	game    *Game
	session *transport.Server
	sock    socket
	start   time.Time
	seated  map[uint16]seatInfo
	joinErr int
}

type seatInfo struct {
	entity entity.ID
	since  time.Time
}

// Serve runs cfg.Project as a dedicated server until ctx ends (or
// cfg.Duration passes): it listens on UDP, seats players through the
// project's join handler, ticks the world, and says goodbye to every player
// on the way out. The report is returned even with an error when the
// server got as far as running.
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
	if !g.HasNetwork() {
		return nil, fmt.Errorf("host: %s has no vkmSetupNetwork in %s: a project that registers no network types and no join handler plays offline only, and vkmd serves networked projects", p.Name, p.EntryScript)
	}
	s := &server{cfg: cfg, log: logger, game: g, seated: map[uint16]seatInfo{}}
	hello := g.Hello()
	hello.Dev = cfg.Dev
	s.session, err = transport.NewServer(transport.ServerConfig{
		Hello: hello, MaxPlayers: p.Players, Admit: s.admit, Logger: logger,
	})
	if err != nil {
		return nil, err
	}
	addr := cfg.Addr
	if addr == "" {
		addr = fmt.Sprintf(":%d", p.Port)
	}
	sock, err := listen(addr, cfg.Sim, cfg.SimSeed)
	if err != nil {
		return nil, err
	}
	s.sock = sock
	defer sock.Close()
	if cfg.Ready != nil {
		cfg.Ready(sock.LocalAddr())
	}
	logger.Info("serving", "project", p.Name, "addr", sock.LocalAddr().String(), "tick_rate", p.TickRate, "players", p.Players, "dev", cfg.Dev, "sim", cfg.Sim)
	return s.run(ctx)
}

// admit is the transport's join hook: the project's join handler decides.
func (s *server) admit(player uint16, name string, dev bool) bool {
	id, err := s.game.Join(player)
	if err != nil {
		s.joinErr++
		s.log.Error("join handler failed", "player", player, "err", err)
		return false
	}
	if id.IsNone() {
		return false
	}
	s.seated[player] = seatInfo{entity: id, since: time.Now()}
	return true
}

func (s *server) now() transport.Time { return transport.Time(time.Since(s.start)) }

func (s *server) run(ctx context.Context) (*ServerReport, error) {
	s.start = time.Now()
	last := s.start
	nextStatus := s.start.Add(time.Second)
	timer := time.NewTimer(0)
	defer timer.Stop()
	var stop <-chan time.Time
	if s.cfg.Duration > 0 {
		t := time.NewTimer(s.cfg.Duration)
		defer t.Stop()
		stop = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return s.shutdown(), nil
		case <-stop:
			return s.shutdown(), nil
		case d, ok := <-s.sock.Incoming():
			if !ok {
				return s.report(), errors.New("host: the socket closed")
			}
			s.session.Receive(d.From, d.Bytes, s.now())
		case <-timer.C:
		}
		now := time.Now()
		s.game.Advance(now.Sub(last), nil, nil)
		last = now
		s.session.SetTick(s.game.Tick())
		s.session.Poll(s.now())
		s.events()
		s.flush()
		if !now.Before(nextStatus) {
			s.status(now)
			nextStatus = nextStatus.Add(time.Second)
		}
		timer.Reset(s.wait(nextStatus))
	}
}

// wait is how long the loop may sleep: until the next tick, the session's
// next deadline or the next status line, whichever comes first.
func (s *server) wait(nextStatus time.Time) time.Duration {
	d := min(s.game.Clock().Until(), time.Until(nextStatus))
	if at, ok := s.session.NextDeadline(); ok {
		d = min(d, time.Duration(at-s.now()))
	}
	return max(d, 0)
}

// events handles what the session reports: a player who leaves takes their
// entity with them.
func (s *server) events() {
	for {
		ev, ok := s.session.NextEvent()
		if !ok {
			return
		}
		switch ev.Kind {
		case transport.EventJoined:
			s.log.Info("player joined", "player", ev.Player, "name", ev.Name, "addr", ev.Addr.String(), "dev", ev.Dev)
		case transport.EventLeft:
			if seat, ok := s.seated[ev.Player]; ok {
				s.game.Destroy(seat.entity)
				delete(s.seated, ev.Player)
			}
			s.log.Info("player left", "player", ev.Player, "reason", ev.Reason.String())
		}
	}
}

// flush sends what the session has queued.
func (s *server) flush() {
	for {
		to, b, ok := s.session.NextDatagram()
		if !ok {
			return
		}
		if err := s.sock.WriteTo(b, to); err != nil {
			s.log.Debug("send failed", "to", to.String(), "err", err)
		}
	}
}

// status prints the once-a-second line: tick, players, each player's link.
func (s *server) status(now time.Time) {
	if s.cfg.Status == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tick %d players %d/%d", s.game.Tick(), s.session.PlayerCount(), s.cfg.Project.Players)
	for _, p := range s.peers(now) {
		fmt.Fprintf(&b, " | p%d rtt %.0fms loss %.1f%% in %.0fB/s out %.0fB/s", p.Player, p.RTTms, p.LossPermille/10, p.BytesInPerS, p.BytesOutPerS)
	}
	fmt.Fprintln(s.cfg.Status, b.String())
}

func (s *server) peers(now time.Time) []PeerReport {
	out := []PeerReport{}
	for _, p := range s.session.Players(nil, s.now()) {
		secs := now.Sub(s.start).Seconds()
		if seat, ok := s.seated[p.Player]; ok {
			secs = now.Sub(seat.since).Seconds()
		}
		secs = math.Max(secs, 1e-3)
		out = append(out, PeerReport{
			Player: p.Player, Name: p.Name,
			RTTms:        round1(float64(p.RTT) / float64(time.Millisecond)),
			LossPermille: round1(p.Loss * 1000),
			BytesInPerS:  round1(float64(p.BytesIn) / secs),
			BytesOutPerS: round1(float64(p.BytesOut) / secs),
		})
	}
	return out
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// shutdown says goodbye to every player and returns the report.
func (s *server) shutdown() *ServerReport {
	rep := s.report()
	s.session.Goodbye(s.now())
	s.flush()
	return rep
}

func (s *server) report() *ServerReport {
	st := s.session.Stats()
	var refused uint64
	for _, n := range st.Refusals {
		refused += n
	}
	return &ServerReport{
		State:    "served",
		Ticks:    s.game.Tick(),
		TickRate: s.game.TickRate(),
		WallS:    round1(time.Since(s.start).Seconds()),
		Joins:    st.Joins,
		Leaves:   st.Leaves,
		Refused:  refused,
		Players:  s.session.PlayerCount(),
		Errors:   len(s.game.ScriptErrors()) + s.joinErr,
		Peers:    s.peers(time.Now()),
	}
}

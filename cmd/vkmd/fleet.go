package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"vkm/host"
	"vkm/host/figures"
	"vkm/host/fleet"
	"vkm/host/project"
)

// member is the server's entry in the fleet directory: registered once
// the server listens, removed (for good) as it starts to drain or stop.
// Safe for concurrent use: the serving goroutine registers, the signal
// relay removes.
type member struct {
	rdb    *redis.Client
	url    string
	logger *slog.Logger

	mu   sync.Mutex
	reg  *fleet.Registration
	left bool
}

// joinFleet makes cfg register the server in the fleet directory at url
// once it listens, and keep its seats up to date. The server leaves the
// directory as the first thing it does on the way out: on the first
// SIGTERM or Ctrl-C, before the drain begins (so no lobby hands out a
// server that seats no one new), and when --duration ends it, before its
// goodbyes. It returns the context to serve under and the function that
// leaves (if not left already) and closes the connection; call it once
// Serve returns.
func joinFleet(ctx context.Context, url string, cfg *host.ServeConfig, p *project.Project, logger *slog.Logger) (context.Context, func(), error) {
	id, err := host.ProjectIdentity(p)
	if err != nil {
		return nil, nil, err
	}
	rdb, err := fleet.Open(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	fleet.LogRedisTo(logger)
	m := &member{rdb: rdb, url: url, logger: logger}
	cfg.Figures = append(cfg.Figures, m.figures()...)
	readiness := cfg.Readiness
	cfg.Readiness = func() error {
		if readiness != nil {
			if err := readiness(); err != nil {
				return err
			}
		}
		return m.readiness()
	}
	ctx, stop := context.WithCancel(ctx)
	ready := cfg.Ready
	duration := cfg.Duration
	cfg.Duration = 0 // ended here instead, after leaving
	var timer *time.Timer
	cfg.Ready = func(addr netip.AddrPort) {
		if ready != nil {
			ready(addr)
		}
		public := addr
		if len(cfg.Public) > 0 {
			public = cfg.Public[0]
		} else if addr.Addr().IsUnspecified() {
			public = netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), addr.Port())
		}
		m.register(ctx, fleet.Server{Addr: public.String(), Project: p.Name, Fingerprint: id.Fingerprint, Protocol: id.Protocol, Seats: p.Players})
		if duration > 0 {
			timer = time.AfterFunc(duration, func() {
				m.leave("the run's duration has passed")
				stop()
			})
		}
	}
	seated := cfg.Seated
	cfg.Seated = func(n int) {
		if seated != nil {
			seated(n)
		}
		m.setPlayers(n)
	}
	relayed := make(chan struct{})
	if stops := cfg.Drain; stops != nil {
		drains := make(chan struct{}, cap(stops)+1)
		cfg.Drain = drains
		go m.relay(stops, drains, relayed)
	}
	return ctx, func() {
		if timer != nil {
			timer.Stop()
		}
		close(relayed)
		stop()
		m.leave("the server stopped")
		rdb.Close()
	}, nil
}

// relay hands each stop signal on to the server once the server has left
// the directory, until done closes.
func (m *member) relay(stops <-chan struct{}, drains chan<- struct{}, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case <-stops:
		}
		m.leave("the server is draining")
		select {
		case drains <- struct{}{}:
		default: // two are waiting: the server stops at the first
		}
	}
}

// register lists the server, unless it has already left. The
// registration keeps trying until Redis answers, and logs each change of
// its standing.
func (m *member) register(ctx context.Context, s fleet.Server) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.left {
		return
	}
	m.reg = fleet.Join(ctx, m.rdb, s, fleet.Config{Logger: m.logger.With("fleet", m.url)})
}

// registration is the server's registration, nil before it listens and
// after it has left.
func (m *member) registration() *fleet.Registration {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.left {
		return nil
	}
	return m.reg
}

// errNotListed is the server's readiness before its first write.
var errNotListed = errors.New("not yet listed in the fleet directory")

// readiness is what /readyz says of the fleet: not ready until the
// server is listed, nor while the directory does not answer. A server
// that has left is shutting down, which /readyz says first.
func (m *member) readiness() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.left {
		return nil
	}
	if m.reg == nil {
		return errNotListed
	}
	if err := m.reg.Err(); err != nil {
		return fmt.Errorf("not listed in the fleet directory (%v)", err)
	}
	return nil
}

// figures are the fleet's figures in /metrics: whether the server is
// listed now, and the writes that failed, by kind.
func (m *member) figures() []figures.Figure {
	return []figures.Figure{
		{Metric: "vkm_fleet_registered", Help: "1 while the server is listed in the fleet directory (its last write landed), 0 otherwise.",
			Kind: figures.Gauge, Uint: func() uint64 {
				if r := m.registration(); r != nil && r.Registered() {
					return 1
				}
				return 0
			}},
		{Metric: "vkm_fleet_errors_total", Help: "Writes to the fleet directory that failed, by kind: connection, timeout, reply (an error Redis answered), other.",
			Label: "kind", Uints: func(each func(string, uint64)) {
				m.mu.Lock()
				r := m.reg
				m.mu.Unlock()
				for _, k := range fleet.ErrorKinds {
					var n uint64
					if r != nil {
						n = r.Errors(k)
					}
					each(k.String(), n)
				}
			}},
	}
}

func (m *member) setPlayers(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.reg != nil {
		m.reg.SetPlayers(n)
	}
}

// leave removes the entry and stops its heartbeat; the server is not
// registered after. Only the first call does anything.
func (m *member) leave(why string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.left {
		return
	}
	m.left = true
	if m.reg == nil {
		return
	}
	if err := m.reg.Close(); err != nil {
		m.logger.Warn("fleet: leaving the directory", "err", err)
		return
	}
	m.logger.Info("fleet: left the directory", "why", why)
}

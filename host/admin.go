//go:build !js

package host

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"vkm/host/admin"
	"vkm/host/figures"
	"vkm/host/loop"
	"vkm/host/session"
	"vkm/transport"
	"vkm/transport/handshake"
)

// adminFeed is the admin listener and what the serving loop feeds it:
// its timings as stats takes them, its last tick and players after each
// wake-up, and the server's figures once a second (server.publish). The
// session is the loop's alone, so only the loop reads it; the listener's
// handlers read what was handed over.
type adminFeed struct {
	a    *admin.Admin
	http *http.Server
	s    *session.Server
	// players is observePlayers' buffer, reused each second.
	players []transport.PlayerInfo
}

var _ loop.Observer = (*admin.Admin)(nil) // the tick and send timings reach /metrics

// Limits of the admin listener's HTTP server. Its requests have no body,
// so a whole request is bounded as its headers are; a kept-alive
// connection outlives a scraper's interval (Prometheus's default is a
// minute) so each scrape need not connect anew. There is no write
// timeout: a CPU profile answers after the seconds it is asked for.
const (
	adminReadTimeout = 10 * time.Second
	adminIdleTimeout = 2 * time.Minute
	// adminCommandTimeout bounds how long a POST waits for the serving
	// loop, which answers between ticks.
	adminCommandTimeout = 5 * time.Second
)

// startAdmin listens on cfg.Admin and serves the admin handler there from
// a goroutine of its own, until close; its /metrics serves set's figures.
// Its POST endpoints hand console lines to the serving loop through cmds.
func startAdmin(cfg ServeConfig, s *session.Server, set *figures.Set, cmds chan<- command) (*adminFeed, error) {
	ln, err := net.Listen("tcp", cfg.Admin)
	if err != nil {
		return nil, fmt.Errorf("host: the admin listener: %w", err)
	}
	rate := s.Game().TickRate()
	f := &adminFeed{s: s, a: admin.New(admin.Config{Seats: cfg.Project.Players, TickPeriod: time.Second / time.Duration(rate), Figures: set,
		Stall: cfg.HealthStall, Version: cfg.Version, Protocol: int(handshake.Version),
		Token: cfg.AdminToken, Readiness: cfg.Readiness, Command: func(ctx context.Context, line string) (string, error) {
			ctx, cancel := context.WithTimeout(ctx, adminCommandTimeout)
			defer cancel()
			return ask(ctx, cmds, line)
		}})}
	f.http = &http.Server{Handler: f.a.Handler(), ReadHeaderTimeout: adminReadTimeout, ReadTimeout: adminReadTimeout, IdleTimeout: adminIdleTimeout}
	go func() {
		if err := f.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cfg.Logger.Error("admin listener failed", "err", err)
		}
	}()
	if cfg.AdminReady != nil {
		cfg.AdminReady(ln.Addr())
	}
	return f, nil
}

// close stops the listener and every connection to it.
func (f *adminFeed) close() error { return f.http.Close() }

// wake records a wake-up of the loop at now, by its clock, that ran ticks
// ticks. It makes no allocation.
func (f *adminFeed) wake(now time.Time, ticks int) {
	if ticks > 0 {
		f.a.Ticked(now)
	}
	f.a.SetPlayers(f.s.Net().PlayerCount())
	f.a.SetSpectators(f.s.Net().Spectators())
}

// observePlayers hands /metrics each seated player's round trip and loss
// at now, the session's time: the loop calls it once a second, so the
// histograms count player-seconds. A player not yet playing (its Welcome
// not yet answered) has no link to speak of and is left out.
func (f *adminFeed) observePlayers(now transport.Time) {
	f.players = f.s.Net().Players(f.players[:0], now)
	for _, p := range f.players {
		if p.Playing && !p.Spectator {
			f.a.ObservePlayer(p.RTT, p.Loss)
		}
	}
}

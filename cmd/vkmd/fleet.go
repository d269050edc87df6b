package main

import (
	"context"
	"log/slog"
	"net/netip"

	"vkm/host"
	"vkm/host/fleet"
	"vkm/host/project"
)

// joinFleet makes cfg register the server in the fleet directory at url
// once it listens, keep its seats up to date, and heartbeat until the
// returned function, which removes it, is called.
func joinFleet(ctx context.Context, url string, cfg *host.ServeConfig, p *project.Project, logger *slog.Logger) (func(), error) {
	id, err := host.ProjectIdentity(p)
	if err != nil {
		return nil, err
	}
	rdb, err := fleet.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	var reg *fleet.Registration
	ready := cfg.Ready
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
		s := fleet.Server{Addr: public.String(), Project: p.Name, Fingerprint: id.Fingerprint, Protocol: id.Protocol, Seats: p.Players}
		r, err := fleet.Register(ctx, rdb, s, fleet.Heartbeat, fleet.TTL)
		if err != nil {
			logger.Error("fleet: not registered", "err", err)
			return
		}
		reg = r
		logger.Info("fleet: registered", "addr", s.Addr, "fleet", url)
	}
	seated := cfg.Seated
	cfg.Seated = func(n int) {
		if seated != nil {
			seated(n)
		}
		if reg != nil {
			reg.SetPlayers(n)
		}
	}
	return func() {
		if reg != nil {
			if err := reg.Close(); err != nil {
				logger.Warn("fleet: leaving the directory", "err", err)
			}
		}
		rdb.Close()
	}, nil
}

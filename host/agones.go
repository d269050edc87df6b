//go:build !js

package host

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"vkm/host/agones"
	"vkm/host/figures"
	"vkm/host/game"
	"vkm/transport"
)

// Timings of a server's Agones link: tuning constants.
const (
	// agonesWait bounds the wait at start for the SDK server to describe
	// the GameServer: it may start after vkmd, but not a minute after.
	agonesWait = time.Minute
	// agonesShutdownWait bounds the wait at exit for Shutdown to land.
	agonesShutdownWait = 5 * time.Second
	// agonesPortName is the GameServer port vkmd takes for the players'
	// (when the GameServer has more than one).
	agonesPortName = "game"
)

// JoinAgones makes cfg speak for the server (vkmd --agones) to the Agones
// SDK server in its pod (at AGONES_SDK_HTTP_PORT on localhost): it reads the GameServer
// first, and without --public takes the address players reach (which
// their tokens name) from its status: the node's address and the port
// Agones gave it, so a Dynamic port works; then Ready once serving, Health on the serving loop's
// ticks, the players seated, the drain, and Shutdown once Serve has
// returned. It returns the function that asks Shutdown and ends the link;
// call it once Serve returns.
func JoinAgones(ctx context.Context, cfg *ServeConfig, logger *slog.Logger) (func(), error) {
	p := cfg.Project
	base, err := agones.Address()
	if err != nil {
		return nil, err
	}
	client := agones.NewClient(base)
	wctx, cancel := context.WithTimeout(ctx, agonesWait)
	g, err := client.WaitGameServer(wctx)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("agones: the SDK server at %s did not describe the GameServer: %v", base, err)
	}
	public := netip.AddrPort{}
	if len(cfg.Public) > 0 {
		public = cfg.Public[0]
	} else {
		if public, err = g.Public(ctx, agonesPortName); err != nil {
			return nil, fmt.Errorf("%v (or give the public address)", err)
		}
		if cfg.Key != nil { // the address the players' tokens name
			cfg.Public = []netip.AddrPort{public}
		}
		logger.Info("agones: players reach the server at the GameServer's address", "public", public.String(), "gameserver", g.ObjectMeta.Name)
	}
	id, err := ProjectIdentity(p)
	if err != nil {
		return nil, err
	}
	labels := [][2]string{{"vkm-project", labelValue(p.Name)}, {"vkm-protocol", strconv.Itoa(id.Protocol)}}
	if v := labelValue(id.Fingerprint); v == id.Fingerprint {
		labels = append(labels, [2]string{"vkm-fingerprint", v})
	}
	core := agones.NewCore(agones.Config{Capacity: p.Players, Labels: labels,
		Annotations: [][2]string{{"vkm-project", p.Name}, {"vkm-fingerprint", id.Fingerprint}, {"vkm-public", public.String()}}})
	core.Watched(time.Now(), agones.GameServer{State: g.Status.State})
	link := agones.Start(client, core, logger)

	ready := cfg.Ready
	cfg.Ready = func(addr netip.AddrPort) {
		if ready != nil {
			ready(addr)
		}
		link.Serving()
	}
	after := cfg.AfterTick
	cfg.AfterTick = func(g *game.Game) {
		if after != nil {
			after(g)
		}
		link.Beat()
	}
	roster := cfg.Roster
	var ids []string
	cfg.Roster = func(players []transport.PlayerInfo) {
		if roster != nil {
			roster(players)
		}
		ids = ids[:0]
		for _, pl := range players {
			ids = append(ids, playerID(pl))
		}
		link.Roster(ids)
	}
	cfg.Figures = append(cfg.Figures, agonesFigures(link)...)
	relayed := make(chan struct{})
	if stops := cfg.Drain; stops != nil {
		drains := make(chan struct{}, cap(stops)+1)
		cfg.Drain = drains
		go func() {
			for {
				select {
				case <-relayed:
					return
				case <-stops:
				}
				link.Draining()
				select {
				case drains <- struct{}{}:
				default:
				}
			}
		}()
	}
	return func() {
		close(relayed)
		link.Stop(agonesShutdownWait)
	}, nil
}

// playerID is a seated player's id in Agones' player tracking: the
// client id its connect token names, or, unsealed, its seat.
func playerID(p transport.PlayerInfo) string {
	if p.Authed && p.Client != 0 {
		return strconv.FormatUint(p.Client, 10)
	}
	return "seat-" + strconv.Itoa(int(p.Player))
}

// labelValue makes s a Kubernetes label value: at most 63 characters of
// letters, digits, '-', '_' and '.', beginning and ending with a letter or
// digit; others become '-'.
func labelValue(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '-'
		}
	}
	v := string(b)
	if len(v) > 63 {
		v = v[:63]
	}
	return strings.Trim(v, "-_.")
}

// agonesFigures are the link's figures in /metrics: the calls made to the
// SDK server and those that failed, by call.
func agonesFigures(l *agones.Link) []figures.Figure {
	kinds := []agones.Kind{agones.Ready, agones.Health, agones.Allocate, agones.Shutdown, agones.SetLabel, agones.SetAnnotation,
		agones.SetCapacity, agones.PlayerConnect, agones.PlayerDisconnect}
	each := func(read func(c *agones.Core, k agones.Kind) uint64) func(func(string, uint64)) {
		return func(fn func(string, uint64)) {
			l.Read(func(c *agones.Core) {
				for _, k := range kinds {
					fn(k.String(), read(c, k))
				}
			})
		}
	}
	return []figures.Figure{
		{Metric: "vkm_agones_calls_total", Help: "Calls made to the Agones SDK server, by call: ready, health, allocate, shutdown, label, annotation, capacity, player_connect, player_disconnect.",
			Label: "call", Uints: each((*agones.Core).Calls)},
		{Metric: "vkm_agones_errors_total", Help: "Calls to the Agones SDK server that failed, by call.",
			Label: "call", Uints: each((*agones.Core).Errors)},
	}
}

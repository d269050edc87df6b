package host

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"vkm/host/bot"
	"vkm/host/figures"
	"vkm/host/netio"
	"vkm/host/session"
	"vkm/replication"
	"vkm/transport"
	"vkm/transport/handshake"
	"vkm/transport/token"
)

// BotsConfig says how to run several bot clients in one process: the load
// generator behind `client --bots N`.
type BotsConfig struct {
	// Play is what every client plays: the project, the server to join
	// (empty: each plays offline), the duration, the link simulator. Its
	// Input and OnState are set per client; its Name, Seed and SimSeed are
	// the first client's, and client i gets Name + i + 1 (or "bot" + i + 1
	// when Name is empty), Seed + i and SimSeed + i. Given the game's Key,
	// client i mints its own token as client id i + 1.
	Play PlayConfig
	// Kind is the bot every client plays with (one of bot.Kinds).
	Kind string
	// Seed is the first client's bot seed; client i plays with Seed + i.
	Seed uint64
	// Count is how many clients run; at least 1.
	Count int
	// Lite runs lite clients (see below): each joins and plays its bot's
	// commands without simulating a world of its own. They need Connect.
	Lite bool
	// OnState, if set, is called when client i's session changes state,
	// as PlayConfig.OnState. Every client runs on its own goroutine, so
	// calls for different clients come concurrently.
	OnState func(i int, state, why string)
	// Join, if set, says where client i plays, asked on its own goroutine
	// before it starts: the server to connect to and the token to join it
	// with (a lobby's answer), given the client's name. It overrides
	// Play's Connect and Token.
	Join func(ctx context.Context, i int, name string) (connect string, tok *token.Token, err error)
}

// PlayBots runs cfg.Count bot clients at once, each with its own session,
// socket, world and bot, until ctx ends or the duration passes. The report
// has one entry per client, in order, and its Failed lists those whose Exit
// is not "ok"; a client that could not run at all has the state and exit
// "failed" and the reason in last_error, and its error is among those
// returned.
func PlayBots(ctx context.Context, cfg BotsConfig) (Report, error) {
	if err := cfg.Validate(); err != nil {
		return Report{}, err
	}
	p := cfg.Play.Project
	bots := make([]*bot.Bot, cfg.Count)
	for i := range bots {
		b, err := bot.New(cfg.Kind, cfg.Seed+uint64(i), len(p.Axes), len(p.Buttons))
		if err != nil {
			return Report{}, err
		}
		bots[i] = b
	}
	play := Play
	if cfg.Lite {
		// One load of the project gives every lite client what a join
		// compares and the schema its snapshots are read with.
		c, err := session.NewClient(session.ClientConfig{Project: p})
		if err != nil {
			return Report{}, err
		}
		hello, schema := session.Hello(c.Game()), c.Game().Schema()
		c.Close()
		play = func(ctx context.Context, pc PlayConfig) (ClientReport, error) {
			return playLite(ctx, pc, hello, schema)
		}
	}
	clients := make([]ClientReport, cfg.Count)
	errs := make([]error, cfg.Count)
	var wg sync.WaitGroup
	for i := range cfg.Count {
		pc := cfg.botPlay(i, bots[i])
		wg.Go(func() {
			if cfg.Join != nil {
				connect, tok, err := cfg.Join(ctx, i, pc.Name)
				if err != nil {
					r := ClientReport{}
					r.settle(err)
					errs[i] = fmt.Errorf("host: bot client %d: %w", i+1, err)
					clients[i] = r
					return
				}
				pc.Connect, pc.Token, pc.Key = connect, tok, nil
			}
			r, err := play(ctx, pc)
			r.settle(err)
			if err != nil {
				errs[i] = fmt.Errorf("host: bot client %d: %w", i+1, err)
			}
			clients[i] = r
		})
	}
	wg.Wait()
	return NewReport(clients...), errors.Join(errs...)
}

// botPlay is client i's PlayConfig.
func (cfg *BotsConfig) botPlay(i int, bot *bot.Bot) PlayConfig {
	pc := cfg.Play
	pc.Input = bot
	name := pc.Name
	if name == "" {
		name = "bot"
	}
	pc.Name = fmt.Sprintf("%s%d", name, i+1)
	// Bot i+1 (as its name numbers it) is client i+1 when it mints its
	// own token.
	pc.ClientID = uint64(i + 1)
	if pc.Key != nil {
		pc.Token = nil
	}
	pc.Seed += uint64(i)
	if pc.Sim != "" {
		pc.SimSeed += uint64(i)
	}
	pc.Logger = cfg.Play.logger().With("bot", i+1)
	pc.OnState = nil
	if cfg.OnState != nil {
		pc.OnState = func(state, why string) { cfg.OnState(i, state, why) }
	}
	return pc
}

// playLite joins cfg.Connect as a lite client (session.Lite) and plays
// until ctx ends or the duration passes.
func playLite(ctx context.Context, cfg PlayConfig, hello handshake.Hello, schema *replication.Schema) (ClientReport, error) {
	addr := cfg.serverAddr()
	tok, err := cfg.clientToken(addr)
	if err != nil {
		return ClientReport{}, err
	}
	sock, err := cfg.dialServer(ctx, addr)
	if err != nil {
		return ClientReport{}, err
	}
	if cfg.Sim != "" {
		sim, err := netio.Simulate(sock, cfg.Sim, cfg.SimSeed, false)
		if err != nil {
			sock.Close()
			return ClientReport{}, err
		}
		sock = sim
	}
	defer sock.Close()
	start := time.Now()
	now := func() transport.Time { return transport.Time(time.Since(start)) }
	l := session.NewLite(session.LiteConfig{Project: cfg.Project, Hello: hello, Schema: schema, Name: cfg.Name, Dev: cfg.Dev,
		Input: cfg.Input, OnState: cfg.OnState, Logger: cfg.logger(), Now: now(), Token: tok})
	flush := func() {
		for {
			b, ok := l.Net().NextDatagram()
			if !ok {
				return
			}
			sock.WriteTo(b, sock.LocalAddr())
		}
	}
	err = netio.Pump(ctx, cfg.Duration, sock,
		func(d netio.Datagram) { l.Receive(d.Bytes, now()) },
		func(elapsed time.Duration) time.Duration {
			wait := l.Step(elapsed, now())
			flush()
			return wait
		},
		func() {})
	rep := liteReport(l, liteFigures(l, cfg.Project.TickRate, start, now))
	if err == nil && l.Net().State() == transport.StatePlaying {
		l.Net().Leave(now())
		flush()
	}
	return rep, err
}

// liteReport is a lite client's report: its figures (liteFigures) and its
// session's state.
func liteReport(l *session.Lite, set *figures.Set) ClientReport {
	var vals figures.Values
	r := readReport(l.Net().State().String(), set, &vals, nil)
	r.readNet(l.Net())
	return r
}

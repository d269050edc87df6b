package host

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"vkm/host/bot"
	"vkm/host/game"
	"vkm/prediction"
	"vkm/replication"
	"vkm/transport"
	"vkm/transport/handshake"
)

// BotsConfig says how to run several bot clients in one process: the load
// generator behind `client --bots N`.
type BotsConfig struct {
	// Play is what every client plays: the project, the server to join
	// (empty: each plays offline), the duration, the link simulator. Its
	// Input and OnState are set per client; its Name, Seed and SimSeed are
	// the first client's, and client i gets Name + i + 1 (or "bot" + i + 1
	// when Name is empty), Seed + i and SimSeed + i.
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
		c, err := newClientSession(clientConfig{project: p})
		if err != nil {
			return Report{}, err
		}
		hello, schema := c.game.Hello(), c.game.Schema()
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

// lite is a bot client that plays without a world of its own: it joins,
// makes its bot's commands one a tick at the project's tick rate (paced by
// the server's low water as a full client is), sends them with the same
// redundancy, and reads each snapshot only for the confirmation and pacing
// it carries. To the server it is a player like any other; what it saves is
// the client's own simulation, so one machine can hold a crowd of them.
// It draws nothing, so its packets ask for no lag compensation, and it
// reads the server's messages only to acknowledge them (it takes no dev
// server's reloads).
type lite struct {
	cfg    PlayConfig
	schema *replication.Schema
	net    *transport.Client
	sock   socket
	start  time.Time
	clock  *game.Clock

	tick     uint32 // client ticks run
	nextSend transport.Time
	history  prediction.History
	pacer    prediction.Pacer
	packet   prediction.Packet
	cmdBuf   []byte
	payload  []byte
	rel      *transport.Reliable // the server's message channel, framed as a full client frames it
	snap     replication.Snapshot
	bad      int // snapshots that did not decode
}

func (l *lite) now() transport.Time { return transport.Time(time.Since(l.start)) }

// playLite joins cfg.Connect as a lite client and plays until ctx ends or
// the duration passes.
func playLite(ctx context.Context, cfg PlayConfig, hello handshake.Hello, schema *replication.Schema) (ClientReport, error) {
	sock, err := dial(cfg.Net, WithPort(cfg.Connect, cfg.Project.Port))
	if err != nil {
		return ClientReport{}, err
	}
	if cfg.Sim != "" {
		sim, err := simulate(sock, cfg.Sim, cfg.SimSeed, false)
		if err != nil {
			sock.Close()
			return ClientReport{}, err
		}
		sock = sim
	}
	defer sock.Close()
	l := &lite{cfg: cfg, schema: schema, sock: sock, start: time.Now(), clock: game.NewClock(cfg.Project.TickRate), rel: mustReliable()}
	hello.Name, hello.Dev = cfg.Name, cfg.Dev
	l.net = transport.NewClient(transport.ClientConfig{Hello: hello, Logger: cfg.logger()}, l.now())
	err = pump(ctx, cfg.Duration, sock,
		func(d datagram) {
			l.net.Receive(d.Bytes, l.now())
			l.events()
		},
		l.step,
		func() {})
	rep := l.report()
	if err == nil && l.net.State() == transport.StatePlaying {
		l.net.Leave(l.now())
		l.flush()
	}
	return rep, err
}

// step runs one wake-up: the session's timers, the ticks due, and the
// command packet when one is due. It returns how long to sleep.
func (l *lite) step(elapsed time.Duration) time.Duration {
	now := l.now()
	l.net.Poll(now)
	l.events()
	playing := l.net.State() == transport.StatePlaying
	if playing {
		l.clock.SetPace(l.pacer.Bend())
	}
	p := l.cfg.Project
	for range l.clock.Advance(elapsed) {
		var cmd prediction.Command
		if l.cfg.Input != nil {
			cmd = l.cfg.Input.Next()
		}
		l.tick++
		if playing {
			l.history.Add(cmd.Quantize(len(p.Axes), len(p.Buttons)), l.tick)
		}
	}
	if playing && now >= l.nextSend {
		l.history.Fill(&l.packet)
		l.cmdBuf = l.packet.Append(l.cmdBuf[:0], len(p.Axes), len(p.Buttons))
		if conn := l.net.Conn(); conn != nil {
			l.rel.Acknowledge(conn, now)
		}
		l.payload = framePayload(l.payload, l.rel, l.cmdBuf, now)
		if seq, err := l.net.Send(l.payload, now); err == nil {
			l.rel.Sent(seq)
		}
		l.nextSend = nextDue(l.nextSend, now, time.Second/CommandRate)
	}
	l.flush()
	d := l.clock.Until()
	if playing {
		d = min(d, time.Duration(l.nextSend-now))
	}
	if at, ok := l.net.NextDeadline(); ok {
		d = min(d, time.Duration(at-now))
	}
	return max(d, 0)
}

// events takes what the session reports: state changes for OnState, and
// snapshots for their confirmation and low water.
func (l *lite) events() {
	for {
		ev, ok := l.net.NextEvent()
		if !ok {
			return
		}
		switch ev.Kind {
		case transport.EventData:
			l.snapshot(ev.Payload)
		case transport.EventWelcome, transport.EventEnded:
			if l.cfg.OnState != nil {
				l.cfg.OnState(l.net.State().String(), l.net.LastError())
			}
		}
	}
}

func (l *lite) snapshot(payload []byte) {
	payload, err := unframePayload(payload, l.rel)
	if err != nil {
		l.bad++
		return
	}
	for {
		if _, ok := l.rel.Receive(); !ok {
			break
		}
	}
	refs := replication.Refs{Sequence: l.history.Newest(), ClientTick: l.tick}
	if err := l.snap.Decode(l.schema, payload, refs); err != nil {
		l.bad++
		// The server takes every snapshot delivered as read: the header
		// still gives the next one its references.
		_ = l.snap.DecodeHeader(payload, refs)
		return
	}
	if l.snap.HasCommands {
		l.history.Confirm(l.snap.Commands.Newest)
		var rtt time.Duration
		if conn := l.net.Conn(); conn != nil {
			rtt = conn.RTT()
		}
		l.pacer.Observe(l.snap.Commands.LowWater, rtt, l.cfg.Project.TickRate)
	}
}

func (l *lite) flush() {
	for {
		b, ok := l.net.NextDatagram()
		if !ok {
			return
		}
		l.sock.WriteTo(b, l.sock.LocalAddr())
	}
}

// report is what a full client reports, less what needs a world: no
// events, distance, corrections or interpolation.
func (l *lite) report() ClientReport {
	n := l.net
	r := ClientReport{
		State: n.State().String(), Ticks: l.tick, TickRate: l.cfg.Project.TickRate, Events: map[string]int{},
		Player: n.Player(), LastError: n.LastError(), BadSnapshots: l.bad,
		PacingLowWater: float64(l.pacer.LowWater()), PacingTarget: round1(l.pacer.Target()),
		TickSpeed: math.Round(l.clock.Pace()*1000) / 1000,
	}
	if ref, ok := n.Refusal(); ok {
		r.Refusal = ref.Reason.String()
	}
	if conn := n.Conn(); conn != nil {
		r.RTTms = round1(float64(conn.RTT()) / float64(time.Millisecond))
		r.LossPermille = round1(conn.Loss(l.now()) * 1000)
	}
	secs := math.Max(time.Since(l.start).Seconds(), 1e-3)
	st := n.Stats()
	r.BytesInPerS = round1(float64(st.BytesIn) / secs)
	r.BytesOutPerS = round1(float64(st.BytesOut) / secs)
	return r
}

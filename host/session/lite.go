package session

import (
	"log/slog"
	"time"
	"vkm/transport/token"

	"vkm/host/game"
	"vkm/host/project"
	"vkm/host/session/netmsg"
	"vkm/prediction"
	"vkm/replication"
	"vkm/transport"
	"vkm/transport/handshake"
)

// Lite is a bot client that plays without a world of its own: it joins,
// makes its input's commands one a tick at the project's tick rate (paced
// by the server's low water as a full client is), sends them with the same
// redundancy, and reads each snapshot only for the confirmation and pacing
// it carries. To the server it is a player like any other; what it saves is
// the client's own simulation, so one machine can hold a crowd of them.
// It draws nothing, so its packets ask for no lag compensation, and it
// reads the server's messages only to acknowledge them (it takes no dev
// server's reloads).
//
// Like Client it is sans-IO: the caller hands it datagrams and the time
// and sends what Net queues. It is not safe for concurrent use.
type Lite struct {
	project *project.Project
	input   game.Input
	onState func(state, why string)
	schema  *replication.Schema
	net     *transport.Client
	clock   *game.Clock

	tick     uint32 // client ticks run
	nextSend transport.Time
	history  prediction.History
	pacer    prediction.Pacer
	packet   prediction.Packet
	cmdBuf   []byte
	payload  []byte
	rel      *transport.Reliable // the server's message channel, framed as a full client frames it
	relay    netmsg.Relay        // scratch for the relay sections snapshots carry
	snap     replication.Snapshot
	bad      int // snapshots that did not decode
}

// LiteConfig says what a Lite plays.
type LiteConfig struct {
	Project *project.Project
	// Hello and Schema are what a full client of the project would hold
	// (game.Game.Hello and Schema): one load of the project serves a
	// crowd of lite clients.
	Hello  handshake.Hello
	Schema *replication.Schema
	// Name and Dev are as in ClientConfig.
	Name string
	Dev  bool
	// Input makes each tick's command; nil holds nothing.
	Input game.Input
	// OnState, Logger and Now are as in ClientConfig.
	OnState func(state, why string)
	Logger  *slog.Logger
	Now     transport.Time
	// Token is as in ClientConfig.
	Token *token.Token
}

// NewLite returns a lite client about to join.
func NewLite(cfg LiteConfig) *Lite {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	hello := cfg.Hello
	hello.Name, hello.Dev = cfg.Name, cfg.Dev
	l := &Lite{
		project: cfg.Project, input: cfg.Input, onState: cfg.OnState, schema: cfg.Schema,
		clock: game.NewClock(cfg.Project.TickRate), rel: mustReliable(),
		net: transport.NewClient(transport.ClientConfig{Hello: hello, Logger: cfg.Logger, Token: cfg.Token}, cfg.Now),
	}
	l.snap.TickRate = cfg.Project.TickRate
	return l
}

// Net is the connection core (see Client.Net).
func (l *Lite) Net() *transport.Client { return l.net }

// Receive hands the session one datagram from the server.
func (l *Lite) Receive(b []byte, now transport.Time) {
	l.net.Receive(b, now)
	l.events()
}

// Step runs one wake-up: the session's timers, the ticks elapsed time has
// made due, and the command packet when one is due. It returns how long
// the caller may wait before the next.
func (l *Lite) Step(elapsed time.Duration, now transport.Time) time.Duration {
	l.net.Poll(now)
	l.events()
	playing := l.net.State() == transport.StatePlaying
	if playing {
		l.clock.SetPace(l.pacer.Bend())
	}
	p := l.project
	for range l.clock.Advance(elapsed) {
		var cmd prediction.Command
		if l.input != nil {
			cmd = l.input.Next()
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
		l.payload = netmsg.AppendPayload(l.payload[:0], l.rel, nil, l.cmdBuf, now)
		if seq, err := l.net.Send(l.payload, now); err == nil {
			l.rel.Sent(seq)
		}
		l.nextSend = nextDue(l.nextSend, now, time.Second/CommandRate)
	}
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
func (l *Lite) events() {
	for {
		ev, ok := l.net.NextEvent()
		if !ok {
			return
		}
		switch ev.Kind {
		case transport.EventData:
			l.snapshot(ev.Payload)
		case transport.EventWelcome, transport.EventEnded:
			if l.onState != nil {
				l.onState(l.net.State().String(), l.net.LastError())
			}
		}
	}
}

func (l *Lite) snapshot(payload []byte) {
	// A lite client carries no other character, so it reads a relay
	// section only to find the snapshot after it.
	payload, err := netmsg.ParseServerPayload(payload, l.rel, &l.relay)
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
		l.pacer.Observe(l.snap.Commands.LowWater, rtt, l.project.TickRate)
	}
}

// LiteStats are a lite client's figures: ticks run, snapshots that did not
// decode, and its pacing (see ClientStats) with the pace its clock runs at.
type LiteStats struct {
	Ticks          uint32
	BadSnapshots   int
	PacingLowWater float64
	PacingTarget   float64
	TickSpeed      float64
}

// Stats returns the lite client's figures so far.
func (l *Lite) Stats() LiteStats {
	return LiteStats{Ticks: l.tick, BadSnapshots: l.bad, PacingLowWater: float64(l.pacer.LowWater()),
		PacingTarget: l.pacer.Target(), TickSpeed: l.clock.Pace()}
}

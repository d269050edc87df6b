package host

import (
	"context"
	"fmt"
	"math"
	"net"
	"strconv"
	"time"

	"vkm/transport"
)

// WithPort returns addr with the project's port added when it has none:
// "10.0.0.4" → "10.0.0.4:27960", "[::1]" → "[::1]:27960". Serving a project
// and joining it then agree with nothing typed.
func WithPort(addr string, port int) string {
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr
	}
	host := addr
	if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1]
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// refusedLogEvery is how often a refused or disconnected client says why:
// the world holds still, and a line a second keeps the reason in view
// without flooding the log.
const refusedLogEvery = time.Second

// client is a Game played as one client of a server.
type client struct {
	cfg     PlayConfig
	game    *Game
	session *transport.Client
	sock    socket
	start   time.Time
	tally   Tally
}

func (c *client) now() transport.Time { return transport.Time(time.Since(c.start)) }

// playConnected joins cfg.Connect and plays until ctx ends or the duration
// passes. A refused or dropped client holds its world still and keeps
// running (and saying why once a second) until then.
func playConnected(ctx context.Context, cfg PlayConfig) (ClientReport, error) {
	logger := cfg.logger()
	g, err := NewGame(GameConfig{Project: cfg.Project, Logger: logger, Seed: cfg.Seed, Role: Joining})
	if err != nil {
		return ClientReport{}, err
	}
	defer g.Close()
	addr := WithPort(cfg.Connect, cfg.Project.Port)
	sock, err := dialUDP(addr)
	if err != nil {
		return ClientReport{}, err
	}
	if cfg.Sim != "" {
		if sock, err = simulate(sock, cfg.Sim, cfg.SimSeed, false); err != nil {
			return ClientReport{}, err
		}
	}
	defer sock.Close()
	hello := g.Hello()
	hello.Name, hello.Dev = cfg.Name, cfg.Dev
	c := &client{cfg: cfg, game: g, sock: sock, start: time.Now()}
	c.session = transport.NewClient(transport.ClientConfig{Hello: hello, Logger: logger}, c.now())
	logger.Info("joining", "server", addr, "project", cfg.Project.Name)
	return c.run(ctx)
}

func (c *client) run(ctx context.Context) (ClientReport, error) {
	log := c.cfg.logger()
	last := c.start
	nextWhy := c.start
	timer := time.NewTimer(0)
	defer timer.Stop()
	var stop <-chan time.Time
	if c.cfg.Duration > 0 {
		t := time.NewTimer(c.cfg.Duration)
		defer t.Stop()
		stop = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return c.leave(), nil
		case <-stop:
			return c.leave(), nil
		case d, ok := <-c.sock.Incoming():
			if !ok {
				return c.report(), fmt.Errorf("host: the socket closed")
			}
			c.session.Receive(d.Bytes, c.now())
		case <-timer.C:
		}
		now := time.Now()
		c.session.Poll(c.now())
		c.events()
		c.game.Frame(now.Sub(last), c.cfg.Input, c.tally.Observe)
		last = now
		c.flush()
		if c.game.Disconnected() && !now.Before(nextWhy) {
			log.Warn("not playing", "state", c.session.State().String(), "why", c.game.LastError())
			nextWhy = now.Add(refusedLogEvery)
		}
		wait := c.game.Clock().Until()
		if at, ok := c.session.NextDeadline(); ok {
			wait = min(wait, time.Duration(at-c.now()))
		}
		timer.Reset(max(wait, 0))
	}
}

// events moves the game's role with the session.
func (c *client) events() {
	for {
		ev, ok := c.session.NextEvent()
		if !ok {
			return
		}
		switch ev.Kind {
		case transport.EventWelcome:
			c.game.SetRole(Client, "")
		case transport.EventEnded:
			c.game.SetRole(Disconnected, ev.Sentence)
		default:
			continue
		}
		if c.cfg.OnState != nil {
			c.cfg.OnState(c.session.State().String(), c.session.LastError())
		}
	}
}

func (c *client) flush() {
	for {
		b, ok := c.session.NextDatagram()
		if !ok {
			return
		}
		c.sock.WriteTo(b, c.sock.LocalAddr())
	}
}

// leave says goodbye if playing and returns the report.
func (c *client) leave() ClientReport {
	rep := c.report()
	if c.session.State() == transport.StatePlaying {
		c.session.Leave(c.now())
		c.flush()
	}
	return rep
}

func (c *client) report() ClientReport {
	r := c.tally.Report(c.game)
	r.State = c.session.State().String()
	r.Player = c.session.Player()
	r.LastError = c.session.LastError()
	if ref, ok := c.session.Refusal(); ok {
		r.Refusal = ref.Reason.String()
	}
	if conn := c.session.Conn(); conn != nil {
		r.RTTms = round1(float64(conn.RTT()) / float64(time.Millisecond))
		r.LossPermille = round1(conn.Loss(c.now()) * 1000)
	}
	secs := math.Max(time.Since(c.start).Seconds(), 1e-3)
	st := c.session.Stats()
	r.BytesInPerS = round1(float64(st.BytesIn) / secs)
	r.BytesOutPerS = round1(float64(st.BytesOut) / secs)
	return r
}

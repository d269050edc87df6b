package host

import (
	"context"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"time"

	"vkm/host/browser"
	"vkm/host/figures"
	"vkm/host/game"
	"vkm/host/netio"
	"vkm/host/session"
	"vkm/transport"
	"vkm/transport/memnet"
)

// withPort returns addr with the project's port added when it has none:
// "10.0.0.4" → "10.0.0.4:27960", "[::1]" → "[::1]:27960". Serving a project
// and joining it then agree with nothing typed.
func withPort(addr string, port int) string {
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr
	}
	host := addr
	if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1]
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// serverAddr is the server's UDP address: Connect with the project's port
// when it names none, or, joining over the web with no Connect, the web
// URL's host and the project's port (what a token the client mints names).
func (c *PlayConfig) serverAddr() string {
	if s, ok := relayedAddr(c.Connect); ok {
		return s
	}
	if c.Connect == "" && c.Web != "" {
		if u, err := url.Parse(c.Web); err == nil {
			return withPort(u.Hostname(), c.Project.Port)
		}
	}
	return withPort(c.Connect, c.Project.Port)
}

// dialServer opens the client's socket to the server at addr: through
// its web listener when Web is set, on Net or UDP otherwise.
func (c *PlayConfig) dialServer(ctx context.Context, addr string) (netio.Socket, error) {
	if c.Web != "" {
		return browser.Dial(ctx, c.Web)
	}
	if sock, ok, err := dialRelayed(ctx, c.Net, addr); ok {
		return sock, err
	}
	return netio.Dial(c.Net, addr)
}

// refusedLogEvery is how often a refused or disconnected client says why:
// the world holds still, and a line a second keeps the reason in view
// without flooding the log.
const refusedLogEvery = time.Second

// client runs a session.Client on a socket and the wall clock.
type client struct {
	cfg   PlayConfig
	c     *session.Client
	sock  netio.Socket
	start time.Time
	tally tally
	view  *browser.Viewer // nil without --view
	// figures are the client's, vals what was last read of them, and
	// stats the session's figures as the last read took them; args are
	// the status line's attributes.
	figures *figures.Set
	vals    figures.Values
	stats   session.ClientStats
	args    []any
	// guestsAsked says the guests were asked for, guestsSeen which local
	// numbers have been logged seated (guests.go).
	guestsAsked bool
	guestsSeen  uint16
	// timed, if set, hears how long each call into the session took:
	// a datagram received (a snapshot, and the replay it may start) or a
	// frame (ticks), and then the whole step (with sending and drawing).
	timed func(call browser.Call, took time.Duration)
}

func (cl *client) now() transport.Time { return transport.Time(time.Since(cl.start)) }

// playConnected joins cfg.Connect and plays until ctx ends or the duration
// passes. A refused or dropped client holds its world still and keeps
// running (and saying why once a second) until then.
func playConnected(ctx context.Context, cfg PlayConfig) (ClientReport, error) {
	logger := cfg.logger()
	cl := &client{cfg: cfg, start: time.Now()}
	addr := cfg.serverAddr()
	tok, err := cfg.clientToken(addr)
	if err != nil {
		return ClientReport{}, err
	}
	cl.c, err = session.NewClient(session.ClientConfig{Project: cfg.Project, Seed: cfg.Seed, Name: cfg.Name, Dev: cfg.Dev, Logger: logger, OnState: cfg.OnState, Now: cl.now(), Token: tok,
		Password: cfg.Password, Spectator: cfg.Spectate, Follow: cfg.Follow})
	if err != nil {
		return ClientReport{}, err
	}
	defer cl.c.Close()
	cl.figures = cl.newFigures()
	g := cl.c.Game()
	sock, err := cfg.dialServer(ctx, addr)
	if err != nil {
		return ClientReport{}, err
	}
	// A web dial may have waited out refusals for seconds: the join's
	// timeout counts from here.
	cl.c.BeginJoin(cl.now())
	profile, seed := cfg.Sim, cfg.SimSeed
	if profile == "" && cfg.View != "" {
		// The view's link sliders act on a simulator, which starts out
		// perfect: nothing changes until a slider moves.
		profile, seed = memnet.Perfect.Name, 1
	}
	var sim *netio.Sim
	if profile != "" {
		s, err := netio.Simulate(sock, profile, seed, false)
		if err != nil {
			sock.Close()
			return ClientReport{}, err
		}
		sock, sim = s, s
	}
	defer sock.Close()
	cl.sock = sock
	if cfg.View != "" {
		v, err := browser.StartViewer(ctx, cfg.View, g, browser.ViewerConfig{Sim: sim, Logger: cfg.Logger, OnListen: cfg.OnView, Guests: cfg.Guests})
		if err != nil {
			return ClientReport{}, err
		}
		defer v.Close()
		v.Watch(cl.c, cl.now)
		cl.view = v
		if cl.cfg.Input == nil {
			cl.cfg.Input = v
		}
	}
	logger.Info("joining", "server", addr, "web", cfg.Web, "project", cfg.Project.Name)
	return cl.run(ctx)
}

func (cl *client) run(ctx context.Context) (ClientReport, error) {
	log := cl.cfg.logger()
	nextWhy := cl.start
	// A client without a page ends when its session does: nobody is
	// there to read the reason, and a refused bot or script waiting for
	// its --duration would only hide the failure. With a page, the
	// player reads why on it, so the client stays until told to quit.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	err := netio.Pump(ctx, cl.cfg.Duration, cl.sock,
		func(d netio.Datagram) {
			t0 := time.Now()
			cl.c.Receive(d.Bytes, cl.now())
			if cl.timed != nil {
				cl.timed(browser.CallReceive, time.Since(t0))
			}
		},
		func(elapsed time.Duration) time.Duration {
			t0 := time.Now()
			cl.c.Frame(elapsed, cl.cfg.Input, cl.afterTick, cl.now())
			if cl.timed != nil {
				cl.timed(browser.CallFrame, time.Since(t0))
			}
			cl.seatGuests(log)
			cl.flush()
			until := cl.c.Until(cl.now())
			if cl.view != nil {
				cl.view.Publish()
				until = min(until, time.Second/browser.DrawRate)
			}
			if cl.timed != nil {
				cl.timed(browser.CallStep, time.Since(t0))
			}
			if now := time.Now(); cl.c.Game().Disconnected() && !now.Before(nextWhy) {
				log.Warn("not playing", "state", cl.c.Net().State().String(), "why", cl.c.Game().LastError())
				nextWhy = now.Add(refusedLogEvery)
			}
			if cl.view == nil && cl.c.Game().Disconnected() {
				stop()
			}
			return until
		},
		func() {
			cl.logGuests(log)
			cl.status(log)
			if cl.cfg.OnStatus != nil {
				cl.cfg.OnStatus(cl.report())
			}
		})
	if err != nil {
		return cl.report(), err
	}
	return cl.leave(), nil
}

// afterTick counts the tick for the report and hands it to the caller's
// hook.
func (cl *client) afterTick(g *game.Game) {
	cl.tally.Observe(g)
	if cl.cfg.AfterTick != nil {
		cl.cfg.AfterTick(g)
	}
}

func (cl *client) flush() {
	for {
		b, ok := cl.c.Net().NextDatagram()
		if !ok {
			return
		}
		cl.sock.WriteTo(b, cl.sock.LocalAddr())
	}
}

// leave says goodbye if playing and returns the report.
func (cl *client) leave() ClientReport {
	rep := cl.report()
	if cl.c.Net().State() == transport.StatePlaying {
		cl.c.Net().Leave(cl.now())
		cl.flush()
	}
	return rep
}

// report is the client's report now: its figures, its session's state
// and its latest corrections.
func (cl *client) report() ClientReport {
	n := cl.c.Net()
	r := readReport(n.State().String(), cl.figures, &cl.vals, cl.c.Game())
	r.readNet(n)
	if ended, why := cl.c.Ended(); ended && why != "" {
		// The session ended for a reason the server gave (a kick's).
		r.LastError = why
	}
	r.RecentCorrections = make([]CorrectionReport, 0, len(cl.stats.Recent))
	for _, x := range cl.stats.Recent {
		r.RecentCorrections = append(r.RecentCorrections, CorrectionReport{
			Tick: x.Tick, Entity: x.Entity.String(), What: x.What, Distance: correctionSize(x.Cause, x.Distance),
			Cause: x.Cause.String(), Touched: x.Touched,
		})
	}
	return r
}

// correctionSize is a correction's size as the report gives it: a pose's
// in millimetres, a component field's difference as it is.
func correctionSize(cause session.Cause, v float64) float64 {
	if cause == session.CauseComponent {
		return v
	}
	return round1(v * 1000)
}

// status logs the once-a-second line (at Info, so --log-level warn quiets
// it): the figures with a Status (tick, the link, the pacing...).
func (cl *client) status(log *slog.Logger) {
	if cl.c.Net().State() != transport.StatePlaying {
		return
	}
	cl.figures.Read(&cl.vals, figures.InStatus)
	cl.args = cl.vals.Attrs(cl.args[:0])
	log.Info("status", cl.args...)
}

// Package admin is a server's admin listener: an HTTP handler serving its
// Prometheus metrics (/metrics), whether its serving loop is alive
// (/healthz) and whether it takes players (/readyz), and the runtime's
// profiles (/debug/pprof/). See docs/operating.md, "The admin listener".
//
// The serving loop owns the session, which is not safe for concurrent
// use, so the loop hands this package what it knows: durations as it times
// them, its last tick and player count after each wake-up, and its figures
// (package figures) as it read them, now and then. Handlers read only what
// was handed over.
package admin

import (
	"context"
	"crypto/subtle"
	"fmt"
	"io"
	"net/http"
	"net/http/pprof"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"vkm/host/figures"
)

// Config says what an Admin reports on.
type Config struct {
	// Seats is how many players the server seats at most.
	Seats int
	// TickPeriod is the time between two ticks.
	TickPeriod time.Duration
	// Stall is how long the loop may run no tick before /healthz fails:
	// long enough that one tick made late by a busy machine does not
	// fail it, short enough that an orchestrator restarts a stuck server
	// soon. 0 means DefaultStall; it is never less than two TickPeriods.
	Stall time.Duration
	// Version is the build's version, /metrics's vkm_build_info's
	// version label; empty says "devel". Protocol is the protocol version
	// the server speaks, its protocol label.
	Version  string
	Protocol int
	// Now is the clock the health check reads, the serving loop's; nil
	// means time.Now.
	Now func() time.Time
	// Figures are the server's figures: /metrics serves those with a
	// Metric, as Update last handed them over. Figures added to the set
	// after New are not served. Nil means none.
	Figures *figures.Set
	// Token is the bearer token the POST endpoints (an operator's
	// moderation) require; empty refuses every POST with 401.
	Token string
	// Readiness, if set, is one more condition of /readyz: an error makes
	// the server not ready, and its text says why. Nil means none.
	Readiness func() error
	// Command runs a console line on the serving loop and returns its
	// answer (host's moderation: kick, ban, unban, mute, unmute, say,
	// players); nil refuses every POST.
	Command func(ctx context.Context, line string) (string, error)
}

// Admin holds what the serving loop has handed over and serves it. Make
// one with New. Its methods are safe for concurrent use: the loop calls the
// recording ones, the handlers read.
type Admin struct {
	cfg  Config
	reg  *prometheus.Registry
	tick prometheus.Histogram
	send prometheus.Histogram
	// ticks counts the ticks observed; it is kept apart from the tick
	// histogram's count so the name says what it is.
	ticks prometheus.Counter
	// rtt and loss are the seated players' round trips and losses, one
	// observation a player each time the loop hands them over.
	rtt  prometheus.Histogram
	loss prometheus.Histogram

	lastTick atomic.Int64 // the loop's clock at the last tick, Unix ns; 0: none yet
	players  atomic.Int64
	// spectators is how many watch (SetSpectators).
	spectators atomic.Int64
	closing    atomic.Bool

	// descs describe cfg.Figures' metrics, by their place in the set.
	descs []*prometheus.Desc

	mu      sync.Mutex
	figures figures.Values
}

// New returns an Admin with its own metrics registry: the Go runtime's and
// the process's collectors, the loop's timings and the server's figures.
func New(cfg Config) *Admin {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	a := &Admin{cfg: cfg, reg: prometheus.NewRegistry(), descs: describe(cfg.Figures)}
	a.tick = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "vkm_tick_duration_seconds",
		Help:    "Wall time one tick's simulation took: the commands taken for it, behaviors, controller, physics.",
		Buckets: durationBuckets,
	})
	a.send = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "vkm_send_round_duration_seconds",
		Help:    "Wall time one send round took: building it, a snapshot per player, polling the connections.",
		Buckets: durationBuckets,
	})
	a.ticks = prometheus.NewCounter(prometheus.CounterOpts{Name: "vkm_ticks_total", Help: "Ticks the server has run."})
	a.rtt = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "vkm_player_rtt_seconds",
		Help:    "Round trips of the seated players, one observation a player a second.",
		Buckets: rttBuckets,
	})
	a.loss = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "vkm_player_loss_ratio",
		Help:    "Datagram loss of the seated players (0..1, over their recent datagrams), one observation a player a second.",
		Buckets: lossBuckets,
	})
	version := cfg.Version
	if version == "" {
		version = "devel"
	}
	build := prometheus.NewGauge(prometheus.GaugeOpts{Name: "vkm_build_info", Help: "Always 1: the build's version, the protocol version it speaks and its Go toolchain, as labels.",
		ConstLabels: prometheus.Labels{"version": version, "protocol": strconv.Itoa(cfg.Protocol), "go": runtime.Version()}})
	build.Set(1)
	players := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "vkm_players", Help: "Players seated now."},
		func() float64 { return float64(a.players.Load()) })
	spectators := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "vkm_spectators", Help: "Spectators watching now: they hold no player seat."},
		func() float64 { return float64(a.spectators.Load()) })
	seats := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "vkm_player_seats", Help: "Players the server seats at most."},
		func() float64 { return float64(cfg.Seats) })
	a.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		a.tick, a.send, a.ticks, players, spectators, seats, (*collector)(a),
		a.rtt, a.loss, build,
	)
	return a
}

// durationBuckets are the histograms' upper bounds in seconds: 16 µs to
// about 0.5 s, doubling. A 128 Hz tick has 7.8 ms; the arena's ticks take
// tens of µs.
var durationBuckets = prometheus.ExponentialBuckets(16e-6, 2, 16)

// rttBuckets are the round-trip histogram's upper bounds in seconds: 5 ms
// to about 1.3 s, doubling. lossBuckets are the loss histogram's, as a
// ratio: none, then a tenth of a percent to a half.
var (
	rttBuckets  = prometheus.ExponentialBuckets(0.005, 2, 9)
	lossBuckets = []float64{0, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5}
)

// DefaultStall is Config.Stall's default: a second, some 64 ticks at
// 64 Hz, where a late tick on a loaded machine is tens of milliseconds.
const DefaultStall = time.Second

// ObservePlayer records one seated player's round trip and loss (0..1);
// a round trip of 0 (none measured yet) is left out. It makes no
// allocation.
func (a *Admin) ObservePlayer(rtt time.Duration, loss float64) {
	if rtt > 0 {
		a.rtt.Observe(rtt.Seconds())
	}
	a.loss.Observe(loss)
}

// ObserveTick records one tick's duration; it makes no allocation.
func (a *Admin) ObserveTick(d time.Duration) {
	a.tick.Observe(d.Seconds())
	a.ticks.Inc()
}

// ObserveSend records one send round's duration; it makes no allocation.
func (a *Admin) ObserveSend(d time.Duration) { a.send.Observe(d.Seconds()) }

// Ticked records that the loop ran a tick at at, by its clock.
func (a *Admin) Ticked(at time.Time) { a.lastTick.Store(at.UnixNano()) }

// SetPlayers records how many players are seated.
func (a *Admin) SetPlayers(n int) { a.players.Store(int64(n)) }

// SetSpectators records how many spectators watch.
func (a *Admin) SetSpectators(n int) { a.spectators.Store(int64(n)) }

// Closing records that the server is shutting down: it takes no more
// players.
func (a *Admin) Closing() { a.closing.Store(true) }

// Update hands over the server's figures as the loop read them
// (Config.Figures, read with figures.InMetrics): the collector reports a
// copy of v from now on. It makes no allocation once the copy has room.
func (a *Admin) Update(v *figures.Values) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.figures.CopyFrom(v)
}

// Handler serves /metrics, /healthz, /readyz and /debug/pprof/ on a mux of
// its own.
func (a *Admin) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(a.reg, promhttp.HandlerOpts{Registry: a.reg}))
	mux.HandleFunc("GET /healthz", a.healthz)
	mux.HandleFunc("GET /readyz", a.readyz)
	mux.HandleFunc("POST /{verb}", a.command)
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	return mux
}

// Health reports whether the loop ran a tick within the stall bound
// (Config.Stall) of now, and a line saying so.
func (a *Admin) Health(now time.Time) (bool, string) {
	last := a.lastTick.Load()
	if last == 0 {
		return false, "no tick has run yet"
	}
	since := now.Sub(time.Unix(0, last))
	limit := a.StallLimit()
	if since > limit {
		return false, fmt.Sprintf("stalled: no tick for %v (limit %v)", since.Round(time.Microsecond), limit)
	}
	return true, fmt.Sprintf("ok: last tick %v ago", since.Round(time.Microsecond))
}

// StallLimit is how long the loop may run no tick before Health fails:
// Config.Stall (DefaultStall if 0), and never less than two tick periods.
func (a *Admin) StallLimit() time.Duration {
	limit := a.cfg.Stall
	if limit <= 0 {
		limit = DefaultStall
	}
	return max(limit, 2*a.cfg.TickPeriod)
}

// Ready reports whether the server takes players: a seat is free, it is
// not shutting down and Config.Readiness has no objection; and a line
// saying so.
func (a *Admin) Ready() (bool, string) {
	if a.closing.Load() {
		return false, "shutting down"
	}
	if a.cfg.Readiness != nil {
		if err := a.cfg.Readiness(); err != nil {
			return false, "not ready: " + err.Error()
		}
	}
	n := a.players.Load()
	if n >= int64(a.cfg.Seats) {
		return false, fmt.Sprintf("full: %d of %d seats taken", n, a.cfg.Seats)
	}
	return true, fmt.Sprintf("ready: %d of %d seats taken", n, a.cfg.Seats)
}

func (a *Admin) healthz(w http.ResponseWriter, _ *http.Request) {
	ok, why := a.Health(a.cfg.Now())
	answer(w, ok, why)
}

func (a *Admin) readyz(w http.ResponseWriter, _ *http.Request) {
	ok, why := a.Ready()
	answer(w, ok, why)
}

// answer writes a check's verdict: 200 or 503, and its line.
func answer(w http.ResponseWriter, ok bool, why string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if !ok {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	fmt.Fprintln(w, why)
}

// commandVerbs are the console's verbs the POST endpoints take.
var commandVerbs = map[string]bool{"players": true, "kick": true, "ban": true, "unban": true, "mute": true, "unmute": true, "say": true}

// command serves POST /VERB with the form value args, the rest of the
// console line ("3 spamming" for POST /kick), behind the bearer token:
// 401 without it, 404 for a verb the console does not have.
func (a *Admin) command(w http.ResponseWriter, r *http.Request) {
	want := "Bearer " + a.cfg.Token
	if a.cfg.Token == "" || a.cfg.Command == nil || subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte(want)) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="vkm"`)
		http.Error(w, "a bearer token is required", http.StatusUnauthorized)
		return
	}
	verb := r.PathValue("verb")
	if !commandVerbs[verb] {
		http.NotFound(w, r)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	answer, err := a.cfg.Command(r.Context(), strings.TrimSpace(verb+" "+r.PostForm.Get("args")))
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, answer+"\n")
}

package host

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"vkm/host/admin"
	"vkm/host/session"
	"vkm/transport/handshake"
)

// adminFeed is the admin listener and what the serving loop feeds it: its
// timings as stats takes them, its last tick and players after each
// wake-up, and the session's cumulative figures once a second. The
// session is the loop's alone, so only the loop reads it; the listener's
// handlers read what was handed over.
type adminFeed struct {
	a    *admin.Admin
	http *http.Server
	s    *session.Server
	// fill is f.fillSnapshot and event f.countEvent, bound once so a
	// snapshot makes no closure; snap is the snapshot being filled.
	fill  func(*admin.Snapshot)
	event func(string, uint64)
	snap  *admin.Snapshot
	// seenErrs is how many of the game's script errors are counted.
	seenErrs int
	// web reads the web listener's counts (nil: the server has none).
	web func() *WebReport
}

// Limits of the admin listener's HTTP server. Its requests have no body,
// so a whole request is bounded as its headers are; a kept-alive
// connection outlives a scraper's interval (Prometheus's default is a
// minute) so each scrape need not connect anew. There is no write
// timeout: a CPU profile answers after the seconds it is asked for.
const (
	adminReadTimeout = 10 * time.Second
	adminIdleTimeout = 2 * time.Minute
)

// startAdmin listens on cfg.Admin and serves the admin handler there from
// a goroutine of its own, until close.
func startAdmin(cfg ServeConfig, s *session.Server) (*adminFeed, error) {
	ln, err := net.Listen("tcp", cfg.Admin)
	if err != nil {
		return nil, fmt.Errorf("host: the admin listener: %w", err)
	}
	rate := s.Game().TickRate()
	f := &adminFeed{s: s, a: admin.New(admin.Config{Seats: cfg.Project.Players, TickPeriod: time.Second / time.Duration(rate)})}
	f.fill, f.event = f.fillSnapshot, f.countEvent
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
}

// snapshot hands the listener the session's cumulative figures.
func (f *adminFeed) snapshot() { f.a.Update(f.fill) }

func (f *adminFeed) fillSnapshot(snap *admin.Snapshot) {
	if snap.Refusals == nil {
		snap.Refusals, snap.ScriptErrors, snap.Events = map[string]uint64{}, map[string]uint64{}, map[string]uint64{}
	}
	st := f.s.Net().Stats()
	snap.Joins, snap.Leaves = st.Joins, st.Leaves
	for r := handshake.ReasonFull; r.Known(); r++ {
		snap.Refusals[r.String()] = st.Refusals[r]
	}
	snap.PacketsIn, snap.PacketsOut, snap.BytesIn, snap.BytesOut = st.PacketsIn, st.PacketsOut, st.BytesIn, st.BytesOut
	t := f.s.Totals()
	snap.BadPackets, snap.Repeats, snap.Skips = t.BadPackets, t.Repeats, t.Skips
	g := f.s.Game()
	errs := g.ScriptErrors()
	for _, e := range errs[f.seenErrs:] {
		b := e.Behavior
		if b == "" {
			b = admin.NoBehavior
		}
		snap.ScriptErrors[b]++
	}
	f.seenErrs = len(errs)
	snap.Reloads = uint64(g.Reloads())
	if f.web != nil {
		snap.Web = &f.web().WebSnapshot
	}
	f.snap = snap
	f.s.EachEvent(f.event)
	f.snap = nil
}

func (f *adminFeed) countEvent(name string, n uint64) { f.snap.Events[name] = n }

package host

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"time"

	"vkm/host/browser"
	"vkm/host/figures"
	"vkm/host/game"
	"vkm/host/netio"
	"vkm/host/project"
	"vkm/host/session"
	"vkm/internal/entity"
	"vkm/transport"
	"vkm/transport/handshake"
	"vkm/transport/token"
)

// PlayConfig says how to play a project offline.
type PlayConfig struct {
	Project *project.Project
	// Password is the server's password, if it asks for one
	// (--password-file).
	Password []byte
	// Input drives the local player; nil holds nothing.
	Input game.Input
	// Duration ends the run after this much wall time; 0 runs until ctx ends.
	Duration time.Duration
	// Seed seeds math.random in behaviors.
	Seed   uint64
	Logger *slog.Logger

	// Connect joins the server at this address ("host" or "host:port"; no
	// port means the project's) instead of playing offline.
	Connect string
	// Net, if set, is the in-process network to join the server on
	// instead of UDP.
	Net *netio.Loopback
	// Web, if set, is the base URL of the server's web listener
	// ("http://host:port"): the client plays over a WebRTC data channel
	// through it instead of UDP, over its WebSocket fall-back with a
	// ws:// or wss:// URL, or over WebTransport with a wt:// one. Connect then only names the server in a token
	// the client mints (empty: the URL's host and the project's port).
	Web string
	// Name is the player's name a server is told; Dev says this client
	// takes a dev server's hot reloads.
	Name string
	Dev  bool
	// Spectate joins to watch rather than play (no seat, no entity);
	// Follow is the player a spectator follows from the start (0: the
	// whole level).
	Spectate bool
	Follow   uint16
	// Token is the connect token to join a server with a key (from the
	// game's backend, or `vkmd token`). Without one, Key, the game's key,
	// makes the client mint its own, for development: client id ClientID
	// (a random one when 0), naming the server it connects to. With
	// neither it joins only a server without a key.
	Token    *token.Token
	Key      *token.Key
	ClientID uint64
	// Sim runs the link through the simulator with this profile; SimSeed
	// must then be set.
	Sim     string
	SimSeed uint64
	// AfterTick, if set, is called on the playing goroutine after every
	// tick; OnStatus, once a second with the report so far (connected
	// only). For tools and tests that watch the game.
	AfterTick func(*game.Game)
	OnStatus  func(ClientReport)
	// View serves the game as a web page at this address ("127.0.0.1:8080")
	// while it plays; OnView, if set, hears the address it listens on.
	View   string
	OnView func(addr string)
	// OnState, if set, is called when a connected client's session changes
	// state ("playing", "refused", "disconnected"), with the reason for
	// the last two.
	OnState func(state, why string)
	// Guests is how many players besides its own a connected client
	// seats on its connection, 0 to 7 (host/guests.go; offline, none): with View, the
	// page drives them (its arrow-side keys, then its gamepads); else
	// GuestInputs[i-1], if there, drives guest i (1..Guests), and
	// without either they stand still.
	Guests      int
	GuestInputs []game.Input
}

func (c *PlayConfig) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Logger
}

// ClientReport is the JSON summary of one client's run. Its fields are kept
// as they are when later features add more. Its figures are the client's
// (host/figures.go), each under its key: its fields are filled from them,
// and a figure it has no field for is written beside them.
type ClientReport struct {
	State string `json:"state"`
	// Exit says how the run ended for this client: "ok" when it played
	// until its duration passed or it was stopped (offline, or seated on a
	// server); otherwise why it failed: "failed" (it could not run, or its
	// socket failed: LastError says why), "refused" (Refusal and LastError
	// say why), "disconnected" (LastError says why), "unseated" (the run
	// ended before the server answered its join) or "script_errors" (the
	// project's scripts raised Errors of them: ErrorMessages). `client`
	// exits 1 when any client's Exit is not "ok".
	Exit      string         `json:"exit"`
	Ticks     uint32         `json:"ticks"`
	TickRate  int            `json:"tick_rate"`
	Events    map[string]int `json:"events"`
	DistanceM float64        `json:"distance_m"`
	Errors    int            `json:"errors"`
	// ErrorMessages lists the script errors behind Errors, file:line first.
	ErrorMessages []string `json:"error_messages,omitempty"`

	// A connected client's session: its player number, why it was refused
	// or dropped, and its link.
	Player       uint16  `json:"player,omitempty"`
	Refusal      string  `json:"refusal,omitempty"`
	LastError    string  `json:"last_error,omitempty"`
	RTTms        float64 `json:"rtt_ms"`
	LossPermille float64 `json:"loss_permille"`
	BytesInPerS  float64 `json:"bytes_in_per_s"`
	BytesOutPerS float64 `json:"bytes_out_per_s"`

	// Pacing: the server's queue of this client's commands at its lowest
	// since the last snapshot, the cushion the client steers it toward,
	// and how many ticks a second of wall time buys (1 = real time).
	// Reconciliation: snapshots whose answer for this client's own entity
	// (and what it leased) differed by 3 mm or more from its prediction,
	// the ticks run again because of them, and the largest difference.
	Corrections     uint64  `json:"corrections"`
	ReplayedTicks   uint64  `json:"replayed_ticks"`
	MaxCorrectionMM float64 `json:"max_correction_mm"`
	// The corrections by cause (teleport, shove, component, lease,
	// other), the largest of each (millimetres of pose, or the field's
	// difference for a component), and the latest few. A teleport is drawn
	// where it lands: MaxCorrectionMM, the largest eased, leaves it out.
	CorrectionsByCause       map[string]uint64  `json:"corrections_by_cause"`
	LargestCorrectionByCause map[string]float64 `json:"largest_correction_by_cause"`
	RecentCorrections        []CorrectionReport `json:"recent_corrections"`
	// AdoptedSnapshots changed only fields of the own entity that the
	// server alone writes (a pickup's gift): taken without a replay, and
	// not counted as corrections.
	AdoptedSnapshots uint64 `json:"adopted_snapshots"`
	// UnpredictedJudged are judged ticks the client held no prediction
	// for (the first after the join): replayed from, not corrections.
	UnpredictedJudged uint64 `json:"unpredicted_judged"`
	// LeaseReplays are snapshots that had a leased body off its
	// prediction while the character's prediction stood: replayed from;
	// LeaseReplaysMoved moved the drawn character (by at most
	// MaxLeaseReplayMM) and are counted among the corrections too.
	LeaseReplays      uint64  `json:"lease_replays"`
	LeaseReplaysMoved uint64  `json:"lease_replays_moved"`
	MaxLeaseReplayMM  float64 `json:"max_lease_replay_mm"`
	// Revisions are differences put down to another player's input that
	// this client could not have had, small enough to ease out: replayed
	// like corrections, not counted among them; RevisionsMoved moved the
	// drawn character, MaxRevisionMM is the largest. ShoveProfile files
	// the corrections put down to a shove by what the client knew of the
	// other player's input (turned, jumped, unrelayed: no input it had
	// could tell; known: it had the input), and RevisionProfile files the
	// revisions the same way.
	Revisions       uint64            `json:"revisions"`
	RevisionsMoved  uint64            `json:"revisions_moved"`
	MaxRevisionMM   float64           `json:"max_revision_mm"`
	ShoveProfile    map[string]uint64 `json:"shove_profile"`
	RevisionProfile map[string]uint64 `json:"revision_profile"`
	// MaxEaseMM is the largest jump a replay made in where the character
	// stands now, teleports aside: what the picture eases across, where
	// MaxCorrectionMM is the difference at the judged tick.
	MaxEaseMM float64 `json:"max_ease_mm"`

	// BadSnapshots are snapshots that did not decode (dropped whole);
	// UnmadeEntities are entries naming an entity this end could not make.
	BadSnapshots   int `json:"bad_snapshots"`
	UnmadeEntities int `json:"unmade_entities"`

	PacingLowWater float64 `json:"pacing_low_water"`
	PacingTarget   float64 `json:"pacing_target"`
	TickSpeed      float64 `json:"tick_speed"`

	// Interpolation: how far behind the newest snapshot the entities this
	// client does not simulate are drawn, frames in which something moving
	// was drawn frozen (a pause the player could see), frames in which a
	// mover was drawn carried on past the newest pose the server gave it,
	// and how many ticks behind the server's present the client draws them
	// (what a shot is judged against).
	InterpDelayTicks   float64 `json:"interp_delay_ticks"`
	InterpStalls       uint64  `json:"interp_stalls"`
	InterpExtrapolated uint64  `json:"interp_extrapolated"`
	LookBehindTicks    float64 `json:"look_behind_ticks"`

	// MessagesOut are the project messages this client queued for the
	// server, MessagesIn those it took from it, MessagesDropped those it
	// could not queue.
	MessagesOut     uint64 `json:"messages_out,omitempty"`
	MessagesIn      uint64 `json:"messages_in,omitempty"`
	MessagesDropped uint64 `json:"messages_dropped,omitempty"`

	// OthersDistanceM is how far each other player's character (by the
	// player's name) moved as this client saw it, in metres, jumps of a
	// teleport left out: what one player sees of another.
	OthersDistanceM map[string]float64 `json:"others_distance_m,omitempty"`

	// other are the figures it has no field for, by key.
	other figures.Extra
}

// MarshalJSON writes the report's fields and then the figures it has no
// field for.
func (r ClientReport) MarshalJSON() ([]byte, error) {
	type fields ClientReport
	b, err := json.Marshal(fields(r))
	if err != nil {
		return nil, err
	}
	return r.other.AppendTo(b)
}

// readReport is a client's report in state: the report's figures of set,
// read into vals, and the script errors of g (nil: none) behind Errors.
func readReport(state string, set *figures.Set, vals *figures.Values, g *game.Game) ClientReport {
	set.Read(vals, figures.InReport)
	r := ClientReport{State: state}
	r.other = figures.Fill(&r, vals)
	if g != nil {
		for _, e := range g.ScriptErrors() {
			r.ErrorMessages = append(r.ErrorMessages, e.Error())
		}
	}
	return r
}

// readNet fills in a connected client's session: its player number, its
// last error and why it was refused.
func (r *ClientReport) readNet(n *transport.Client) {
	r.Player, r.LastError = n.Player(), n.LastError()
	if ref, ok := n.Refusal(); ok {
		r.Refusal = ref.Reason.String()
	}
}

// CorrectionReport is one of a client's latest corrections: the tick the
// server judged, the entity, "pose" or the component field that differed,
// how far (millimetres of pose, or the field's difference), its cause, and
// whether another player's character touched the entity in that tick.
// Distance is a field's difference for the cause "component".
type CorrectionReport struct {
	Tick     uint32  `json:"tick"`
	Entity   string  `json:"entity"`
	What     string  `json:"what"`
	Distance float64 `json:"distance"`
	Cause    string  `json:"cause"`
	Touched  bool    `json:"touched"`
}

// Report is the JSON document `client --report` writes. Build it with
// NewReport, which fills Failed.
type Report struct {
	Clients []ClientReport `json:"clients"`
	// Failed numbers the clients whose Exit is not "ok", from 1 in the
	// order of Clients (bot client i is named with the same number); it is
	// empty, not absent, when every client ran cleanly.
	Failed []int `json:"failed"`
}

// tally counts what a report says about a game as it runs: events by name
// and how far the local player's character travelled.
type tally struct {
	Events   map[string]int
	Distance float64
	lastX    float64
	lastY    float64
	seen     bool
	// others tracks the other players' characters by name.
	others map[string]*track
}

// track is how far one entity has moved, and where it was last seen.
type track struct {
	id       entity.ID
	distance float64
	x, y     float64
}

// Observe records one tick's outcome.
func (t *tally) Observe(g *game.Game) {
	if t.Events == nil {
		t.Events = map[string]int{}
	}
	for _, ev := range g.DrainEvents() {
		t.Events[ev.Name]++
	}
	own := g.Own()
	tr := g.Store().Transform(own)
	if tr == nil {
		t.seen = false
		return
	}
	if t.seen {
		if d := math.Hypot(tr.X-t.lastX, tr.Y-t.lastY); d < session.Teleport {
			t.Distance += d
		}
	}
	t.lastX, t.lastY, t.seen = tr.X, tr.Y, true
	t.observeOthers(g)
}

// observeOthers adds how far each other player's character moved.
func (t *tally) observeOthers(g *game.Game) {
	for _, p := range g.Players() {
		if p.Entity.IsNone() || p.Entity == g.Own() {
			continue
		}
		tr := g.Store().Transform(p.Entity)
		if tr == nil {
			continue
		}
		if t.others == nil {
			t.others = map[string]*track{}
		}
		k := t.others[p.Name]
		switch {
		case k == nil:
			t.others[p.Name] = &track{id: p.Entity, x: tr.X, y: tr.Y}
			continue
		case k.id != p.Entity: // a new character: start from where it is
			k.id = p.Entity
		default:
			if d := math.Hypot(tr.X-k.x, tr.Y-k.y); d < session.Teleport {
				k.distance += d
			}
		}
		k.x, k.y = tr.X, tr.Y
	}
}

// offlineState is an offline run's report state.
const offlineState = "offline"

// Play runs a project in real time until ctx ends or cfg.Duration has
// passed, sleeping between ticks, and returns its report: offline, or as a
// client of cfg.Connect.
//
// The report's Exit says how the run ended; when Play returns an error it
// is "failed", with the error in LastError.
func Play(ctx context.Context, cfg PlayConfig) (ClientReport, error) {
	rep, err := playOnce(ctx, cfg)
	rep.settle(err)
	return rep, err
}

func playOnce(ctx context.Context, cfg PlayConfig) (ClientReport, error) {
	if err := cfg.Validate(); err != nil {
		return ClientReport{}, err
	}
	if cfg.Connect != "" || cfg.Web != "" {
		return playConnected(ctx, cfg)
	}
	g, err := game.New(game.Config{Project: cfg.Project, Logger: cfg.Logger, Seed: cfg.Seed, Name: handshake.CleanName(cfg.Name)})
	if err != nil {
		return ClientReport{}, err
	}
	defer g.Close()
	in := cfg.Input
	var v *browser.Viewer
	if cfg.View != "" {
		if v, err = browser.StartViewer(ctx, cfg.View, g, browser.ViewerConfig{Logger: cfg.Logger, OnListen: cfg.OnView}); err != nil {
			return ClientReport{}, err
		}
		defer v.Close()
		if in == nil {
			in = v
		}
	}
	var seen tally
	var figs figures.Set
	figs.Add(seen.figures(g)...)
	var vals figures.Values
	report := func() ClientReport { return readReport(offlineState, &figs, &vals, g) }
	start := time.Now()
	last := start
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return report(), nil
		case <-timer.C:
		}
		now := time.Now()
		if cfg.Duration > 0 && now.Sub(start) >= cfg.Duration {
			// Run exactly the ticks the duration bought.
			now = start.Add(cfg.Duration)
			g.Frame(now.Sub(last), in, seen.Observe)
			return report(), nil
		}
		g.Frame(now.Sub(last), in, seen.Observe)
		last = now
		until := g.Clock().Until()
		if v != nil {
			v.Publish()
			until = min(until, time.Second/browser.DrawRate)
		}
		timer.Reset(until)
	}
}

package session

import (
	"log/slog"
	"time"
	"vkm/transport/token"

	"vkm/host/game"
	"vkm/host/project"
	"vkm/host/session/netmsg"
	"vkm/internal/entity"
	"vkm/physics"
	"vkm/prediction"
	"vkm/replication"
	"vkm/scripting"
	"vkm/transport"
)

// Client is a Game played as one client of a server over a
// transport.Client. Like Server it is sans-IO: the caller hands it
// datagrams and the time and sends what it queues.
type Client struct {
	log  *slog.Logger
	game *game.Game
	net  *transport.Client
	// onState, if set, hears each change of the session's state.
	onState func(state, why string)
	// nextSend is when the next packet to the server is due: 64 a second
	// by wall clock, at most one a frame. Its acknowledgements confirm the
	// snapshots, and the first one tells the server its Welcome arrived.
	nextSend transport.Time

	snap         replication.Snapshot
	badSnapshots int                // snapshots that did not decode (dropped whole)
	spawns       []entity.ID        // spawned roots waiting to be built, in arrival order
	placed       map[entity.ID]bool // waiting roots a snapshot has placed
	bare         map[entity.ID]bool // occupants a snapshot made here, not yet built
	unmade       int                // entries naming an entity this end could not make

	history prediction.History // the commands this player made, for the server and for replays
	pacer   prediction.Pacer
	packet  prediction.Packet
	payload []byte
	cmdBuf  []byte
	// rel is the reliable message channel from the server: a dev
	// server's script bundles, or its word that this client cannot take
	// them.
	rel   *transport.Reliable
	input recordingInput
	// msgs and msgValues are the project's messages' figures and
	// scratch (messages.go).
	msgs      messageCounts
	msgValues []float64
	// chat is the chat log, onChat hears each line (chat.go).
	chat   []ChatEntry
	onChat func(ChatEntry)
	kicked bool
	// voice is what the server last said of this player's voice slots,
	// voiceCount how many times it has said (voice.go).
	voice      netmsg.Voice
	voiceCount uint64
	// notices are a dev server's newest notices, noticeCount how many
	// it sent (reload.go).
	notices     []string
	noticeCount int
	// inspect is the entity a developer's inspector shows (inspect.go).
	inspect inspection

	rec    reconciler
	smooth prediction.Smoother

	island      []entity.ID
	heldScratch []heldBody
	lastWord    map[entity.ID]heldBody // the server's newest word on each leased body
	// partedLeases counts the leases ended because the body's prediction
	// parted from the server's word on it (dropParted).
	partedLeases uint64
	// others are the other characters, in slot order, carried forward
	// from their newest word for each tick predicted (see reckon).
	others []reckoned
	// relay is the intents the newest snapshot relayed (see relay.go).
	relay netmsg.Relay

	interp interpolation
	// drawnNewest is what this client drew when it made its newest
	// command: the drawn tick a command packet pairs with that command.
	drawnNewest float64
	now         transport.Time // the time of the call being served
	// dev says this client joined to take a dev server's reloads;
	// reloadAt is a reload waiting for its tick, and snapshots older than
	// schemaFrom (0: none) were written under a schema replaced since.
	dev        bool
	reloadAt   *netmsg.Bundle
	schemaFrom uint32
	reloads    int
	reloadTick uint32 // the tick the last reload took effect at
	// oldCodeBefore is the tick the last reload took effect at while a
	// replay may still reach back before it (0: none may).
	oldCodeBefore uint32
	// staleSchema counts snapshots dropped because they were written
	// under the schema a reload replaced.
	staleSchema int
	// ghost is the server's newest word on the own entity's pose.
	ghost    entity.Transform
	ghostSet bool

	// playing is set once the server welcomed this client, and ended once
	// the session is over (why says why: refused, dropped, broken);
	// neither while it is joining.
	playing, ended bool
	// watch is a spectator's side (watchclient.go).
	watch watching
	why   string

	// heardOf holds the entities the server's snapshots have told this
	// end of, so that the first word on each resets self:fresh there.
	heardOf map[entity.ID]bool

	// leases are the bodies the character is pushing, which this client
	// simulates too.
	leases prediction.Leases
	// roster is every seated player as the server last listed them, in
	// number order, with the round trips it last told; rosterBy names the
	// player of each listed entity. rosterNext, listed and rtts are
	// parsing's scratch.
	roster     []scripting.PlayerInfo
	rosterNext []scripting.PlayerInfo
	rosterBy   map[entity.ID]uint16
	listed     netmsg.Players
	rtts       netmsg.RoundTrips

	// guests are the players seated on this connection besides its own,
	// by local number (guests_client.go); guestsGone those whose seat
	// ended since Guests last reported; guestSec the newest snapshot's
	// guest section; guestCorrections the snapshots that corrected a
	// guest's character.
	guests           [netmsg.MaxGuests + 1]*localGuest
	guestsGone       []Guest
	guestSec         netmsg.GuestSection
	guestCorrections uint64
}

// recordingInput hands the game each tick's command as the wire will carry
// it, and records it in the history while playing, so the server runs
// exactly what this end predicted with.
type recordingInput struct {
	c  *Client
	in game.Input
}

func (r *recordingInput) Next() prediction.Command {
	var cmd prediction.Command
	if r.in != nil {
		cmd = r.in.Next()
	}
	g := r.c.game
	cmd = cmd.Quantize(len(g.Project().Axes), len(g.Project().Buttons))
	if r.c.playing {
		r.c.history.Add(cmd, g.Tick()+1)
		r.c.drawnNewest = r.c.drawnTime()
		r.c.rec.recordCommand(g.Tick()+1, cmd)
	}
	return cmd
}

// ClientConfig says what a Client plays and how it joins.
type ClientConfig struct {
	Project *project.Project
	// Seed seeds math.random in behaviors; every end uses the same.
	Seed uint64
	// Name is the player's name the server is told; Dev asks to take a dev
	// server's reloads.
	Name string
	Dev  bool
	// Logger receives the session's log lines; nil discards them.
	Logger *slog.Logger
	// OnState, if set, hears each change of the session's state
	// ("playing", "refused", "disconnected") and why.
	OnState func(state, why string)
	// OnChat, if set, hears each chat line the server sends (see ChatLog).
	OnChat func(ChatEntry)
	// Password is the server's password, if it asks for one.
	Password []byte
	// Now is the session's time at its start: its first Hello goes then.
	Now transport.Time
	// BudgetClock is the clock behaviors' calls are budgeted on
	// (scripting.Config.BudgetClock); nil is wall time.
	BudgetClock func() time.Duration
	// Token is the connect token to join a server with a key; nil joins
	// one without (transport.ClientConfig.Token).
	Token *token.Token
	// Spectator joins to watch: no seat, no entity (spectate.go); Follow
	// is the player it follows from the start (0: the whole level).
	Spectator bool
	Follow    uint16
}

// NewClient loads cfg.Project as a client about to join: a Game
// whose Authority is this session.
func NewClient(cfg ClientConfig) (*Client, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Client{
		dev: cfg.Dev,
		log: cfg.Logger, onState: cfg.OnState, onChat: cfg.OnChat, placed: map[entity.ID]bool{}, bare: map[entity.ID]bool{}, lastWord: map[entity.ID]heldBody{},
		rel: mustReliable(), rosterBy: map[entity.ID]uint16{},
	}
	g, err := game.New(game.Config{Project: cfg.Project, Logger: cfg.Logger, Seed: cfg.Seed, BudgetClock: cfg.BudgetClock,
		Authority: func(g *game.Game) game.Authority { c.game = g; return (*clientAuthority)(c) },
		Hooks:     (*clientHooks)(c)})
	if err != nil {
		return nil, err
	}
	hello := Hello(g)
	hello.Name, hello.Dev, hello.Spectator = cfg.Name, cfg.Dev, cfg.Spectator
	c.watch.spectator, c.watch.first = cfg.Spectator, cfg.Follow
	c.net = transport.NewClient(transport.ClientConfig{Hello: hello, Logger: cfg.Logger, Token: cfg.Token, Password: cfg.Password}, cfg.Now)
	c.interp = newInterpolation(g.TickRate())
	c.snap.TickRate = g.TickRate()
	return c, nil
}

// Close releases the session's game.
func (c *Client) Close() { c.game.Close() }

// clientAuthority is a client session as its Game's Authority. While
// joining it decides nothing; playing, it decides its own entity and what
// that entity leases, and its local command drives its own entity; once
// the session has ended it decides nothing again, and its own entity is
// still its own.
type clientAuthority Client

var _ game.Authority = (*clientAuthority)(nil)

func (a *clientAuthority) Simulates(id entity.ID, live uint32) bool {
	return a.playing && (id == a.game.Own() || a.leases.Leased(id, live) || (*Client)(a).guestOf(id) != nil)
}
func (a *clientAuthority) IsMine(id entity.ID) bool {
	return (a.playing || a.ended) && (id == a.game.Own() || (*Client)(a).guestOf(id) != nil)
}
func (a *clientAuthority) Command(id entity.ID) *prediction.Command {
	if a.playing && id == a.game.Own() {
		return a.game.Local()
	}
	if a.playing {
		if g := (*Client)(a).guestOf(id); g != nil {
			return &g.cur
		}
	}
	return nil
}
func (a *clientAuthority) RollTick(entity.ID) (uint32, bool) { return 0, false }
func (a *clientAuthority) Spawning() game.Spawning {
	if a.playing || a.ended {
		return game.SpawnRefused
	}
	return game.SpawnHere
}
func (a *clientAuthority) Lease(by, id entity.ID) bool {
	if !a.playing {
		return false
	}
	(*Client)(a).leaseNow(id)
	return true
}
func (a *clientAuthority) Told() bool                    { return a.playing }
func (a *clientAuthority) Rewind(_ entity.ID, fn func()) { fn() }
func (a *clientAuthority) Rewound() physics.Moved        { return nil }
func (a *clientAuthority) Ended() (bool, string)         { return a.ended, a.why }
func (a *clientAuthority) Role() scripting.Role          { return scripting.RoleClient }
func (a *clientAuthority) LocalPlayer() uint16           { return a.net.Player() }

// Player answers from the server's roster; the own entity is the local
// player's even before the roster naming it arrives.
func (a *clientAuthority) Player(id entity.ID) uint16 {
	if n, ok := a.rosterBy[id]; ok {
		return n
	}
	if !id.IsNone() && id == a.game.Own() {
		return a.net.Player()
	}
	if g := (*Client)(a).guestOf(id); g != nil {
		return g.Player
	}
	return 0
}
func (a *clientAuthority) Players(dst []scripting.PlayerInfo) []scripting.PlayerInfo {
	return append(dst, a.roster...)
}

// receive hands the session one datagram from the server.
func (c *Client) Receive(b []byte, now transport.Time) {
	c.now = now
	c.net.Receive(b, now)
	c.events()
}

// BeginJoin starts the join's wait over at now: for a client made before
// its link opened (a web dial that waited out a gateway's refusals), so
// that the join's timeout counts from its first Hello (transport's
// Client.Begin).
func (c *Client) BeginJoin(now transport.Time) { c.net.Begin(now) }

// frame runs one frame: the session's timers (Hellos while joining,
// keep-alives, the timeout), then the game's ticks and per-frame systems.
func (c *Client) Frame(elapsed time.Duration, in game.Input, afterTick func(*game.Game), now transport.Time) {
	c.now = now
	c.net.Poll(now)
	c.events()
	c.buildSpawns()
	c.takeWord()
	if c.playing {
		c.game.Clock().SetPace(c.pacer.Bend())
		c.interp.advance(elapsed, c.game.Simulates, c.game.Store().Alive)
	} else {
		c.pacer.Reset()
		c.game.Clock().SetPace(1)
	}
	c.smooth.Advance(elapsed.Seconds())
	c.input.c, c.input.in = c, in
	c.game.Frame(elapsed, &c.input, func(g *game.Game) {
		c.recordPrediction(g)
		if afterTick != nil {
			afterTick(g)
		}
	})
	if c.net.State() == transport.StatePlaying && now >= c.nextSend {
		c.sendCommands(now)
		c.nextSend = nextDue(c.nextSend, now, time.Second/CommandRate)
	}
}

// sendCommands sends the commands the server still needs: the newest it
// has not confirmed and any never sent.
func (c *Client) sendCommands(now transport.Time) {
	p := c.game.Project()
	c.history.Fill(&c.packet)
	c.packet.DrawnTick, c.packet.DrawnFrac = prediction.DrawnTick(c.drawnNewest)
	c.cmdBuf = c.packet.Append(c.cmdBuf[:0], len(p.Axes), len(p.Buttons))
	c.cmdBuf = c.appendGuestCommands(c.cmdBuf)
	if conn := c.net.Conn(); conn != nil {
		c.rel.Acknowledge(conn, now)
	}
	c.payload = netmsg.AppendPayload(c.payload[:0], c.rel, nil, c.cmdBuf, now)
	if seq, err := c.net.Send(c.payload, now); err == nil {
		c.rel.Sent(seq)
	}
}

// CommandRate is how many packets a second a client sends the server, by
// wall clock and at most one a frame.
const CommandRate = 64

// nextDue advances a rate's deadline by one interval; a frame that overran
// it by more than an interval sends once rather than the burst it owes.
func nextDue(due, now transport.Time, interval time.Duration) transport.Time {
	due += transport.Time(interval)
	if due <= now {
		due = now + transport.Time(interval)
	}
	return due
}

// events moves the game's role with the session.
func (c *Client) events() {
	for {
		ev, ok := c.net.NextEvent()
		if !ok {
			return
		}
		switch ev.Kind {
		case transport.EventWelcome:
			if c.playing {
				// The seat taken back after the link dropped, over a new
				// connection: the server's message channel starts over,
				// and its next snapshot tells this end the world afresh.
				c.rel = mustReliable()
				c.log.Info("rejoined the seat", "player", ev.Welcome.Player)
			}
			c.playing = true
			c.welcomed()
		case transport.EventResuming:
			c.log.Info("the server went quiet; rejoining the seat")
		case transport.EventEnded:
			c.stop(ev.Sentence)
		case transport.EventData:
			c.applySnapshot(ev.Payload)
			continue
		default:
			continue
		}
		if c.onState != nil {
			c.onState(c.net.State().String(), c.net.LastError())
		}
	}
}

// until is how long the caller may wait before the next frame: the next
// tick or the session's next deadline.
func (c *Client) Until(now transport.Time) time.Duration {
	d := c.game.Clock().Until()
	if c.net.State() == transport.StatePlaying {
		d = min(d, time.Duration(c.nextSend-now))
	}
	if at, ok := c.net.NextDeadline(); ok {
		d = min(d, time.Duration(at-now))
	}
	return max(d, 0)
}

// Game is the world this client plays.
func (c *Client) Game() *game.Game { return c.game }

// Net is the connection core: the session's state, its player number,
// why it ended, its link's figures and the datagrams waiting to go out.
func (c *Client) Net() *transport.Client { return c.net }

// Playing reports whether the server has seated this client and the
// session has not ended.
func (c *Client) Playing() bool { return c.playing }

// ClientStats are a client's prediction, pacing and interpolation
// figures since it started.
type ClientStats struct {
	// MessagesSent are the project's messages this client queued for the
	// server, MessagesIn those it took from it, MessagesDropped those
	// it could not queue (a full channel).
	MessagesSent, MessagesIn, MessagesDropped uint64
	// Snapshots taken, in order; Corrections are those whose answer for
	// what this client predicts differed (the own entity's position by
	// more than 3 mm, or any field of its components), ReplayedTicks the
	// ticks run again for them, MaxCorrection the largest eased one, in
	// metres: a teleport is drawn where it lands and is not counted there.
	Snapshots     uint64
	Corrections   uint64
	ReplayedTicks uint64
	MaxCorrection float64
	// ByCause splits Corrections by what they are put down to, indexed
	// by Cause; Recent is the latest RecentCorrections of them, oldest
	// first.
	ByCause [NumCauses]CauseFigures
	Recent  []Correction
	// Adopted counts snapshots that changed fields of the own entity's
	// components which only the server writes (what a pickup gave, which
	// this client does not simulate), taken without a replay: not
	// corrections, since no tick this client ran wrote them.
	Adopted uint64
	// Unpredicted counts judged ticks the client held no prediction for
	// (the first after its join, or after its character was made anew):
	// replayed from the server's answer like a correction, not counted as
	// one, since nothing it predicted was wrong.
	Unpredicted uint64
	// LeaseReplays counts snapshots whose word on a body this client
	// leases had it off its prediction while the own character's stood
	// (see leaseStrayed): replayed from. LeaseReplaysMoved moved the own
	// character as drawn, and are counted among the corrections too;
	// MaxLeaseReplay is the largest such jump, in metres.
	LeaseReplays      uint64
	LeaseReplaysMoved uint64
	MaxLeaseReplay    float64
	// Revisions are differences put down to another player's input that
	// the client could not have had, small enough to ease out (see
	// revise.go): replayed like corrections, not counted among them.
	// RevisionsMoved moved the own character as drawn; MaxRevision is
	// the largest, in metres. Profile files the corrections put down to
	// a shove by what the client knew of the other player's input,
	// indexed by Profile; RevisionProfile files the revisions so.
	Revisions       uint64
	RevisionsMoved  uint64
	MaxRevision     float64
	Profile         [NumProfiles]uint64
	RevisionProfile [NumProfiles]uint64
	// MaxEase is the largest jump, in metres, a replay made in where the
	// own character stands now (teleports aside): what the picture eases
	// across, where MaxCorrection is the difference at the judged tick.
	MaxEase float64
	// BadSnapshots did not decode; UnmadeEntities are entries naming an
	// entity this end could not make.
	BadSnapshots   int
	UnmadeEntities int
	// PacingLowWater and PacingTarget are the server's queue of this
	// client's commands at its lowest since the last snapshot, and the
	// cushion the client steers it toward.
	PacingLowWater float64
	PacingTarget   float64
	// InterpDelay is how many ticks behind the newest snapshot the
	// entities this client does not simulate are drawn; InterpStalls the
	// frames in which something moving was drawn frozen (the clock held,
	// or a mover the server had not mentioned for longer than it may be
	// carried on); InterpExtrapolated the frames in which a mover was
	// drawn carried on past its newest pose by its velocity; LookBehind
	// how many ticks behind the server's present they are drawn.
	InterpDelay        float64
	InterpStalls       uint64
	InterpExtrapolated uint64
	LookBehind         float64
	// Reloads counts the dev server's reloads taken, the last at
	// ReloadTick.
	Reloads    int
	ReloadTick uint32
}

// Stats returns the client's figures as of now.
func (c *Client) Stats(now transport.Time) ClientStats {
	return ClientStats{
		Snapshots: c.interp.snapshots, Corrections: c.rec.corrections, ReplayedTicks: c.rec.replayed,
		MaxCorrection: c.rec.maxCorrection, BadSnapshots: c.badSnapshots, UnmadeEntities: c.unmade,
		PacingLowWater: float64(c.pacer.LowWater()), PacingTarget: c.pacer.Target(),
		InterpDelay: c.interp.clock.Delay(), InterpStalls: c.interp.stalls,
		InterpExtrapolated: c.interp.extrapolated, LookBehind: c.lookBehind(now),
		Reloads: c.reloads, ReloadTick: c.reloadTick,
		ByCause: c.rec.byCause, Recent: c.rec.recentList(), Adopted: c.rec.adopted,
		Unpredicted: c.rec.unpredicted, LeaseReplays: c.rec.leaseReplays, LeaseReplaysMoved: c.rec.leaseMoved, MaxLeaseReplay: c.rec.leaseEase,
		Revisions: c.rec.rev.count, RevisionsMoved: c.rec.rev.moved, MaxRevision: c.rec.rev.largest, Profile: c.rec.rev.profile,
		RevisionProfile: c.rec.rev.byProfile, MaxEase: c.rec.maxEase,
		MessagesSent: c.msgs.Sent, MessagesIn: c.msgs.In, MessagesDropped: c.msgs.Dropped,
	}
}

// Ghost is the server's newest word on the own entity's pose, before this
// client's prediction is put back over it (false before there is one).
func (c *Client) Ghost() (entity.Transform, bool) { return c.ghost, c.ghostSet }

// EachLeased calls fn with every body the character is pushing, which
// this client simulates too, until fn returns false.
func (c *Client) EachLeased(fn func(entity.ID) bool) { c.leases.Each(c.game.Tick(), fn) }

// EachSample calls fn with the newest pose the server sent for each entity
// this client draws interpolated.
func (c *Client) EachSample(fn func(entity.ID, entity.Transform)) {
	for id, tr := range c.interp.tracks {
		if _, t, ok := tr.Newest(); ok {
			fn(id, t)
		}
	}
}

// clientHooks is a client session as its Game's Hooks: before each tick it
// applies a reload that has come due and carries the other players'
// characters on their relayed runs; after the tick's physics step it takes
// them back off.
type clientHooks Client

var _ game.Hooks = (*clientHooks)(nil)

func (h *clientHooks) BeforeTick() {
	(*Client)(h).beforeTick()
	(*Client)(h).guestCommands()
	(*Client)(h).reckon()
}
func (h *clientHooks) IntentsWritten() {}
func (h *clientHooks) AfterTick() {
	(*Client)(h).unreckon()
	(*Client)(h).sendMessages()
}

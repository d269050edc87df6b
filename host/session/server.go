package session

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net/netip"
	"time"

	"vkm/host/game"
	"vkm/host/project"
	"vkm/host/session/netmsg"
	"vkm/internal/entity"
	"vkm/physics"
	"vkm/prediction"
	"vkm/replication"
	"vkm/scripting"
	"vkm/transport"
	"vkm/transport/handshake"
)

// SnapshotRate is how many snapshots a second each player is sent, at most
// one a frame: the interpolation delay is counted in snapshots, so this is
// what decides how late other players look, and what it costs is bandwidth
// alone. A send round goes out with a tick (see roundDue), so it is paced
// by the fixed-step clock, which follows the wall clock.
const SnapshotRate = 64

// SettledEvery is how many send rounds a settled player goes between
// snapshots: while a round's snapshot would tell them nothing they have
// not confirmed (replication.WriteStats.News) and no reliable message
// waits, only every SettledEvery-th is sent, 16 a second at 64 rounds a
// second. Those still carry the command feedback, confirming commands and
// pacing the client, and the acknowledgements of its packets; a snapshot
// with news goes at once. At 64 a second a settled player's snapshots
// were 56 bytes each (22 of datagram and connection header), 3.6 KB/s
// for nothing new. Tuning constant.
const SettledEvery = 4

// QuietEvery is how many send rounds a player who has acknowledged nothing
// for transport.BackoffAfter goes between snapshots: 4 a second at 64
// rounds a second, enough to find the link again, and a sixteenth of the
// bandwidth a snapshot stream into a dead link would cost. Tuning
// constant.
const QuietEvery = 16

// Server is a Game served over a transport.Server. It is sans-IO:
// the caller hands it datagrams and the time and sends what it queues, so
// the real loop (Serve) drives it with UDP and the wall clock and tests
// drive it with the link simulator and a synthetic clock.
type Server struct {
	log   *slog.Logger
	game  *game.Game
	net   *transport.Server
	seats map[uint16]*seat
	// watchers are the spectators, by number (spectate.go).
	watchers map[uint16]*watcher
	joinErr  int
	// draining: the server is stopping and seats no one new (Drain).
	draining bool
	// gone sums the figures of the seats players have left.
	gone Totals
	// emitted counts the presentation events the game emitted, by name:
	// a server presents nothing, so it counts them and drops them.
	emitted map[string]uint64

	// roundTick is the tick the last look for a due round saw, and credit
	// counts toward the next round: SnapshotRate a tick run, a round due
	// at the tick rate (see roundDue). rounds counts the rounds sent.
	roundTick uint32
	credit    int
	rounds    uint64
	now       transport.Time // the time of the call being served

	round   *replication.Round
	playing []uint16 // sendRound's list of the players it writes to
	payload []byte
	snap    []byte
	// dev is a dev server's hot reload (nil otherwise).
	dev *devServer
	// afterTick, if set, runs after every tick advance runs.
	afterTick func(*game.Game)

	// driven maps a player's entity to the command driving it this tick,
	// and drivenTick to the client tick of that command: what keys its
	// random rolls (see Game.RollTick).
	driven     map[entity.ID]*prediction.Command
	drivenTick map[entity.ID]uint32
	lag        *lagComp

	// byEntity names the player each seat's entity belongs to.
	// rosterChanged says a player joined or left since the roster was last
	// sent; roundTripsAt is when the round trips are next due (see
	// tellPlayers); roster, listed and rtts are its scratch.
	byEntity      map[entity.ID]uint16
	rosterChanged bool
	roundTripsAt  transport.Time
	roster        []scripting.PlayerInfo
	listed        netmsg.Players
	rtts          netmsg.RoundTrips

	// relayNear, relayIntents and relayBuf are relayFor's scratch.
	relayNear    []relayCandidate
	relayIntents netmsg.Relay
	relayBuf     []byte
	// relayers are the characters a send round's relay sections choose
	// from (gatherRelayers), held while relayersHeld.
	relayers     []relayer
	relayersHeld bool

	// msgValues is takeMessage's scratch; floods counts the seats it
	// ended.
	msgValues []float64
	floods    uint64
	// chat is the chat's figures, motd the message of the day (chat.go).
	chat  ChatCounts
	motd  string
	kicks uint64

	// rec, if set, is told everything that enters the simulation
	// (tape.go); recCmds is recordTick's scratch. replay, if set, is the
	// Replayer this server is: it takes its commands from a recording.
	rec     Recorder
	recCmds []TickCommand
	replay  *Replayer

	// guests are the players seated on other players' connections, by
	// number (guests.go); guestStreams, guestSec and guestBuf are its
	// scratch.
	guests       map[uint16]*seat
	guestStreams []netmsg.GuestCommands
	guestSec     netmsg.GuestSection
	guestBuf     []byte
}

// seat is everything about one seated player, made when they join and
// dropped when they leave: never reused for the next player.
type seat struct {
	// rejoinLog limits the "player rejoined" lines of this seat.
	rejoinLog  lineLimit
	player     uint16
	name       string
	entity     entity.ID
	since      transport.Time
	peer       *replication.Peer // what this player has confirmed; made with their first snapshot
	queue      prediction.Queue  // the commands this player made, one a tick
	cmd        prediction.Command
	packet     prediction.Packet // scratch for parsing
	badPackets uint64
	// drawn is the server tick the client said it was drawing in the
	// packet whose newest command was drawnSeq (0: none said yet).
	drawn    float64
	drawnSeq uint32
	// rel is the reliable message channel to this player (script bundles
	// on a dev server).
	rel *transport.Reliable
	dev bool
	// bound and msgs are what the player sends of the project's messages
	// (messages.go).
	bound messageBound
	msgs  messageCounts
	// chatBound bounds the player's chat lines, toldTooFast is when they
	// may next be told they are over it, and muted drops them all
	// (chat.go).
	chatBound   messageBound
	toldTooFast transport.Time
	muted       bool
	// greet says the player has yet to be sent the message of the day.
	greet bool
	// inspect is the entity the player's developer inspects (inspect.go).
	inspect seatInspection
	// kickAt, once kicked, is when the seat ends at the latest
	// (moderate.go).
	kickAt transport.Time
	// held counts the send rounds in a row whose snapshot was held back
	// (see SettledEvery); lowWater is the queue's low water over them,
	// lowHeld whether it holds one.
	held     int
	lowWater uint8
	lowHeld  bool
	// away says the player's link is quiet and its seat is kept for a
	// rejoin (transport.EventHeld): nobody drives its entity until it is
	// heard again.
	away bool
	// moveX and moveY are the intent the behaviors gave the player's
	// character in the last tick, when intentOK (see relayFor).
	moveX, moveY float64
	intentOK     bool
	// recRTT is the round trip a recorder was last told, when recRTTOK;
	// in a replay, the round trip the scripts read.
	recRTT   time.Duration
	recRTTOK bool
	// ran is the tick the player's queue ran last (takeCommands), which
	// its guests follow. A guest's seat has an owner (the seat whose
	// connection it shares), its local number there and its follower;
	// an owner's seat lists its guests in local order (guests.go).
	ran    prediction.Tick
	owner  *seat
	local  uint8
	guests []*seat
	follow prediction.Follower
}

// ServerConfig says what a Server serves.
type ServerConfig struct {
	Project *project.Project
	// Changes, if set, makes this a dev server: it asks Changes for saved
	// scripts and prefabs every PollEvery and reloads them on every end,
	// and it tells joining clients it is a dev server.
	Changes Changes
	// Logger receives the session's log lines; nil discards them.
	Logger *slog.Logger
	// BudgetClock is the clock behaviors' calls are budgeted on
	// (scripting.Config.BudgetClock); nil is wall time.
	BudgetClock func() time.Duration
	// Auth, if set, admits only players with a connect token and seals
	// their connections (transport.ServerConfig.Auth).
	Auth *transport.Auth
	// MOTD is the message of the day, sent each player as they join, in
	// the chat from the server; empty means the project's motd.
	MOTD string
	// Gate, if set, is asked about each joining player before the join
	// handler: their address and, with Auth, their connect token's client
	// id. It returns false, with the sentence the player is shown, to keep
	// them out (an access list's ban); the refusal is reason 2 (declined)
	// with the sentence as its detail.
	Gate func(from netip.AddrPort, client uint64, hasClient bool) (why string, ok bool)
	// Password, if not empty, is the password every joining player must
	// know (transport.ServerConfig.Password).
	Password []byte
}

// Changes is what a dev server learns saves from: watch.Watcher over the
// project's files, or anything a test hands it. Poll reports, given the
// session's time, that a change has settled; Changed then gives every
// changed file's content by its path in the project folder.
type Changes interface {
	Poll(now time.Duration) bool
	Changed() (map[string][]byte, error)
}

// NewServer loads cfg.Project as its server: a Game whose Authority
// is this session.
func NewServer(cfg ServerConfig) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{log: cfg.Logger, seats: map[uint16]*seat{}, emitted: map[string]uint64{},
		driven: map[entity.ID]*prediction.Command{}, drivenTick: map[entity.ID]uint32{}, lag: newLagComp(),
		byEntity: map[entity.ID]uint16{}, guests: map[uint16]*seat{}}
	g, err := game.New(game.Config{Project: cfg.Project, Logger: cfg.Logger, BudgetClock: cfg.BudgetClock,
		Authority: func(g *game.Game) game.Authority { s.game = g; return (*serverAuthority)(s) },
		Hooks:     (*serverHooks)(s)})
	if err != nil {
		return nil, err
	}
	if !g.HasNetwork() {
		g.Close()
		p := g.Project()
		return nil, fmt.Errorf("session: %s has no vkmSetupNetwork in %s: a project that registers no network types and no join handler plays offline only, and vkmd serves networked projects", p.Name, p.EntryScript)
	}
	s.roundTick = g.Tick()
	s.motd = cfg.MOTD
	if s.motd == "" {
		s.motd = g.Project().MOTD
	}
	dev := cfg.Changes != nil
	if dev {
		s.dev = &devServer{watch: cfg.Changes}
	}
	hello := Hello(g)
	hello.Dev = dev
	s.net, err = transport.NewServer(transport.ServerConfig{
		Hello: hello, MaxPlayers: g.Project().Players, Logger: cfg.Logger,
		MaxSpectators: g.Project().Spectators, AdmitSpectator: s.admitSpectator,
		Admit: s.admit, Auth: cfg.Auth, RejoinWindow: g.Project().RejoinWindow, Gate: gate(cfg.Gate), Password: cfg.Password,
	})
	if err != nil {
		g.Close()
		return nil, err
	}
	return s, nil
}

// Close releases the session's game.
func (s *Server) Close() { s.game.Close() }

// serverAuthority is a server session as its Game's Authority: the server
// decides everything and owns nothing; each player's queued command drives
// their entity, and a shot is judged against what its player saw.
type serverAuthority Server

var _ game.Authority = (*serverAuthority)(nil)

func (a *serverAuthority) Simulates(entity.ID, uint32) bool { return true }
func (a *serverAuthority) IsMine(entity.ID) bool            { return false }
func (a *serverAuthority) Command(id entity.ID) *prediction.Command {
	return a.driven[id]
}
func (a *serverAuthority) RollTick(id entity.ID) (uint32, bool) {
	if len(a.drivenTick) == 0 {
		return 0, false
	}
	t, ok := a.drivenTick[a.game.Root(id)]
	return t, ok
}
func (a *serverAuthority) Spawning() game.Spawning     { return game.SpawnShared }
func (a *serverAuthority) Lease(by, id entity.ID) bool { return false }
func (a *serverAuthority) Told() bool                  { return false }
func (a *serverAuthority) Rewind(caller entity.ID, fn func()) {
	a.lag.rewind(a.game, a.driven, caller, fn)
}
func (a *serverAuthority) Rewound() physics.Moved     { return a.lag.rewound() }
func (a *serverAuthority) Ended() (bool, string)      { return false, "" }
func (a *serverAuthority) Player(id entity.ID) uint16 { return a.byEntity[id] }
func (a *serverAuthority) Players(dst []scripting.PlayerInfo) []scripting.PlayerInfo {
	start := len(dst)
	dst = (*Server)(a).players(dst)
	if a.rec != nil {
		(*Server)(a).recordRoundTrips(dst[start:])
	}
	return dst
}
func (a *serverAuthority) Role() scripting.Role { return scripting.RoleServer }
func (a *serverAuthority) LocalPlayer() uint16  { return 0 }

// admit is the transport's join hook: the project's join handler decides.
// A handler that returns nil declines the player (the match has started);
// one that fails is the game's fault, and the player is told so: a dev
// client of a dev server is told the error itself (file:line and
// message), anyone else a sentence, and the server logs the error whole.
// A server not run with --dev tells no client its scripts' errors, since
// any client can say it runs with --dev.
func (s *Server) admit(player uint16, name string, dev bool) (handshake.Refuse, bool) {
	if s.draining {
		return handshake.Refuse{Reason: handshake.ReasonShuttingDown}, false
	}
	id, err := s.game.Join(player)
	s.recordJoin(player, name, id, err)
	if err != nil {
		s.joinErr++
		s.log.Error("join handler failed", "player", player, "name", name, "err", err)
		r := handshake.Refuse{Reason: handshake.ReasonJoinFailed}
		if dev && s.dev != nil {
			r.Detail = joinErrorDetail(err)
		}
		return r, false
	}
	if id.IsNone() {
		return handshake.Refuse{Reason: handshake.ReasonDeclined}, false
	}
	st := &seat{player: player, name: name, entity: id, since: s.now, rel: seatReliable(), dev: dev, greet: true}
	s.seats[player] = st
	s.driven[id] = &st.cmd
	s.byEntity[id] = player
	s.rosterChanged = true
	return handshake.Refuse{}, true
}

// Drain starts the server's stopping: from now on it refuses every join
// with handshake.ReasonShuttingDown, and the game's drain handler
// (net.on_drain) runs once with secondsLeft, the time the players still
// seated have before they are sent away. The match plays on; the caller
// says goodbye (Net().Goodbye) when it is time. A drain handler that fails
// is logged and counted with the join errors, and the drain goes on.
func (s *Server) Drain(secondsLeft float64) {
	if s.draining {
		return
	}
	s.draining = true
	s.net.CloseJoins(handshake.Refuse{Reason: handshake.ReasonShuttingDown})
	if s.rec != nil {
		s.rec.Drained(secondsLeft)
	}
	if err := s.game.Drain(secondsLeft); err != nil {
		s.joinErr++
		s.log.Error("drain handler failed", "err", err)
	}
}

// Draining reports whether Drain has been called.
func (s *Server) Draining() bool { return s.draining }

// joinErrorDetail is what a dev client is told of its join handler's
// error: the script's file:line and the message, without the traceback.
func joinErrorDetail(err error) string {
	var se *scripting.ScriptError
	if errors.As(err, &se) {
		if se.Where != "" {
			return se.Where + ": " + se.Message
		}
		return se.Message
	}
	return err.Error()
}

// takeCommands gives every player's entity its command for the tick about
// to run: one from their queue, in the order they made them.
func (s *Server) takeCommands() {
	for _, st := range s.seats {
		if st.away {
			// Held for a rejoin: the entity runs on the empty command,
			// and the queue waits for the player's return.
			st.cmd = prediction.Command{}
			st.ran = prediction.Tick{Kind: prediction.Idle}
			delete(s.drivenTick, st.entity)
			continue
		}
		t := st.queue.Next()
		st.ran = t
		st.cmd = t.Command
		s.drivenTick[st.entity] = t.ClientTick
		if st.drawnSeq != 0 {
			s.lag.drawnAt[st.entity] = prediction.DrawnAt(st.drawn, st.drawnSeq, t.Seq)
		}
	}
	s.takeGuestCommands()
}

// command takes a player's command packet into their queue.
func (s *Server) command(st *seat, payload []byte) {
	p := s.game.Project()
	payload, err := netmsg.ParseClientPayload(payload, st.rel)
	if errors.Is(err, transport.ErrReliableProtocol) {
		// The channel's state is past repair: the connection ends.
		s.log.Warn("player broke the message channel", "player", st.player, "err", err)
		s.net.End(st.player, handshake.GoodbyeProtocol, s.now)
		s.events()
		return
	}
	if err != nil {
		st.badPackets++
		return
	}
	for {
		msg, ok := st.rel.Receive()
		if !ok {
			break
		}
		if !s.takeMessage(st, msg) {
			return
		}
	}
	payload = s.guestCommands(st, payload)
	if err := prediction.ParsePacket(payload, len(p.Axes), len(p.Buttons), &st.packet); err != nil {
		st.badPackets++
		return
	}
	st.queue.Push(&st.packet)
	// The drawn tick goes with the packet's newest command; a packet
	// overtaken by a newer one says nothing newer.
	if n := len(st.packet.Commands); n > 0 && st.packet.DrawnTick != 0 {
		if newest := st.packet.FirstSeq + uint32(n) - 1; newest > st.drawnSeq {
			st.drawn, st.drawnSeq = prediction.Drawn(st.packet.DrawnTick, st.packet.DrawnFrac), newest
		}
	}
}

// Receive hands the session one datagram from from.
func (s *Server) Receive(from netip.AddrPort, b []byte, now transport.Time) {
	s.now = now
	s.net.Receive(from, b, now)
	s.events()
}

// Advance runs the ticks elapsed time has made due, polls the
// connections and queues the snapshots that are due; it reports whether a
// send round went out. Its datagrams wait in Net().NextDatagram.
func (s *Server) Advance(elapsed time.Duration, now transport.Time) (sent bool) {
	s.now = now
	s.devPoll(now)
	s.game.Advance(elapsed, nil, s.afterTick)
	s.net.SetTick(s.game.Tick())
	s.net.Poll(now)
	s.events()
	s.tellPlayers(now)
	s.greetNew()
	s.endKicked(now)
	if !s.roundDue() {
		return false
	}
	s.sendRound(now)
	s.rounds++
	return true
}

// RunTicks runs the ticks elapsed time has made due, calling afterTick
// after each, and nothing else: a loop that times ticks and send rounds
// apart runs these first, then Advance(0, now) for the rest.
func (s *Server) RunTicks(elapsed time.Duration, now transport.Time, afterTick func(*game.Game)) int {
	s.now = now
	return s.game.Advance(elapsed, nil, afterTick)
}

// Game is the world this session serves.
func (s *Server) Game() *game.Game { return s.game }

// Net is the connection core: its players, refusals, figures and the
// datagrams waiting to go out.
func (s *Server) Net() *transport.Server { return s.net }

// consumeEvents counts and drops the events of the tick before: after
// every tick hook has had its look, nothing is kept past the next tick.
func (s *Server) consumeEvents() {
	s.game.ConsumeEvents(func(ev scripting.Event) { s.emitted[ev.Name]++ })
}

// Events counts the presentation events the game has emitted, by name, up
// to the last tick run.
func (s *Server) Events() map[string]uint64 {
	s.consumeEvents()
	return maps.Clone(s.emitted)
}

// Totals counts what every player's commands have come to since the
// server started, players who have left included.
type Totals struct {
	// BadPackets are command packets that did not parse.
	BadPackets uint64
	// Repeats are ticks a player's entity ran dry on its last command;
	// Skips are commands dropped to keep a queue shallow.
	Repeats, Skips uint64
	// Messages are the project's messages taken from players (In), sent
	// to them (Sent), and dropped either way (Dropped); Floods are seats
	// ended for sending over their bound for MessageFloodSeconds.
	Messages messageCounts
	Floods   uint64
	// Chat is the chat's figures.
	Chat ChatCounts
}

func (t *Totals) add(st *seat) {
	q := st.queue.Stats()
	t.BadPackets += st.badPackets
	t.Repeats += q.Repeats
	t.Skips += q.Skips
	t.Messages.In += st.msgs.In
	t.Messages.Sent += st.msgs.Sent
	t.Messages.Dropped += st.msgs.Dropped
}

// Totals sums the command figures of every player seated now and every
// one gone. It makes no allocation.
func (s *Server) Totals() Totals {
	t := s.gone
	for _, st := range s.seats {
		t.add(st)
	}
	t.Floods, t.Chat = s.floods, s.chat
	return t
}

// EachEvent calls fn with each presentation event name the game has
// emitted up to the last tick run and how many times; unlike Events it
// makes no copy.
func (s *Server) EachEvent(fn func(name string, n uint64)) {
	s.consumeEvents()
	for name, n := range s.emitted {
		fn(name, n)
	}
}

// JoinErrors counts the joins the project's join handler failed on.
func (s *Server) JoinErrors() int { return s.joinErr }

// roundDue reports whether a send round goes with the ticks run since it
// last looked: every tick at 64 Hz, every other one at 128 Hz, 64 of every
// 100 at 100 Hz. A round between ticks would describe the world the last
// one already did, and waking for it apart from the ticks, at a rate that
// aliases with theirs, was a third of a 128 Hz server's wake-ups. The
// credit holds at most one round owed, so ticks run in a burst to catch up
// send one round, not a burst of them.
func (s *Server) roundDue() bool {
	tick, rate := s.game.Tick(), s.game.TickRate()
	ran := int(tick - s.roundTick)
	s.roundTick = tick
	s.credit = min(s.credit+ran*SnapshotRate, 2*rate-1)
	if s.credit < rate {
		return false
	}
	s.credit -= rate
	return true
}

// events handles what the transport reports: a player who leaves takes
// their entity with them.
func (s *Server) events() {
	for {
		ev, ok := s.net.NextEvent()
		if !ok {
			return
		}
		switch ev.Kind {
		case transport.EventJoined:
			s.log.Info("player joined", "player", ev.Player, "name", ev.Name, "addr", ev.Addr.String(), "dev", ev.Dev, "spectator", ev.Spectator)
		case transport.EventData:
			if st, ok := s.seats[ev.Player]; ok {
				s.command(st, ev.Payload)
			} else if w, ok := s.watchers[ev.Player]; ok {
				s.watch(w, ev.Payload)
			}
		case transport.EventHeld:
			if st, ok := s.seats[ev.Player]; ok {
				s.log.Info("player's link is quiet; the seat is kept for a rejoin", "player", ev.Player)
				st.away = true
			}
		case transport.EventRejoined:
			if st, ok := s.seats[ev.Player]; ok {
				if held, ok := st.rejoinLog.allow(s.now); ok {
					s.log.Info("player rejoined", "player", ev.Player, "addr", ev.Addr.String(), "held_back", held)
				}
				s.rejoined(st)
			} else if w, ok := s.watchers[ev.Player]; ok {
				s.rejoined(&w.seat) // a spectator's new connection: told afresh
			}
		case transport.EventResumed:
			if st, ok := s.seats[ev.Player]; ok {
				s.log.Info("player is back", "player", ev.Player)
				st.away = false
			}
		case transport.EventLeft:
			s.log.Info("player left", "player", ev.Player, "reason", ev.Reason.String())
			if st, ok := s.seats[ev.Player]; ok {
				s.leave(st)
			} else {
				s.unwatch(ev.Player)
			}
		}
	}
}

// rejoinLogEvery is the least time between two "player rejoined" lines of
// one seat: a link that keeps dropping says so every few seconds, with the
// count of the lines held back, rather than once a rejoin.
const rejoinLogEvery = 5 * time.Second

// lineLimit lets a log line through at most once every rejoinLogEvery,
// counting the ones it held back.
type lineLimit struct {
	last   transport.Time
	logged bool
	held   int
}

// allow reports whether a line may be written at now and, if so, how many
// were held back since the last.
func (l *lineLimit) allow(now transport.Time) (held int, ok bool) {
	if l.logged && now.Sub(l.last) < rejoinLogEvery {
		l.held++
		return 0, false
	}
	held = l.held
	l.last, l.logged, l.held = now, true, 0
	return held, true
}

// rejoined starts a held seat's player over on the new connection its
// client took the seat back with: what went over the old one (the
// snapshots' baselines, the message channel) is unknown to the new one, so
// the next snapshot is written as to a player who has seen nothing and the
// roster goes again. The command queue stays: the client numbers its
// commands on, across the rejoin.
func (s *Server) rejoined(st *seat) {
	st.peer = nil
	st.rel = seatReliable()
	st.held, st.lowHeld = 0, false
	st.drawn, st.drawnSeq = 0, 0
	s.rosterChanged = true
}

// leave is a seated player leaving, whyever they left: the game's leave
// handler runs with their entity still alive and still theirs (net.players
// lists them, self:player names them), then the entity is destroyed unless
// the handler kept it, and the seat is gone. It is the one place a leave
// happens. A player whose link dropped leaves only when the project's
// rejoinWindow has passed (transport.ServerConfig.RejoinWindow); until then
// its seat is held, and its client may take it back.
func (s *Server) leave(st *seat) {
	s.leaveGuests(st)
	s.runLeave(st)
	delete(s.seats, st.player)
}

// runLeave is what every leave does, a connection's player's or a guest's:
// the recording is told, the game's leave handler runs, and the server
// forgets the player's entity.
func (s *Server) runLeave(st *seat) {
	if s.rec != nil {
		s.rec.Left(st.player)
	}
	kept, err := s.game.Leave(st.player, st.entity)
	if err != nil {
		s.log.Error("leave handler failed; the player's entity is destroyed", "player", st.player, "err", err)
	}
	if kept {
		s.log.Info("the leave handler kept the player's entity", "player", st.player, "entity", st.entity.String())
	}
	s.gone.add(st)
	delete(s.driven, st.entity)
	delete(s.drivenTick, st.entity)
	delete(s.byEntity, st.entity)
	s.lag.forget(st.entity)
	s.rosterChanged = true
}

// Until is how long the caller may wait before calling advance again: to
// the next tick that brings a send round, or the next connection deadline.
//
// A tick without a round (every other one at 128 Hz) is seen by no one
// until the round after it, so it waits and runs just before that one's
// tick: the snapshot says the same and goes out at the same time, a server
// wakes half as often, and a command that arrives in between is in time
// for the tick that waited rather than late for it. The queue's low water,
// which paces the clients, is read at the tick that runs last, when it is
// what it was before.
func (s *Server) Until(now transport.Time) time.Duration {
	return s.until(now, s.ticksToRound())
}

// UntilTick is how long the caller may wait before the next tick, whether
// or not it brings a send round, or the next connection deadline: for a
// loop whose ticks take long enough that running one beside the next would
// hold that round's snapshots back by as much.
func (s *Server) UntilTick(now transport.Time) time.Duration {
	return s.until(now, 1)
}

func (s *Server) until(now transport.Time, ticks int) time.Duration {
	d := s.game.Clock().UntilTicks(ticks)
	if at, ok := s.net.NextDeadline(); ok {
		d = min(d, time.Duration(at-now))
	}
	return max(d, 0)
}

// ticksToRound is how many ticks from now the next send round goes with
// (1 when every tick has one), by the credit roundDue keeps.
func (s *Server) ticksToRound() int {
	rate := s.game.TickRate()
	credit := min(s.credit+int(s.game.Tick()-s.roundTick)*SnapshotRate, 2*rate-1)
	if credit >= rate {
		return 1
	}
	return (rate - credit + SnapshotRate - 1) / SnapshotRate
}

// Peers reports each seated player's link, rates over the time they have
// been seated.
func (s *Server) Peers(now transport.Time) []PeerReport {
	out := []PeerReport{}
	for _, p := range s.net.Players(nil, now) {
		since := transport.Time(0)
		if st, ok := s.seats[p.Player]; ok {
			since = st.since
		}
		secs := math.Max(time.Duration(now-since).Seconds(), 1e-3)
		var q prediction.QueueStats
		var bad uint64
		if st, ok := s.seats[p.Player]; ok {
			q, bad = st.queue.Stats(), st.badPackets
		}
		out = append(out, PeerReport{
			Player: p.Player, Name: p.Name, Repeats: q.Repeats, Skips: q.Skips, BadPackets: bad,
			RTTms:        round1(float64(p.RTT) / float64(time.Millisecond)),
			LossPermille: round1(p.Loss * 1000),
			BytesInPerS:  round1(float64(p.BytesIn) / secs),
			BytesOutPerS: round1(float64(p.BytesOut) / secs),
		})
		if conn := s.net.Conn(p.Player); conn != nil {
			out[len(out)-1].SnapshotsPerS = round1(float64(conn.Stats().PacketsSent) / secs)
		}
	}
	return out
}

// PeerReport is one seated player's link, as a server's report gives it.
type PeerReport struct {
	Player       uint16  `json:"player"`
	Name         string  `json:"name,omitempty"`
	RTTms        float64 `json:"rtt_ms"`
	LossPermille float64 `json:"loss_permille"`
	BytesInPerS  float64 `json:"bytes_in_per_s"`
	BytesOutPerS float64 `json:"bytes_out_per_s"`
	// SnapshotsPerS is the datagrams a second sealed for this player, which
	// are its snapshots (a keep-alive goes only when no snapshot does).
	SnapshotsPerS float64 `json:"snapshots_per_s"`
	// Repeats are ticks run dry on this player's last command; Skips are
	// commands dropped to keep their queue shallow.
	Repeats uint64 `json:"repeats"`
	Skips   uint64 `json:"skips"`
	// BadPackets are command packets from this player that did not parse.
	BadPackets uint64 `json:"bad_packets"`
}

// round1 rounds f to one decimal place, as reports give rates.
func round1(f float64) float64 { return math.Round(f*10) / 10 }

// serverHooks is a server session as its Game's Hooks: before each tick it
// hears what the transport reported, applies a reload scheduled for the
// tick (dev) and takes every player's command; after the tick's behaviors
// it keeps the intents to relay (IntentsWritten, relay.go); after its
// physics step it records every player's pose for lag compensation.
type serverHooks Server

var _ game.Hooks = (*serverHooks)(nil)

func (h *serverHooks) BeforeTick() {
	s := (*Server)(h)
	s.consumeEvents()
	if s.replay != nil {
		s.replay.beforeTick()
		return
	}
	reload := s.applyScheduledReload()
	s.takeCommands()
	if s.rec != nil {
		s.recordTick(reload)
	}
}
func (h *serverHooks) AfterTick() {
	h.lag.record(h.game, h.driven)
	(*Server)(h).sendMessages()
	if h.rec != nil {
		h.rec.AfterTick(h.game)
	}
}

package session

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"vkm/host/game"
	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/scripting"
	"vkm/transport/handshake"
)

// A server's match is its inputs: the simulation is exact, so what entered
// it tick by tick, in order, plays it again to the same bits. A Recorder is
// told each input as the server takes it (Server.Record); a
// Replayer is a server with no network that is handed them again. Both see
// the same calls of the Game, so a recording replays through the very code
// (the server's Authority and Hooks, its lag compensation) that ran it.

// Recorder is told, in the order they happen, everything that enters a
// server's simulation: the join handler's runs, leaves, the drain, the
// project's messages and chat lines the server handed its scripts, the
// round trips its scripts read through net.players(), and, for every
// tick, the reload applied at its top and each seated player's command.
// What the server sends is not its business: it all follows from these.
//
// A Recorder is called on the goroutine that runs the server; the slices
// and maps it is handed are the server's and are valid for the call only.
type Recorder interface {
	// Joined: the join handler ran for player, named name, before the
	// next tick, and gave entity (None: declined) or failed.
	Joined(player uint16, name string, id entity.ID, failed bool)
	// Left: player left (the leave handler ran and the seat is gone).
	Left(player uint16)
	// Drained: the drain handler ran with secondsLeft.
	Drained(secondsLeft float64)
	// Message: player's message (its number and its body as the wire
	// carries it) was handed to the scripts.
	Message(player uint16, number uint16, body []byte)
	// Chat: the chat handler was asked about text, typed by player.
	Chat(player uint16, text string)
	// RoundTrip: the scripts read net.players() with rtt as player's
	// round trip, which it was not when last told.
	RoundTrip(player uint16, rtt time.Duration)
	// Tick: tick is about to run its behaviors, with reload applied at
	// its top (nil: none) and cmds, one per seated player in number
	// order, driving them.
	Tick(tick uint32, reload map[string][]byte, cmds []TickCommand)
	// AfterTick: the tick's physics step has run.
	AfterTick(g *game.Game)
}

// Record tells r everything that enters the simulation from now on. A
// recording plays from a world that has run no tick: Record is refused
// once one has run, and on a Replayer.
func (s *Server) Record(r Recorder) error {
	if s.game.Tick() != 0 || s.replay != nil || len(s.seats) != 0 {
		return errors.New("session: a match is recorded from its start, before its first tick and first player")
	}
	s.rec = r
	return nil
}

// TickCommand is what drives one seated player's entity in one tick.
type TickCommand struct {
	Player  uint16
	Command prediction.Command
	// Away: the seat is held for a rejoin and its entity runs on the
	// empty command; ClientTick is then meaningless.
	Away bool
	// ClientTick is the client's tick of the command, which keys the
	// entity's random rolls.
	ClientTick uint32
	// Drawn and DrawnAt: the server tick the player was drawing when they
	// made the command (lag compensation), when the server holds one.
	Drawn   bool
	DrawnAt float64
}

// recordJoin tells the recorder a join handler ran.
func (s *Server) recordJoin(player uint16, name string, id entity.ID, err error) {
	if s.rec != nil {
		s.rec.Joined(player, name, id, err != nil)
	}
}

// recordTick hands the recorder the tick about to run: the reload applied
// at its top and every seated player's command, in number order.
func (s *Server) recordTick(reload map[string][]byte) {
	s.recCmds = s.recCmds[:0]
	for _, st := range s.seats {
		c := TickCommand{Player: st.player, Command: st.cmd, Away: st.away}
		if !st.away {
			c.ClientTick = s.drivenTick[st.entity]
		}
		c.DrawnAt, c.Drawn = s.lag.drawnAt[st.entity]
		s.recCmds = append(s.recCmds, c)
	}
	// A guest is recorded as a player of its own: a replay seats it as
	// one, with no connection to share.
	for _, gs := range s.guests {
		c := TickCommand{Player: gs.player, Command: gs.cmd, Away: gs.owner.away}
		c.ClientTick = s.drivenTick[gs.entity] // 0 while away, as a seat's
		c.DrawnAt, c.Drawn = s.lag.drawnAt[gs.entity]
		s.recCmds = append(s.recCmds, c)
	}
	slices.SortFunc(s.recCmds, func(a, b TickCommand) int { return int(a.Player) - int(b.Player) })
	s.rec.Tick(s.game.Tick(), reload, s.recCmds)
}

// recordRoundTrips tells the recorder the round trips the scripts are
// about to read that it was not told yet.
func (s *Server) recordRoundTrips(list []scripting.PlayerInfo) {
	for _, p := range list {
		st := s.seats[p.Number]
		if st == nil {
			st = s.guests[p.Number]
		}
		if st == nil || st.recRTTOK && st.recRTT == p.RTT {
			continue
		}
		st.recRTT, st.recRTTOK = p.RTT, true
		s.rec.RoundTrip(p.Number, p.RTT)
	}
}

// Replayer is a server with no network, handed a recorded match's inputs
// in the order they entered it (Recorder's calls): its Game plays the
// match again through the server's own Authority and Hooks. A seat it
// makes has no connection; its round trip is what it was told.
//
// It is not safe for concurrent use.
type Replayer struct {
	s *Server
	// next is the tick Tick runs: its reload and commands.
	reload map[string][]byte
	cmds   []TickCommand
}

// NewReplayer loads cfg.Project as a server to replay a match on. Only
// Project, Logger and BudgetClock of cfg are used.
func NewReplayer(cfg ServerConfig) (*Replayer, error) {
	s, err := NewServer(ServerConfig{Project: cfg.Project, Logger: cfg.Logger, BudgetClock: cfg.BudgetClock})
	if err != nil {
		return nil, err
	}
	r := &Replayer{s: s}
	s.replay = r
	return r, nil
}

// Close releases the replay's game.
func (r *Replayer) Close() { r.s.Close() }

// Game is the world being replayed.
func (r *Replayer) Game() *game.Game { return r.s.game }

// Join runs the join handler for player, named name, as the server did,
// and seats them if it gave an entity: it returns that entity, or the
// handler's error.
func (r *Replayer) Join(player uint16, name string) (entity.ID, error) {
	if _, ok := r.s.seats[player]; ok {
		return entity.None, fmt.Errorf("session: replay: player %d joins while seated", player)
	}
	refuse, ok := r.s.admit(player, name, false)
	if !ok {
		if refuse.Reason == handshake.ReasonJoinFailed {
			return entity.None, errJoinFailed
		}
		return entity.None, nil
	}
	return r.s.seats[player].entity, nil
}

// errJoinFailed is Join's error when the join handler failed.
var errJoinFailed = errors.New("session: replay: the join handler failed")

// Leave is player leaving: it reports whether they were seated.
func (r *Replayer) Leave(player uint16) bool {
	st := r.s.seats[player]
	if st == nil {
		return false
	}
	r.s.leave(st)
	return true
}

// Drain runs the drain handler with secondsLeft, as Server.Drain does.
func (r *Replayer) Drain(secondsLeft float64) { r.s.Drain(secondsLeft) }

// Message hands the scripts player's message, its body as the wire
// carries it; a body the schema does not read is an error.
func (r *Replayer) Message(player uint16, number uint16, body []byte) error {
	s := r.s
	var err error
	s.msgValues, err = s.game.Schema().ParseMessageBody(int(number), body, s.msgValues)
	if err != nil {
		return err
	}
	s.game.PostMessage(player, int(number), s.msgValues)
	return nil
}

// Chat asks the chat handler about text, typed by player.
func (r *Replayer) Chat(player uint16, text string) {
	if _, _, _, err := r.s.game.Chat(player, text); err != nil {
		r.s.log.Warn("chat handler failed", "player", player, "err", err)
	}
}

// RoundTrip sets player's round trip, as net.players() reads it.
func (r *Replayer) RoundTrip(player uint16, rtt time.Duration) bool {
	st := r.s.seats[player]
	if st == nil {
		return false
	}
	st.recRTT, st.recRTTOK = rtt, true
	return true
}

// Seated reports the seated players in number order, appended to dst.
func (r *Replayer) Seated(dst []uint16) []uint16 {
	start := len(dst)
	for p := range r.s.seats {
		dst = append(dst, p)
	}
	slices.Sort(dst[start:])
	return dst
}

// Tick runs one tick: reload (nil: none) is applied at its top, as a dev
// server applies a scheduled one, then cmds drive the seated players, one
// each. A command for a player not seated is an error, and nothing runs.
func (r *Replayer) Tick(reload map[string][]byte, cmds []TickCommand) error {
	for _, c := range cmds {
		if _, ok := r.s.seats[c.Player]; !ok {
			return fmt.Errorf("session: replay: a command for player %d, who is not seated", c.Player)
		}
	}
	if len(cmds) != len(r.s.seats) {
		return fmt.Errorf("session: replay: %d commands for %d seated players", len(cmds), len(r.s.seats))
	}
	r.reload, r.cmds = reload, cmds
	r.s.game.RunTick()
	r.reload, r.cmds = nil, nil
	return nil
}

// beforeTick is the server's BeforeTick in a replay: the recorded reload,
// then the recorded commands, where a server takes its own.
func (r *Replayer) beforeTick() {
	s := r.s
	if r.reload != nil {
		s.reload(r.reload)
	}
	for i := range r.cmds {
		c := &r.cmds[i]
		st := s.seats[c.Player]
		st.cmd = c.Command
		st.away = c.Away
		if c.Away {
			delete(s.drivenTick, st.entity)
		} else {
			s.drivenTick[st.entity] = c.ClientTick
		}
		if c.Drawn {
			s.lag.drawnAt[st.entity] = c.DrawnAt
		} else {
			delete(s.lag.drawnAt, st.entity)
		}
	}
}

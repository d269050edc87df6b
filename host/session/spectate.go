package session

import (
	"errors"
	"slices"

	"vkm/host/session/netmsg"
	"vkm/internal/entity"
	"vkm/scripting"
	"vkm/transport"
	"vkm/transport/handshake"
)

// A spectator joins with the Hello's spectator flag: the transport counts
// it against the project's spectators, apart from its players, and the
// session gives it no seat in the game. No join handler runs, it drives no
// entity, it is in neither net.players() nor a recording; it is sent
// snapshots as a player is, looking from the entity of the player it
// follows (replication.Peer.SetFocus) or at the whole level, and the roster.
// It says whom it follows with a follow message (netmsg.Follow).

// watcher is one spectator: a seat with no entity (its reliable channel
// and snapshot baseline) and the player it follows.
type watcher struct {
	seat
	follows uint16
}

// admitSpectator is the transport's hook for a spectator's join.
func (s *Server) admitSpectator(player uint16, name string) (handshake.Refuse, bool) {
	if s.draining {
		return handshake.Refuse{Reason: handshake.ReasonShuttingDown}, false
	}
	if s.watchers == nil {
		s.watchers = map[uint16]*watcher{}
	}
	w := &watcher{seat: seat{player: player, name: name, since: s.now, rel: seatReliable()}}
	s.watchers[player] = w
	// The roster goes to everyone when it changes; a newcomer is sent it
	// by the next round.
	s.rosterChanged = true
	return handshake.Refuse{}, true
}

// watch takes one packet from a spectator: its messages (a follow, chat
// is not a spectator's) and the acknowledgements the payload carries. The
// commands it carries drive nothing.
func (s *Server) watch(w *watcher, payload []byte) {
	_, err := netmsg.ParseClientPayload(payload, w.rel)
	if errors.Is(err, transport.ErrReliableProtocol) {
		s.log.Warn("spectator broke the message channel", "player", w.player, "err", err)
		s.net.End(w.player, handshake.GoodbyeProtocol, s.now)
		s.events()
		return
	}
	if err != nil {
		w.badPackets++
		return
	}
	for {
		msg, ok := w.rel.Receive()
		if !ok {
			return
		}
		if netmsg.KindOf(msg) != netmsg.KindFollow {
			continue
		}
		if f, err := netmsg.ParseFollow(msg); err == nil {
			w.follows = f.Player
		} else {
			w.badPackets++
		}
	}
}

// kickSpectator ends a spectator's connection at once (Goodbye reason 4,
// kicked): it has no seat and nothing of the match to lose. It reports
// whether player was a spectator.
func (s *Server) kickSpectator(player uint16, sentence string) bool {
	w := s.watchers[player]
	if w == nil {
		return false
	}
	s.kicks++
	s.log.Warn("spectator kicked", "player", player, "name", w.name, "why", sentence)
	s.net.End(player, handshake.GoodbyeKicked, s.now)
	s.events()
	return true
}

// unwatch drops a spectator who left.
func (s *Server) unwatch(player uint16) bool {
	if _, ok := s.watchers[player]; !ok {
		return false
	}
	delete(s.watchers, player)
	return true
}

// focus is the entity spectator w's snapshots look from: its followed
// player's, while that player is seated and has one.
func (s *Server) focus(w *watcher) entity.ID {
	if st := s.seats[w.follows]; st != nil {
		return st.entity
	}
	return entity.None
}

// sendSeat returns who a round writes to for a connection: a seated
// player's seat and own entity, or a spectator's seat with no own entity,
// its peer looking from what it follows (sendRound sets its focus).
func (s *Server) sendSeat(player uint16) (*seat, entity.ID, bool) {
	if st := s.seats[player]; st != nil {
		return st, st.entity, true
	}
	w := s.watchers[player]
	if w == nil {
		return nil, entity.None, false
	}
	return &w.seat, entity.None, true
}

// Spectators lists the spectators watching, in number order
// (net.spectators(); scripting.Watched).
func (s *Server) Spectators(dst []scripting.SpectatorInfo) []scripting.SpectatorInfo {
	start := len(dst)
	for _, w := range s.watchers {
		dst = append(dst, scripting.SpectatorInfo{Number: w.player, Name: w.name, Follows: w.follows})
	}
	slices.SortFunc(dst[start:], func(a, b scripting.SpectatorInfo) int { return int(a.Number) - int(b.Number) })
	return dst
}

// SpectatorCount is how many spectators watch (the vkm_spectators gauge).
func (s *Server) SpectatorCount() int { return len(s.watchers) }

// Spectators lists the server's spectators for the scripts.
func (a *serverAuthority) Spectators(dst []scripting.SpectatorInfo) []scripting.SpectatorInfo {
	return (*Server)(a).Spectators(dst)
}

package transport

import "vkm/transport/handshake"

// A spectator is a connection like a player's, numbered from the same
// numbers, whose join asked to watch (handshake.Hello.Spectator). It is
// bounded apart: MaxSpectators of them may watch a server whose player
// seats are all taken, and a spectator never takes a player's seat.

// full reports whether a join of the kind spectator asks for finds no
// room: the players seated against MaxPlayers, or the spectators against
// MaxSpectators.
func (s *Server) full(spectator bool) bool {
	if spectator {
		_, spectators := s.counts()
		return spectators >= s.cfg.MaxSpectators
	}
	return s.seatsTaken() >= s.cfg.MaxPlayers
}

// counts returns how many of the seated connections play and how many
// watch.
func (s *Server) counts() (players, spectators int) {
	for _, p := range s.seated {
		if p.spectator {
			spectators++
		} else {
			players++
		}
	}
	return players, spectators
}

// Spectators returns how many spectators are connected.
func (s *Server) Spectators() int {
	_, n := s.counts()
	return n
}

// admitFor returns the hook that decides a join of the kind spectator
// asks for, nil when everyone within the bound is let in.
func (s *Server) admitFor(spectator bool) func(uint16, string, bool) (handshake.Refuse, bool) {
	if !spectator {
		return s.cfg.Admit
	}
	if s.cfg.AdmitSpectator == nil {
		return nil
	}
	return func(num uint16, name string, _ bool) (handshake.Refuse, bool) {
		return s.cfg.AdmitSpectator(num, name)
	}
}

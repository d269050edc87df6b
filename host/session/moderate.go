package session

import (
	"net/netip"
	"time"

	"vkm/host/session/netmsg"
	"vkm/transport"
	"vkm/transport/handshake"
)

// An operator's moderation: kick a player with a reason they see, mute
// their chat, and keep players out at the door (ServerConfig.Gate, an
// access list).

// KickGrace is how long a kicked player's seat stays for the kicked
// message (netmsg.Kicked) to reach them before the server ends it
// regardless. Tuning constant: a couple of round trips on a poor link.
const KickGrace = 2 * time.Second

// Kick removes a seated player, telling them why: sentence is shown to
// them (a Goodbye alone carries only a reason number). The seat ends with
// Goodbye reason 4 (kicked) once the message is delivered, or after
// KickGrace. It reports whether the player was seated.
func (s *Server) Kick(player uint16, sentence string) bool {
	st := s.seats[player]
	if st == nil {
		return s.kickGuest(player, sentence) || s.kickSpectator(player, sentence)
	}
	if st.kickAt == 0 {
		s.kicks++
		s.log.Warn("player kicked", "player", player, "name", st.name, "why", sentence)
		if err := st.rel.Send(netmsg.Kicked{Sentence: sentence}.Append(nil)); err != nil {
			// The channel is full: the Goodbye goes now.
			st.kickAt = s.now
			return true
		}
		st.kickAt = s.now + transport.Time(KickGrace)
	}
	return true
}

// Mute sets whether a seated player's chat lines are dropped; it reports
// whether the player was seated.
func (s *Server) Mute(player uint16, muted bool) bool {
	st := s.seats[player]
	if st == nil {
		return false
	}
	st.muted = muted
	s.log.Info("player muted", "player", player, "name", st.name, "muted", muted)
	return true
}

// Kicks returns how many players Kick has removed.
func (s *Server) Kicks() uint64 { return s.kicks }

// endKicked ends the seats of kicked players whose message has arrived, or
// whose grace has passed.
func (s *Server) endKicked(now transport.Time) {
	for player, st := range s.seats {
		if st.kickAt != 0 && (now >= st.kickAt || st.rel.PendingMessages() == 0) {
			s.net.End(player, handshake.GoodbyeKicked, now)
		}
	}
	s.events()
}

// gate wraps ServerConfig.Gate as the transport's.
func gate(g func(from netip.AddrPort, client uint64, hasClient bool) (string, bool)) func(netip.AddrPort, uint64, bool) (handshake.Refuse, bool) {
	if g == nil {
		return nil
	}
	return func(from netip.AddrPort, client uint64, hasClient bool) (handshake.Refuse, bool) {
		why, ok := g(from, client, hasClient)
		return handshake.Refuse{Reason: handshake.ReasonDeclined, Detail: why}, ok
	}
}

// takeKicked reads the server's word that it is removing this client.
func (c *Client) takeKicked(msg []byte) {
	k, err := netmsg.ParseKicked(msg)
	why := k.Sentence
	if err != nil || why == "" {
		why = handshake.GoodbyeKicked.Sentence()
	}
	c.kicked = true
	c.end(why)
}

// Kicked reports whether the server removed this client with a kick.
func (c *Client) Kicked() bool { return c.kicked }

// Ended reports whether this end ended the session itself (a kick, a
// message it could not read, a reload it cannot follow), and why.
func (c *Client) Ended() (bool, string) { return c.ended, c.why }

// Muted reports whether a seated player is muted: their chat lines are
// dropped and their voice is not forwarded.
func (s *Server) Muted(player uint16) bool {
	st := s.seats[player]
	return st != nil && st.muted
}

// SendVoice tells a seated player whose voice each of their voice slots
// carries (netmsg.Voice); it reports whether the message was queued.
func (s *Server) SendVoice(player uint16, v netmsg.Voice) bool {
	st := s.seats[player]
	return st != nil && st.rel.Send(v.Append(nil)) == nil
}

package session

import (
	"time"

	"vkm/host/session/netmsg"
	"vkm/scripting"
	"vkm/transport"
	"vkm/transport/handshake"
)

// The project's messages (netmsg.Message) go on the reliable channel both
// ways: a client's net.send to the server, the server's net.send_to and
// net.broadcast to players. Each is sent after the tick whose scripts sent
// it and handled at the top of the next tick its receiver plays. The
// server bounds what each player sends (messageBound).

// Tuning constants: what a player may send the server. A game's requests
// (a purchase, a vote, a chat line) come a few a second at most; a burst
// covers a menu clicked through quickly.
const (
	// MessagesPerSecond is the steady rate a player's messages are taken at.
	MessagesPerSecond = 32
	// MessageBurst is how many may come at once after a quiet spell.
	MessageBurst = 64
	// MessageFloodSeconds is how many seconds in a row a player may have
	// messages dropped before the server ends the seat
	// (handshake.GoodbyeFlood).
	MessageFloodSeconds = 3
)

// messageBound is one seat's bound on the messages it sends: a token
// bucket of MessageBurst filled at MessagesPerSecond, and a count of the
// whole seconds in a row in which some were dropped. The zero value starts
// with a full bucket.
type messageBound struct {
	started     bool
	tokens      float64
	at          transport.Time // when tokens was last filled
	windowAt    transport.Time // the start of the current second
	windowDrops int
	overSeconds int
}

// admit says whether a message of size body bytes arriving at now is
// taken, and whether the seat has been over its bound for
// MessageFloodSeconds seconds in a row.
func (b *messageBound) admit(now transport.Time, size int) (ok, flood bool) {
	return b.admitAt(now, size <= netmsg.MaxMessageBody, MessagesPerSecond, MessageBurst)
}

// admitAt is admit for a bucket of burst filled at rate a second, of a
// message that fits (or not).
func (b *messageBound) admitAt(now transport.Time, fits bool, rate, burst float64) (ok, flood bool) {
	if !b.started {
		b.started, b.tokens, b.at, b.windowAt = true, burst, now, now
	}
	if since := time.Duration(now - b.windowAt); since >= time.Second {
		if b.windowDrops > 0 && since < 2*time.Second {
			b.overSeconds++
		} else {
			b.overSeconds = 0
		}
		b.windowAt, b.windowDrops = now, 0
	}
	b.tokens = min(burst, b.tokens+time.Duration(now-b.at).Seconds()*rate)
	b.at = now
	if !fits || b.tokens < 1 {
		b.windowDrops++
		return false, b.overSeconds >= MessageFloodSeconds
	}
	b.tokens--
	return true, false
}

// messageCounts are one end's, or one seat's, message figures.
type messageCounts struct {
	// In are messages taken and handed to the handlers; Dropped those
	// refused (over the bound, too large, unreadable, or not sent for a
	// full channel); Sent those queued on a channel.
	In, Dropped, Sent uint64
}

// takeMessage takes one message a player sent. It returns false when it
// ended the player's seat.
func (s *Server) takeMessage(st *seat, msg []byte) bool {
	switch netmsg.KindOf(msg) {
	case netmsg.KindMessage:
	case netmsg.KindChat:
		s.takeChat(st, msg)
		return true
	case netmsg.KindGuest:
		s.takeGuest(st, msg)
		return true
	case netmsg.KindInspect:
		s.takeInspect(st, msg)
		return true
	default:
		// No other kind goes from a client to the server: a later
		// client's is ignored.
		return true
	}
	m, err := netmsg.ParseMessage(msg)
	ok, flood := st.bound.admit(s.now, len(m.Body))
	if flood {
		s.floods++
		s.log.Warn("player sent too many messages: seat ended", "player", st.player, "for_s", MessageFloodSeconds)
		s.net.End(st.player, handshake.GoodbyeFlood, s.now)
		s.events()
		return false
	}
	if err == nil && ok {
		s.msgValues, err = s.game.Schema().ParseMessageBody(int(m.Number), m.Body, s.msgValues)
	}
	if err != nil || !ok {
		st.msgs.Dropped++
		return true
	}
	st.msgs.In++
	if s.rec != nil {
		s.rec.Message(st.player, m.Number, m.Body)
	}
	s.game.PostMessage(st.player, int(m.Number), s.msgValues)
	return true
}

// sendMessages puts on the players' channels what the tick's scripts sent
// them.
func (s *Server) sendMessages() {
	s.game.TakeMessages(func(o scripting.Outgoing) {
		msg := s.encodeMessage(o)
		if o.All {
			for _, st := range s.seats {
				s.sendMessage(st, msg)
			}
			return
		}
		// A guest's messages go to its connection.
		s.eachConn(o.To, func(st *seat) { s.sendMessage(st, msg) })
	})
}

// sendMessage queues msg to st's player.
func (s *Server) sendMessage(st *seat, msg []byte) {
	if err := st.rel.Send(msg); err != nil {
		st.msgs.Dropped++
		s.log.Debug("message not sent", "player", st.player, "err", err)
		return
	}
	st.msgs.Sent++
}

// encodeMessage returns the bytes of o.
func (s *Server) encodeMessage(o scripting.Outgoing) []byte {
	body := s.game.Schema().AppendMessageBody(nil, o.Message, o.Values)
	return netmsg.Message{Number: uint16(o.Message), Body: body}.Append(nil)
}

// The client's side.

// sendMessages puts on the channel to the server what the tick's scripts
// sent.
func (c *Client) sendMessages() {
	c.game.TakeMessages(func(o scripting.Outgoing) {
		body := c.game.Schema().AppendMessageBody(nil, o.Message, o.Values)
		if err := c.rel.Send(netmsg.Message{Number: uint16(o.Message), Body: body}.Append(nil)); err != nil {
			c.msgs.Dropped++
			c.log.Debug("message not sent", "err", err)
			return
		}
		c.msgs.Sent++
	})
}

// takeMessage hands the scripts a message from the server. One this
// client cannot read ends the session: the server speaks another schema
// or lies.
func (c *Client) takeMessage(msg []byte) {
	m, err := netmsg.ParseMessage(msg)
	if err == nil {
		c.msgValues, err = c.game.Schema().ParseMessageBody(int(m.Number), m.Body, c.msgValues)
	}
	if err != nil {
		c.end("The server sent a message this client cannot read: " + err.Error())
		return
	}
	c.msgs.In++
	c.game.PostMessage(0, int(m.Number), c.msgValues)
}

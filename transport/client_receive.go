package transport

import (
	"encoding/binary"
	"errors"

	"vkm/transport/handshake"
	"vkm/wire"
)

// Receive takes one datagram that arrived from the server at now. It never
// fails: whatever cannot be acted on is dropped and counted (Stats). The
// datagram is not kept. Afterwards drain NextDatagram and NextEvent.
//
// While joining, a Challenge gives the token to echo (a later one replaces
// it: a Hello sent as the server's window turned is answered with the next
// window's token), a Welcome carrying that token seats the client, and a
// Refuse carrying it (or, before there is a token, carrying none) ends the
// join. A Goodbye with the token ends the session; Data with it goes to the
// connection core.
func (c *Client) Receive(datagram []byte, now Time) {
	c.out.reuse()
	c.events.reuse()
	if len(datagram) > MaxDatagram {
		c.stats.Oversize++
		return
	}
	h, body, verdict := handshake.Classify(datagram)
	switch verdict {
	case handshake.VerdictRead:
	case handshake.VerdictRefusedVersion:
		// Another version's body cannot be read, but its header can: the
		// token rule still applies.
		c.receiveRefuse(h.Token, handshake.VersionRefusal(h.Version, handshake.Version), len(datagram), now)
		return
	case handshake.VerdictAnswerVersion:
		c.stats.Unexpected++ // a Hello: servers get those
		return
	default:
		c.stats.dropUnread(datagram)
		return
	}
	switch h.Kind {
	case handshake.KindChallenge:
		c.receiveChallenge(h.Token, body, len(datagram), now)
	case handshake.KindWelcome:
		c.receiveWelcome(h.Token, datagram, now)
	case handshake.KindRefuse:
		r, err := handshake.ParseRefuse(body)
		if err != nil {
			c.stats.Malformed++
			return
		}
		c.receiveRefuse(h.Token, r, len(datagram), now)
	case handshake.KindGoodbye:
		c.receiveGoodbye(h.Token, datagram)
	case handshake.KindData:
		c.receiveData(h.Token, datagram, now)
	default: // Hello
		c.stats.Unexpected++
	}
}

// hear notes that the server said something that counts while joining.
func (c *Client) hear(size int, now Time) {
	c.heard, c.lastHeard = true, now
	c.stats.BytesIn += uint64(size)
}

// receiveChallenge takes the token a Challenge carries.
func (c *Client) receiveChallenge(token uint64, body []byte, size int, now Time) {
	if c.state != StateJoining {
		c.stats.Unexpected++
		return
	}
	if _, err := handshake.ParseChallenge(body); err != nil || token == 0 {
		c.stats.Malformed++ // a Challenge without a token says nothing
		return
	}
	c.token = token
	c.stats.Challenges++
	c.hear(size, now)
}

// UnreadableWelcome is the sentence a client ends with when its server's
// Welcome does not decode.
const UnreadableWelcome = "The server's welcome could not be read; it may run another build of the game."

// Unsealed is the sentence a client with a connect token ends with when
// the server seats it without sealing: a server without a key, which checks
// no tokens and whose datagrams anyone on the path could forge.
const Unsealed = "The server does not check connect tokens (it runs without a key), so this client, which has one, will not play on it unsealed; join it without a token."

// body returns the body of a datagram from the server: for a client with a
// connect token, opened (aliasing a buffer the Client reuses), and nil
// after counting why when it does not open; otherwise what follows the
// header.
func (c *Client) body(datagram []byte) []byte {
	if c.rx == nil {
		return datagram[handshake.HeaderSize:]
	}
	_, body, err := c.rx.Open(c.plain[:0], datagram)
	if err != nil {
		c.stats.dropSealed(err)
		return nil
	}
	return body
}

// receiveWelcome seats the client if the Welcome carries its token (and,
// with a connect token, is sealed by the server); a Welcome with its token
// that does not decode ends the join.
func (c *Client) receiveWelcome(token uint64, datagram []byte, now Time) {
	size := len(datagram)
	switch {
	case c.state != StateJoining:
		c.stats.Unexpected++ // a repeat of the Welcome that seated us
		return
	case token == 0 || token != c.token:
		c.stats.BadToken++
		return
	case c.rx != nil && size == handshake.HeaderSize+handshake.WelcomeSize:
		// An unsealed Welcome carrying our cookie: a server without a
		// key. Playing on would give up what the token is for.
		c.stats.Forged++
		c.end(StateRefused, Unsealed)
		return
	}
	body := c.body(datagram)
	if body == nil {
		return
	}
	w, err := handshake.ParseWelcome(body)
	if err != nil {
		// It carries our token, so it is the server's answer, and one this
		// build cannot read: joining on would be guessing at the session.
		c.stats.Malformed++
		c.end(StateDisconnected, UnreadableWelcome)
		return
	}
	c.hear(size, now)
	if c.resuming && w.Player != c.welcome.Player {
		c.end(StateDisconnected, SeatLost)
		return
	}
	c.welcome, c.state, c.resuming = w, StatePlaying, false
	c.conn = NewConn(c.cfg.Conn, now)
	c.events.push(ClientEvent{Kind: EventWelcome, Welcome: w}, nil)
	c.log.Info("joined", "player", w.Player, "server_tick", w.ServerTick, "max_players", w.MaxPlayers)
}

// receiveRefuse ends the join if the Refuse carries the client's token (0
// before it holds one).
func (c *Client) receiveRefuse(token uint64, r handshake.Refuse, size int, now Time) {
	switch {
	case c.state != StateJoining:
		c.stats.Unexpected++
		return
	case token != c.token:
		c.stats.BadToken++
		return
	case c.resuming && r.Reason == handshake.ReasonClientSeated:
		// The server still hears the seat (or has not yet noticed it went
		// quiet): it is given back once held. Keep saying Hello.
		c.stats.SeatBusy++
		return
	}
	c.hear(size, now)
	c.refusal, c.refused = r, true
	attrs := []any{"reason", r.Reason.String()}
	if r.Reason == handshake.ReasonMismatch || r.Reason == handshake.ReasonTickRate {
		attrs = append(attrs, "client", handshake.MismatchLine(c.cfg.Hello))
	}
	c.log.Warn("join refused", attrs...)
	c.end(StateRefused, r.Sentence())
}

// receiveGoodbye ends the session if the Goodbye carries the client's token
// and, with a connect token, authenticates.
func (c *Client) receiveGoodbye(token uint64, datagram []byte) {
	size := len(datagram)
	switch {
	case c.state != StateJoining && c.state != StatePlaying:
		c.stats.Unexpected++
		return
	case c.token == 0 || token != c.token:
		c.stats.BadToken++
		return
	}
	body := c.body(datagram)
	if body == nil {
		return
	}
	g, err := handshake.ParseGoodbye(body)
	if err != nil {
		c.stats.Malformed++
		return
	}
	c.stats.BytesIn += uint64(size)
	c.end(StateDisconnected, g.Reason.Sentence())
}

// receiveData hands a Data body carrying the client's token (and, with a
// connect token, authenticated) to its Conn.
func (c *Client) receiveData(token uint64, datagram []byte, now Time) {
	size := len(datagram)
	switch {
	case c.state != StatePlaying:
		c.stats.Unexpected++
		return
	case token != c.token:
		c.stats.BadToken++
		return
	}
	body := c.body(datagram)
	if body == nil {
		return
	}
	payload, err := c.conn.Open(body, now)
	switch {
	case errors.Is(err, ErrStale):
		c.stats.Stale++
		return
	case err != nil:
		c.stats.Malformed++
		return
	}
	c.stats.BytesIn += uint64(size)
	if len(payload) > 0 {
		seq := wire.Seq(binary.LittleEndian.Uint16(body)) // Open checked the header
		c.events.push(ClientEvent{Kind: EventData, Seq: seq}, payload)
	}
}

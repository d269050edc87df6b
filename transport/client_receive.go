package transport

import (
	"encoding/binary"
	"errors"

	"vkm/transport/handshake"
	"vkm/transport/seal"
	"vkm/wire"
)

// Receive takes one datagram that arrived from the server at now. It never
// fails: whatever cannot be acted on is dropped and counted (Stats). The
// datagram is not kept. Afterwards drain NextDatagram and NextEvent.
//
// While joining, a Challenge echoing the attempt's nonce gives the token to
// echo (a later one replaces it: a Hello sent as the server's window turned
// is answered with the next window's token), a Welcome carrying that token
// seats the client, and a Refuse carrying it (or, before there is a token,
// carrying none) and the nonce ends the join; with a connect token only a
// sealed Refuse does, and an unsealed one is kept as advice. A Goodbye with the token ends the session; Data with it goes to the
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
		// token rule still applies, and the nonce is taken on trust.
		r := handshake.VersionRefusal(h.Version, handshake.Version)
		r.Nonce = c.nonce
		c.receiveRefuse(h.Token, r, false, len(datagram), now)
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
		c.receiveRefuse(h.Token, r, false, len(datagram), now)
	case handshake.KindSealedRefuse:
		c.receiveSealedRefuse(h.Token, datagram, now)
	case handshake.KindGoodbye:
		c.receiveGoodbye(h.Token, datagram)
	case handshake.KindData:
		c.receiveData(h.Token, datagram, now)
	default: // Hello
		c.stats.Unexpected++
	}
}

// hear notes that the server said something that counts while joining.
func (c *Client) hear(size int) {
	c.heard = true
	c.stats.BytesIn += uint64(size)
}

// receiveChallenge takes the token a Challenge carries.
func (c *Client) receiveChallenge(token uint64, body []byte, size int, now Time) {
	if c.state != StateJoining {
		c.stats.Unexpected++
		return
	}
	ch, err := handshake.ParseChallenge(body)
	if err != nil || token == 0 {
		c.stats.Malformed++ // a Challenge without a token says nothing
		return
	}
	if ch.Nonce != c.nonce {
		c.stats.BadToken++ // not an answer to this attempt's Hello
		return
	}
	c.token = token
	c.stats.Challenges++
	c.hear(size)
}

// UnreadableWelcome is the sentence a client ends with when its server's
// Welcome does not decode.
const UnreadableWelcome = "The server's welcome could not be read; it may run another build of the game."

// Unsealed is the sentence a client with a connect token ends with, at its
// join's deadline, when the server would seat it without sealing: a server
// without a key, which checks no tokens and whose datagrams anyone on the
// path could forge (and so could such a Welcome: it ends nothing sooner).
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
		// key, or someone who saw the Hello. Playing on would give up
		// what the token is for; ending here would let anyone on the
		// path end the join. Keep saying Hello, and say this at the
		// deadline if nothing sealed comes.
		c.stats.Forged++
		c.advice, c.adviceRefusal = Unsealed, nil
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
	c.hear(size)
	if c.resuming && w.Player != c.welcome.Player {
		c.end(StateDisconnected, SeatLost)
		return
	}
	c.welcome, c.state, c.resuming = w, StatePlaying, false
	c.conn = NewConn(c.cfg.Conn, now)
	c.events.push(ClientEvent{Kind: EventWelcome, Welcome: w}, nil)
	c.log.Info("joined", "player", w.Player, "server_tick", w.ServerTick, "max_players", w.MaxPlayers)
}

// receiveRefuse takes a Refuse carrying the client's token (0 before it
// holds one) and its attempt's nonce: it ends the join when sealed is true
// (a sealed Refuse, opened) or the client has no connect token; otherwise
// it is kept as advice, which ends the join only at its deadline.
func (c *Client) receiveRefuse(token uint64, r handshake.Refuse, sealed bool, size int, now Time) {
	switch {
	case c.state != StateJoining:
		c.stats.Unexpected++
		return
	case token != c.token || r.Nonce != c.nonce:
		c.stats.BadToken++
		return
	case c.resuming && r.Reason == handshake.ReasonClientSeated:
		// The server still hears the seat (or has not yet noticed it went
		// quiet): it is given back once held. Keep saying Hello.
		c.stats.SeatBusy++
		return
	case c.cfg.Token != nil && !sealed:
		// Anyone who saw the Hello can write this. A server with a key
		// seals the refusals that count; keep saying Hello, and tell
		// this one if nothing better comes by the deadline.
		c.stats.Advised++
		c.stats.BytesIn += uint64(size)
		c.advice, c.adviceRefusal = r.Sentence(), &r
		return
	}
	c.hear(size)
	c.refusal, c.refused = r, true
	attrs := []any{"reason", r.Reason.String()}
	if r.Reason == handshake.ReasonMismatch || r.Reason == handshake.ReasonTickRate {
		attrs = append(attrs, "client", handshake.MismatchLine(c.cfg.Hello))
	}
	c.log.Warn("join refused", attrs...)
	c.end(StateRefused, r.Sentence())
}

// receiveSealedRefuse opens a sealed Refuse carrying the client's cookie
// under its connect token's server-to-client key and takes it as final. A
// client without a token, or without a cookie yet, drops it: a server seals
// a refusal only for a Hello that echoed a cookie and carried a token.
func (c *Client) receiveSealedRefuse(token uint64, datagram []byte, now Time) {
	switch {
	case c.state != StateJoining:
		c.stats.Unexpected++
		return
	case c.cfg.Token == nil:
		c.stats.Unexpected++
		return
	case c.token == 0 || token != c.token:
		c.stats.BadToken++
		return
	}
	_, counter, body, err := seal.OpenOnce(c.plain[:0], &c.cfg.Token.ServerToClient, handshake.HeaderSize, datagram)
	if err != nil || counter&handshake.SealedRefuseBit == 0 {
		c.stats.Forged++
		return
	}
	r, err := handshake.ParseRefuse(body)
	if err != nil {
		c.stats.Malformed++
		return
	}
	c.receiveRefuse(token, r, true, len(datagram), now)
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

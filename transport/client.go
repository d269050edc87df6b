package transport

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"strconv"
	"time"

	"vkm/transport/handshake"
	"vkm/transport/seal"
	"vkm/transport/token"
	"vkm/wire"
)

// DefaultHelloInterval is ClientConfig.HelloInterval when zero: the command
// interval, 64 a second. A joining client repeats its Hello at this rate
// until it is answered, which is all the retrying a lost Hello or Challenge
// needs. Tuning constant.
const DefaultHelloInterval = time.Second / 64

// DefaultResumeAfter is ClientConfig.ResumeAfter when zero: a second
// without a word from a server that sends at least four datagrams a
// second, as long as the server waits before holding a seat (HoldAfter).
// Tuning constant.
const DefaultResumeAfter = HoldAfter

// SeatLost is the sentence a resuming client ends with when the server
// seats it under another player number: its seat was given up.
const SeatLost = "The server gave up this player's seat while the connection was down; join again."

// ErrNotPlaying is returned by Client.Send before the Welcome and after the
// session ended.
var ErrNotPlaying = errors.New("transport: client is not playing")

// ClientState is where a Client's session stands.
//
//	         Welcome
//	Joining ─────────▶ Playing
//	   │ │  ◀─────────── │ server silent ResumeAfter, or Resume
//	   │ │   (resuming)   │ server Goodbye, timeout, Leave
//	   │ └──────────┐     ▼
//	   │ Refuse     └──▶ Disconnected
//	   ▼   (Goodbye, timeout, Leave while joining)
//	Refused
//
// Refused and Disconnected are final: a new attempt is a new Client. There is
// no Offline here; a session that never connected is the host's business.
// A client with a connect token that stops hearing its server joins again
// with the token to take back its seat (the server's rejoin window):
// EventResuming, then EventWelcome with the same player number.
type ClientState uint8

// The client states.
const (
	// StateJoining: saying Hello until the server answers.
	StateJoining ClientState = iota + 1
	// StatePlaying: seated; Data flows.
	StatePlaying
	// StateRefused: the server refused the join; LastError says why.
	StateRefused
	// StateDisconnected: the session ended (the server said goodbye or
	// stopped answering, or the player left); LastError says why.
	StateDisconnected
)

// String returns the state's name as reports spell it.
// Not made by stringer, which would spell an unknown state ClientState(9), not state(9).
func (s ClientState) String() string {
	switch s {
	case StateJoining:
		return "joining"
	case StatePlaying:
		return "playing"
	case StateRefused:
		return "refused"
	case StateDisconnected:
		return "disconnected"
	}
	return fmt.Sprintf("state(%d)", uint8(s))
}

// ClientConfig configures a Client.
type ClientConfig struct {
	// Hello is what this client holds and says in every Hello: the
	// fingerprints, action count and tick rate the server checks, the
	// player's name (cleaned by handshake.CleanName; empty leaves it to the
	// server) and whether it runs in dev mode.
	Hello handshake.Hello
	// Password, if not empty, is the server's password: every Hello that
	// echoes a cookie proves it (handshake.PasswordProof).
	Password []byte

	// Conn configures the connection core made at the Welcome. Its Timeout
	// (10 s by default) also bounds a join that hears nothing.
	Conn Config

	// HelloInterval is the least time between two Hellos. Zero or less
	// means DefaultHelloInterval.
	HelloInterval time.Duration

	// Token is the connect token the game's backend gave this player,
	// for a server that holds a key. The client sends its sealed part in
	// the Hello that echoes the server's cookie, and seals every datagram
	// from then on with its session keys; it accepts only a Welcome, Data
	// and Goodbye sealed by the server. Nil joins a server without a key,
	// unsealed.
	Token *token.Token

	// ResumeAfter is how long a playing client with a Token goes without
	// hearing the server before it joins again with the token to take
	// back its seat (see ServerConfig.RejoinWindow). Zero means
	// DefaultResumeAfter; less than zero never resumes. Without a Token
	// the client never resumes: the server keeps no seat without one.
	ResumeAfter time.Duration

	// Rand supplies the nonce of each join attempt (a fresh one for the
	// first Hello and for every resume). Nil means crypto/rand.Reader;
	// tests pass a fixed reader.
	Rand io.Reader

	// Logger receives the end of the session at Info, and a refusal at
	// Warn with handshake.MismatchLine of what this client holds, so it can
	// be diffed with the server's line. Nil discards.
	Logger *slog.Logger
}

// ClientEvent is something that happened to a Client's session. Which fields
// are set depends on Kind: EventWelcome, EventData or EventEnded.
type ClientEvent struct {
	Kind EventKind // what happened
	// Welcome is the server's Welcome (EventWelcome).
	Welcome handshake.Welcome
	// Payload is the Data's payload (EventData). It aliases a buffer the
	// Client reuses: valid until the next call to Receive or Poll.
	Payload []byte
	// Seq is the sequence number the Data arrived under (EventData).
	Seq wire.Seq
	// State is StateRefused or StateDisconnected (EventEnded).
	State ClientState
	// Sentence says why, as the player is shown it (EventEnded).
	Sentence string
}

// ClientStats counts what a Client has done since it was made. It is a plain
// value, safe to copy.
type ClientStats struct {
	Drops
	Hellos     uint64 // Hellos sent
	Challenges uint64 // Challenges taken (each may change the token)
	Resumes    uint64 // times the client joined again to take back its seat
	SeatBusy   uint64 // ReasonClientSeated refusals while resuming, not final
	// Advised counts unsealed Refuses a client with a connect token took
	// as advice only: a server with a key seals the refusals that count,
	// and anyone who saw the Hello can write an unsealed one.
	Advised  uint64
	BytesIn  uint64 // whole datagrams acted on, headers included
	BytesOut uint64 // whole datagrams sent, headers included
}

// Client is the sans-IO client half of a session: it joins one server and
// then carries Data to and from it. It owns no socket: the caller sends what
// NextDatagram returns to the server, hands Receive what comes back, and
// calls Poll from its frame loop (at least at NextDeadline).
//
// Every Hello carries a nonce drawn for its join attempt, and a Challenge
// or Refuse that does not echo it is dropped: only someone who saw the Hello
// can answer it. Once the client holds a cookie, everything without it is
// dropped before it is read further, Data before the connection core sees
// it. With a connect token, the client believes a refusal only sealed by the
// server that opened its token (an unsealed one is advice: the join goes on,
// and ends with it only at its deadline), so someone who sees the Hellos
// can at most delay a join or a resume until its deadline, Timeout after
// it began, and never end one.
//
// Use NewClient; the zero value is not ready. A Client is not safe for
// concurrent use.
type Client struct {
	cfg      ClientConfig
	timeout  time.Duration
	interval time.Duration
	log      *slog.Logger

	state     ClientState
	token     uint64
	nonce     uint64 // the join attempt's, in every Hello
	start     Time
	deadline  Time // when the join attempt gives up
	lastHello Time
	hellos    bool // a Hello has been sent
	heard     bool // the server has said anything useful
	welcome   handshake.Welcome
	refusal   handshake.Refuse
	refused   bool
	// With a token, the last unsealed answer that would have ended the
	// join: the sentence it ends with at the deadline, and the Refuse
	// (nil for an unsealed Welcome).
	advice        string
	adviceRefusal *handshake.Refuse
	rand          io.Reader
	conn          *Conn
	lastErr       string
	resume        time.Duration // ResumeAfter, 0 for never
	resuming      bool          // joining again to take back a seat

	out    outbox
	events eventQueue[ClientEvent]
	stats  ClientStats
	// With a Token: the seals of the two directions, and the buffer a
	// sealed datagram is opened into.
	tx    *seal.Sender
	rx    *seal.Receiver
	plain []byte
}

// NewClient returns a Client in StateJoining at now. Its first Poll sends the
// first Hello.
func NewClient(cfg ClientConfig, now Time) *Client {
	interval := cfg.HelloInterval
	if interval <= 0 {
		interval = DefaultHelloInterval
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := cfg.Rand
	if r == nil {
		r = crand.Reader
	}
	c := &Client{
		cfg:      cfg,
		timeout:  cfg.Conn.withDefaults().Timeout,
		interval: interval,
		log:      log,
		state:    StateJoining,
		start:    now,
		rand:     r,
	}
	c.deadline = now.Add(c.timeout)
	c.newAttempt()
	if t := cfg.Token; t != nil {
		var err error
		if c.tx, err = seal.NewSender(&t.ClientToServer, handshake.HeaderSize); err != nil {
			panic(err) // the header length is a constant NewSender takes
		}
		if c.rx, err = seal.NewReceiver(&t.ServerToClient, handshake.HeaderSize); err != nil {
			panic(err)
		}
		c.plain = make([]byte, 0, MaxDatagram)
		c.resume = cfg.ResumeAfter
		if c.resume == 0 {
			c.resume = DefaultResumeAfter
		}
		c.resume = max(c.resume, 0)
	}
	return c
}

// newAttempt draws the nonce of a new join attempt and forgets the cookie
// and advice of the last.
func (c *Client) newAttempt() {
	var b [8]byte
	for c.nonce = 0; c.nonce == 0; c.nonce = binary.LittleEndian.Uint64(b[:]) {
		if _, err := io.ReadFull(c.rand, b[:]); err != nil {
			// A reader that runs dry (a test's fixed one) gives way
			// to crypto/rand.
			c.rand = crand.Reader
		}
	}
	c.token, c.advice, c.adviceRefusal = 0, "", nil
}

// Poll does what is due at now. While joining it says Hello (with the token
// once it has one) if HelloInterval has passed since the last, and gives up
// when the attempt's deadline passes, Timeout after it began (for a
// resume, after the server was last heard): with StateRefused and the
// server's advice if an unsealed Refuse came, else StateDisconnected.
// While playing it sends a keep-alive when nothing was sent for the
// keep-alive interval, and ends with StateDisconnected when nothing was
// heard for the timeout. It does nothing once the session ended.
func (c *Client) Poll(now Time) {
	c.out.reuse()
	c.events.reuse()
	switch c.state {
	case StateJoining:
		if now >= c.deadline {
			if c.advice != "" {
				if r := c.adviceRefusal; r != nil {
					c.refusal, c.refused = *r, true
				}
				c.end(StateRefused, c.advice)
				return
			}
			c.end(StateDisconnected, c.silenceSentence())
			return
		}
		if !c.hellos || now.Sub(c.lastHello) >= c.interval {
			c.sendHello(now)
		}
	case StatePlaying:
		if c.conn.TimedOut(now) {
			c.end(StateDisconnected, c.silenceSentence())
			return
		}
		if c.resume > 0 && now.Sub(c.conn.lastRecvAt) >= c.resume {
			c.startResume(now)
			c.sendHello(now)
			return
		}
		if c.conn.NeedsKeepAlive(now) {
			c.sendData(nil, now) // an empty payload always fits
		}
	}
}

// silenceSentence says the server went quiet, and for how long.
func (c *Client) silenceSentence() string {
	secs := strconv.FormatFloat(c.timeout.Seconds(), 'f', -1, 64)
	if !c.heard {
		return "The server did not answer (" + secs + " s)."
	}
	return "The server stopped answering (" + secs + " s)."
}

// sendHello queues a Hello, padded to handshake.HelloSize, carrying the
// connect token once the client has a cookie to echo.
func (c *Client) sendHello(now Time) {
	buf := c.out.open()
	n := len(buf)
	hello := c.cfg.Hello
	hello.Token, hello.Nonce = nil, c.nonce
	if c.cfg.Token != nil && c.token != 0 {
		hello.Token = &c.cfg.Token.Sealed
	}
	hello.Password = nil
	if len(c.cfg.Password) > 0 && c.token != 0 {
		proof := handshake.PasswordProof(c.cfg.Password, c.nonce, c.token)
		hello.Password = &proof
	}
	buf = handshake.AppendDatagram(buf, c.token, hello)
	if hello.Token != nil {
		handshake.Prove(buf[n:], &c.cfg.Token.ClientToServer)
	}
	c.stats.BytesOut += uint64(len(buf) - n)
	c.stats.Hellos++
	c.out.commit(netip.AddrPort{}, buf)
	c.hellos, c.lastHello = true, now
}

// sendData queues a Data datagram.
func (c *Client) sendData(payload []byte, now Time) (wire.Seq, error) {
	n, seq, err := sealData(&c.out, netip.AddrPort{}, c.token, c.conn, c.tx, payload, now)
	c.stats.BytesOut += uint64(n)
	return seq, err
}

// NextDeadline returns when Poll next has something to do if nothing
// arrives meanwhile, and false once the session has ended.
func (c *Client) NextDeadline() (Time, bool) {
	switch c.state {
	case StateJoining:
		next := c.start
		if c.hellos {
			next = c.lastHello.Add(c.interval)
		}
		return min(next, c.deadline), true
	case StatePlaying:
		if c.resume > 0 {
			return min(c.conn.NextDeadline(), c.conn.lastRecvAt.Add(c.resume)), true
		}
		return c.conn.NextDeadline(), true
	}
	return 0, false
}

// Begin starts the join's wait over at now, for a caller whose link took
// time to open after the client was made (a web dial that waited out a
// gateway's Retry-After): the join gives up Timeout after the first Hello,
// not after the client was made. It does nothing once a Hello went out or
// the client is past joining.
func (c *Client) Begin(now Time) {
	if c.state != StateJoining || c.hellos || c.resuming {
		return
	}
	c.start, c.deadline = now, now.Add(c.timeout)
}

// Resume joins again at once to take back the seat, as the client does
// by itself after ResumeAfter of silence: for a caller that knows the
// link changed (its socket's address, a phone changing networks).
// refreshed, when not nil, is a connect token minted afresh for the same
// client id, which replaces the one the client holds (its keys seal from
// the next Hello on); a client that restarted must give one, as the old
// token's keys would repeat the counters they were used with. Resume
// reports whether the client was playing or resuming; it does nothing
// otherwise, or without a connect token.
func (c *Client) Resume(now Time, refreshed *token.Token) bool {
	if c.cfg.Token == nil || (c.state != StatePlaying && !c.resuming) {
		return false
	}
	c.out.reuse()
	c.events.reuse()
	if refreshed != nil {
		c.cfg.Token = refreshed
		var err error
		if c.tx, err = seal.NewSender(&refreshed.ClientToServer, handshake.HeaderSize); err != nil {
			panic(err) // the header length is a constant NewSender takes
		}
		if c.rx, err = seal.NewReceiver(&refreshed.ServerToClient, handshake.HeaderSize); err != nil {
			panic(err)
		}
	}
	if c.state == StatePlaying {
		c.startResume(now)
	} else {
		c.newAttempt() // a new address needs a new cookie
	}
	c.sendHello(now)
	return true
}

// startResume moves a playing client back to joining, to take back its
// seat: it forgets its cookie, which names the address it had, and says
// Hello afresh. The join gives up as any does, Timeout after the server
// was last heard.
func (c *Client) startResume(now Time) {
	c.state, c.resuming = StateJoining, true
	c.newAttempt()
	c.deadline = c.conn.lastRecvAt.Add(c.timeout)
	c.start = now
	c.stats.Resumes++
	c.events.push(ClientEvent{Kind: EventResuming}, nil)
	c.log.Info("resuming", "player", c.welcome.Player, "silent", time.Duration(now.Sub(c.conn.lastRecvAt)))
}

// Send sends payload to the server as one Data datagram and returns the
// sequence it went under. It fails with ErrNotPlaying unless the client is
// playing, and ErrTooLarge for a payload over MaxDataPayload.
func (c *Client) Send(payload []byte, now Time) (wire.Seq, error) {
	if c.state != StatePlaying {
		return 0, ErrNotPlaying
	}
	c.out.reuse()
	return c.sendData(payload, now)
}

// Leave ends the session from this side: it sends a Goodbye
// (handshake.GoodbyeQuit) if the client holds a token, so a seat the server
// gave is freed at once rather than at its timeout, and moves to
// StateDisconnected. Leaving is not an error: LastError stays empty and no
// EventEnded is queued. It does nothing once the session ended.
func (c *Client) Leave(now Time) {
	if c.state != StateJoining && c.state != StatePlaying {
		return
	}
	c.out.reuse()
	if c.token != 0 {
		buf := c.out.open()
		n := len(buf)
		buf = openSealed(buf, handshake.KindGoodbye, c.token, c.tx)
		buf = handshake.Goodbye{Reason: handshake.GoodbyeQuit}.Append(buf)
		buf = closeSealed(buf, n, c.tx)
		c.stats.BytesOut += uint64(len(buf) - n)
		c.out.commit(netip.AddrPort{}, buf)
	}
	c.state = StateDisconnected
}

// end moves to a final state with the sentence a player is shown.
func (c *Client) end(state ClientState, sentence string) {
	c.state, c.lastErr = state, sentence
	c.events.push(ClientEvent{Kind: EventEnded, State: state, Sentence: sentence}, nil)
	c.log.Info("session ended", "state", state.String(), "why", sentence)
}

// NextDatagram returns the oldest datagram waiting to go to the server, and
// false when none waits. The bytes alias a buffer the Client reuses: valid
// until the next call to Receive, Poll, Send or Leave.
func (c *Client) NextDatagram() ([]byte, bool) {
	_, b, ok := c.out.next()
	return b, ok
}

// NextEvent returns the oldest event not yet taken, and false when there is
// none. Drain it after each call to Receive and Poll.
func (c *Client) NextEvent() (ClientEvent, bool) {
	ev, payload, ok := c.events.next()
	ev.Payload = payload
	return ev, ok
}

// State returns where the session stands.
func (c *Client) State() ClientState { return c.state }

// LastError returns the sentence that ended the session (a refusal, the
// server's goodbye, its silence), or "" while joining or playing and after
// Leave.
func (c *Client) LastError() string { return c.lastErr }

// Refusal returns the server's Refuse, and false unless the join was
// refused.
func (c *Client) Refusal() (handshake.Refuse, bool) { return c.refusal, c.refused }

// Welcome returns the server's Welcome, and false before it arrived.
func (c *Client) Welcome() (handshake.Welcome, bool) { return c.welcome, c.welcome.Player != NoPlayer }

// Player returns the player number the server gave, or NoPlayer before the
// Welcome.
func (c *Client) Player() uint16 { return c.welcome.Player }

// Conn returns the connection core made at the Welcome, or nil before it. It
// stays readable after the session ended, for its final figures. The Client
// does the sealing and opening: the caller must not call Seal or Open on it.
func (c *Client) Conn() *Conn { return c.conn }

// Stats returns the counters so far.
func (c *Client) Stats() ClientStats { return c.stats }

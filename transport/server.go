package transport

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"slices"
	"time"

	"vkm/transport/cookie"
	"vkm/transport/handshake"
	"vkm/transport/seal"
	"vkm/transport/token"
	"vkm/wire"
)

// MaxDataPayload is the largest payload Server.Send and Client.Send take:
// what is left of MaxDatagram after the 12-byte message header, the
// sealing (counter and tag, seal.Overhead) and the connection header. It is
// the same whether or not a connection is sealed, so a game's budget does
// not depend on how its server runs.
const MaxDataPayload = MaxDatagram - handshake.HeaderSize - seal.Overhead - HeaderLen

// DefaultRemember is Auth.Remember when zero: how many accepted connect
// tokens a Server remembers until they expire (about 10 MB at most).
// Tuning constant.
const DefaultRemember = 100_000

// refusalLogEvery is the least time between two log lines about refused
// joins. A refused client keeps saying Hello until the Refuse reaches it, a
// round trip's worth of them, and anyone can forge Hellos that fail the
// checks; one line a second says what is wrong without letting either flood
// the log. Tuning constant.
const refusalLogEvery = time.Second

// retiredTokens is how many departed seats' tokens a Server remembers (see
// retiredRing): every seat of a 32-player match leaving at once, with a
// token adopted at a window turn each. The ring is fixed (2.5 KiB) and
// scanned for every tokenless Hello, so it stays small. Tuning constant.
const retiredTokens = 64

// HoldAfter is how long a seat that may be rejoined (ServerConfig.RejoinWindow)
// goes unheard before it is held: EventHeld tells the game to drive its
// entity with nothing, and from then on a Hello with the seat's client id
// takes it back. A seat still heard is not taken: that is a second
// concurrent use of the client id, refused with ReasonClientSeated. A
// playing client sends at least four datagrams a second (its keep-alive),
// 64 while it plays, so a second of silence is a lost link. Tuning constant.
const HoldAfter = time.Second

// ErrNoPlayer is returned by Server.Send for a player number that is not
// seated (never was, or has left).
var ErrNoPlayer = errors.New("transport: no such player")

// ServerConfig configures a Server.
type ServerConfig struct {
	// Hello is what this server holds, compared with every joining
	// client's Hello by handshake.Check: SchemaFP, ActionCount, ActionFP,
	// WorldFP and TickRate. Dev says the server runs in dev mode (it goes
	// out in every Welcome); Name is not used. TickRate must not be 0.
	Hello handshake.Hello

	// MaxPlayers is how many players may be seated at once, 1 to 65535. A
	// project must say; there is no default.
	MaxPlayers int

	// MaxSpectators is how many spectators (a Hello with its Spectator
	// flag) may watch at once, a bound apart from MaxPlayers: a spectator
	// takes no player seat. 0 admits none; a spectator's join is then
	// refused as full.
	MaxSpectators int
	// AdmitSpectator is asked, as Admit is about a player, whether a
	// spectator may watch. Nil admits every spectator within the bound.
	AdmitSpectator func(player uint16, name string) (handshake.Refuse, bool)

	// Rand supplies the cookie gate's 128-bit key when NewServer runs. Nil
	// means crypto/rand.Reader; tests pass a fixed reader.
	Rand io.Reader

	// Conn configures every player's connection core. The zero value gives
	// the defaults (10 s timeout, 250 ms keep-alive).
	Conn Config

	// Admit is the game's join handler. It is called once for each join
	// that has proven its address (echoed a valid token), passed the checks
	// and found a free seat, with the player number the join will get, the
	// player's name and whether the client runs in dev mode. It returns
	// true to seat the player, or false and the Refuse to send (a zero
	// Reason is handshake.ReasonDeclined); nothing of the join is then
	// kept, so a client that echoes its token again before the Refuse
	// reaches it is asked about again. Admit runs inside Receive and must
	// not call the Server. Nil admits everyone.
	Admit func(player uint16, name string, dev bool) (handshake.Refuse, bool)
	// Gate, if set, is asked before Admit about who is joining: the
	// address, and with Auth the connect token's client id (hasClient
	// false without one). It returns false, with the Refuse to send, to
	// keep them out (an operator's access list). Like Admit it runs
	// inside Receive and must not call the Server.
	Gate func(from netip.AddrPort, client uint64, hasClient bool) (handshake.Refuse, bool)
	// Password, if not empty, is the password a joining Hello must prove
	// it knows (handshake.PasswordProof); one that does not is refused
	// with handshake.ReasonPassword, before Gate and Admit.
	Password []byte

	// Auth, when set, makes the server admit only players with a connect
	// token minted under its key, and seal every datagram of a seated
	// player's connection from the Welcome on. Nil admits anyone whose
	// Hello passes the checks, and seals nothing: for development on a
	// loopback address.
	Auth *Auth

	// RejoinWindow, with Auth, is how long a seat whose link has gone
	// quiet is kept for its client to take back, counted from the last
	// datagram heard from it: the client, with the same connect token or
	// one minted afresh for the same client id, from the same address or
	// another, gets the same player number (EventRejoined), and the seat
	// is held from HoldAfter of silence until it is heard again
	// (EventHeld, EventResumed). The window replaces Conn.Timeout for a
	// seat that has played; when it passes the seat leaves with
	// handshake.GoodbyeTimeout. Zero, or no Auth, keeps no seat: without
	// a connect token nothing proves a later Hello is the same player.
	RejoinWindow time.Duration

	// HelloRate is how many Hellos a second the server reads from one
	// source IP, twice that many at once; those over it are dropped
	// unread (ServerStats.HelloLimited). Zero means HelloRate (the
	// constant); less than zero reads every one, for tests that play a
	// crowd from one address.
	HelloRate int

	// Logger receives joins and leaves at Debug and refused joins at Warn:
	// at most one line a second, carrying handshake.MismatchLine of both
	// ends for a mismatch or tick-rate refusal. Nil discards.
	Logger *slog.Logger
}

// Auth is what a Server needs to check connect tokens (transport/token)
// and seal connections (transport/seal).
type Auth struct {
	// Key is the secret the game's backend mints tokens with.
	Key token.Key
	// Addrs are the addresses this server is reachable at, as clients
	// send to it: a token must name one of them. At least one.
	Addrs []netip.AddrPort
	// Protocol is the game's protocol id (token.ProtocolID of the
	// project's name); a token minted for another is refused.
	Protocol uint64
	// Epoch is the wall-clock time at the Server's Time 0, so that the
	// Server, which is given only Time, can tell whether a token (whose
	// expiry is wall-clock) has expired.
	Epoch time.Time
	// Remember is how many accepted tokens the Server remembers, each
	// until it expires, to refuse a second join with one (token.Used).
	// Zero or less means DefaultRemember.
	Remember int
}

// EventKind says what a ServerEvent or ClientEvent reports.
type EventKind uint8

// The event kinds.
const (
	// EventJoined (server): a player was seated. Player, Addr, Name, Dev.
	EventJoined EventKind = iota + 1
	// EventLeft (server): a player left, for Reason, and is gone: its
	// number no longer works with Send or Conn.
	EventLeft
	// EventData (both): a Data datagram's payload arrived. Empty payloads
	// (keep-alives) make no event.
	EventData
	// EventWelcome (client): the server seated this client; Welcome holds
	// the player number, the server's tick, its seat count and tick rate.
	EventWelcome
	// EventEnded (client): the client was refused or disconnected; State
	// and Sentence say which and why.
	EventEnded
	// EventHeld (server): a seat that may be rejoined has not been heard
	// for HoldAfter; nobody drives its player until EventResumed. Player.
	EventHeld
	// EventResumed (server): a held seat was heard again, over its old
	// connection or a rejoined one. Player.
	EventResumed
	// EventRejoined (server): a held seat's client said Hello again and
	// took it back, perhaps from another address: its Conn is new (what
	// was sent over the old one will never be acknowledged), its number
	// and everything the game keeps for it are the same. Player, Addr,
	// Name.
	EventRejoined
	// EventResuming (client): the server went quiet for ResumeAfter, and
	// the client is joining again with its connect token to take back its
	// seat; EventWelcome says when it has.
	EventResuming
)

// String returns the kind's name.
// Not made by stringer, which would spell an unknown kind EventKind(9), not event(9).
func (k EventKind) String() string {
	switch k {
	case EventJoined:
		return "joined"
	case EventLeft:
		return "left"
	case EventData:
		return "data"
	case EventWelcome:
		return "welcome"
	case EventEnded:
		return "ended"
	case EventHeld:
		return "held"
	case EventResumed:
		return "resumed"
	case EventRejoined:
		return "rejoined"
	case EventResuming:
		return "resuming"
	}
	return fmt.Sprintf("event(%d)", uint8(k))
}

// ServerEvent is something that happened to a Server's players. Which fields
// are set depends on Kind (see the EventKind constants).
type ServerEvent struct {
	Kind   EventKind
	Player uint16         // the player it concerns (every kind)
	Addr   netip.AddrPort // where it joined from (EventJoined, EventRejoined)
	Name   string         // its name, or "Player N" if it gave none (EventJoined, EventRejoined)
	Dev    bool           // it runs in dev mode (EventJoined)
	// Spectator says it joined to watch (EventJoined): it holds no
	// player seat.
	Spectator bool
	Reason    handshake.GoodbyeReason // why it left (EventLeft)
	// Payload is the Data's payload. It aliases a buffer the Server
	// reuses: it is valid until the next call to Receive, Poll, Goodbye or
	// Kick, and the caller must copy what it keeps.
	Payload []byte
	// Seq is the sequence number the Data arrived under.
	Seq wire.Seq
}

// ServerStats counts what a Server has done since it was made. It is a plain
// value, safe to copy.
type ServerStats struct {
	Drops
	Challenges uint64 // Challenges sent
	Welcomes   uint64 // Welcomes sent, repeats included
	Joins      uint64 // players seated
	Leaves     uint64 // players gone, for any reason
	Holds      uint64 // seats held (EventHeld)
	Rejoins    uint64 // held seats taken back (EventRejoined)
	// HelloLimited counts Hellos dropped unread over their source IP's
	// rate (HelloRate).
	HelloLimited uint64
	// Refusals counts the Refuses sent, indexed by handshake.Reason.
	Refusals [handshake.ReasonCount]uint64
	// PacketsIn and BytesIn count every datagram handed to Receive, dropped
	// ones included; PacketsOut and BytesOut every one NextDatagram handed
	// out to send. Bytes are whole datagrams, headers included.
	PacketsIn, BytesIn   uint64
	PacketsOut, BytesOut uint64
}

// PlayerInfo describes one seated player, for a status line or a player list.
type PlayerInfo struct {
	Player uint16
	Addr   netip.AddrPort // the address its seat answers to
	// Client is the connect token's client id, when Authed (with Auth).
	Client uint64
	Authed bool
	Name   string
	Dev    bool
	// Spectator says it watches rather than plays.
	Spectator bool
	JoinedAt  Time // when it was seated
	// Playing is true once the player's first Data arrived, which says the
	// Welcome reached it; from then on its token is fixed.
	Playing  bool
	RTT      time.Duration // Conn.RTT; 0 before the first sample
	Loss     float64       // Conn.Loss, 0..1
	BytesIn  uint64        // whole datagrams heard from the player, headers included
	BytesOut uint64        // whole datagrams sent to the player, headers included
}

// player is one seated player. Everything here is made when the player is
// seated and dropped when it leaves; nothing carries over to whoever takes
// the seat or the number next.
type player struct {
	num      uint16
	addr     netip.AddrPort
	token    uint64 // the token its datagrams carry
	seatedBy uint64 // the token its join echoed (token may adopt another)
	name     string
	dev      bool
	// spectator: it watches, counted against MaxSpectators.
	spectator bool
	conn      *Conn
	playing   bool // a Data from it was accepted over its current Conn
	played    bool // a Data from it was ever accepted
	held      bool // unheard for HoldAfter, with a rejoin window
	meter     seatMeter
	joinedAt  Time
	bytesIn   uint64
	bytesOut  uint64
	// attempt is the nonce of the Hello that seated it (or took it back):
	// its cookie is bound to it.
	attempt uint64
	// With Auth: the token's client id and nonce, and the seals of the
	// two directions (nil without Auth).
	client uint64
	nonce  [token.NonceSize]byte
	tx     *seal.Sender
	rx     *seal.Receiver
	// attempts are the nonces of the join attempts that seated it or took
	// it back, newest at attempts[0]: a Hello of one of them, replayed by
	// someone who saw it, takes nothing again.
	attempts [seatAttempts]uint64
}

// seatAttempts is how many join attempts a seat remembers. A cookie lives
// at most two windows (20 s) and a takeover needs a held seat, so a
// replayed Hello older than the last few attempts no longer proves its
// address anyway.
const seatAttempts = 8

// tookBy reports whether the join attempt nonce seated p or took it back.
func (p *player) tookBy(nonce uint64) bool {
	for _, n := range p.attempts {
		if n == nonce && n != 0 {
			return true
		}
	}
	return false
}

// took remembers that the join attempt nonce seated p or took it back.
func (p *player) took(nonce uint64) {
	copy(p.attempts[1:], p.attempts[:])
	p.attempts[0] = nonce
	p.attempt = nonce
}

// Server is the sans-IO server half of a session: it answers joins, holds
// the seated players, and carries Data to and from them. It owns no socket:
// the caller hands it each arriving datagram with its source address and
// sends what NextDatagram returns, and calls Poll at NextDeadline.
//
// A join, as the Server sees it:
//
//	Hello, token not valid ──▶ Check fails:   Refuse (Mismatch, TickRate)  ┐
//	                           server full:   Refuse(Full)                 ├ nothing kept
//	                           otherwise:     Challenge(token)             ┘
//	Hello, valid token ──────▶ Check, Full as above; with Auth, the connect
//	                           token opened: missing, forged, expired, for
//	                           another address or game, used, or its client
//	                           seated elsewhere: Refuse (NoToken .. ClientSeated)
//	                           Admit(number) false: its Refuse (Declined, JoinFailed)
//	                           Admit true: seat (number, Conn), Welcome, EventJoined
//	Hello, valid token, its
//	  client's seat held ────▶ the seat moves to this address: new Conn,
//	                           same number, Welcome, EventRejoined
//	Hello, from a seat ──────▶ Welcome again
//	Hello, valid token of a
//	  seat that left ────────▶ dropped: a Hello sent before a Goodbye or Kick
//	Data, Goodbye ───────────▶ looked up by source address; token checked
//	                           before the Conn sees it
//
// With Auth, everything a seat sends and is sent from the Welcome on is
// sealed (transport/seal) with the session keys of its connect token, the
// message header authenticated in the clear: a datagram that does not
// open is dropped and counted (Drops.Forged, Drops.Replayed) before
// anything of the seat, its token or its Conn, is touched.
//
// A seat is found by its address and proven by its token: a player whose
// address changes (a NAT rebinding) is not followed by its datagrams. With
// Auth and a RejoinWindow its client, hearing nothing, joins again from the
// new address with its connect token and takes the held seat back
// (EventRejoined); without them it times out while it joins afresh.
//
// Use NewServer; the zero value is not ready. A Server is not safe for
// concurrent use: one goroutine drives it.
type Server struct {
	cfg     ServerConfig
	timeout time.Duration
	gate    *cookie.Gate
	log     *slog.Logger
	byAddr  map[netip.AddrPort]*player
	byNum   map[uint16]*player
	seated  []*player // in no particular order; Poll walks it
	nums    numbers
	tick    uint32
	out     outbox
	events  eventQueue[ServerEvent]
	stats   ServerStats
	// closedTo, once CloseJoins set it, answers every new join.
	closedTo *handshake.Refuse
	logQuiet refusalLog
	retired  retiredRing
	hellos   *helloLimit
	seatRate float64 // datagrams a second a seat may send
	// With Auth: the accepted tokens, the seats by client id, and the
	// buffer a sealed datagram is opened into.
	used     *token.Used
	byClient map[uint64]*player
	plain    []byte
	// refusals counts the sealed Refuses sent, from a random start, for
	// their counters (handshake.SealedRefuseBit set).
	refusals uint64
	// guests are the players sharing seated players' connections
	// (guests.go).
	guests guestSeats
}

// NewServer returns a Server with no players. It fails if MaxPlayers is out
// of range, the tick rate is 0, or Rand cannot supply a key.
func NewServer(cfg ServerConfig) (*Server, error) {
	if cfg.MaxPlayers < 1 || cfg.MaxPlayers > 65535 {
		return nil, fmt.Errorf("transport: MaxPlayers %d outside 1..65535", cfg.MaxPlayers)
	}
	if cfg.Hello.TickRate == 0 {
		return nil, errors.New("transport: server tick rate is 0")
	}
	if cfg.RejoinWindow < 0 {
		return nil, fmt.Errorf("transport: RejoinWindow %v is negative", cfg.RejoinWindow)
	}
	gate, err := cookie.New(cfg.Rand)
	if err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		cfg:      cfg,
		timeout:  cfg.Conn.withDefaults().Timeout,
		gate:     gate,
		log:      log,
		byAddr:   make(map[netip.AddrPort]*player),
		byNum:    make(map[uint16]*player),
		hellos:   newHelloLimit(cfg.HelloRate),
		seatRate: seatRate(cfg.Hello.TickRate),
	}
	if a := cfg.Auth; a != nil {
		if len(a.Addrs) == 0 {
			return nil, errors.New("transport: Auth names no address tokens must name")
		}
		remember := a.Remember
		if remember <= 0 {
			remember = DefaultRemember
		}
		s.used = token.NewUsed(remember)
		s.byClient = make(map[uint64]*player)
		s.plain = make([]byte, 0, MaxDatagram)
		// A random start keeps two server processes under one token's
		// keys (a restart, a second server it names) from choosing the
		// same counter for a sealed Refuse.
		// It comes from crypto/rand whatever Rand is: no test reads it.
		var start [8]byte
		if _, err := io.ReadFull(crand.Reader, start[:]); err != nil {
			return nil, fmt.Errorf("transport: drawing the sealed refusals' counter: %w", err)
		}
		s.refusals = binary.LittleEndian.Uint64(start[:]) >> 2
	}
	return s, nil
}

// SetTick sets the server tick that Welcomes carry from now on, where a
// joining client starts its clock. The host calls it every tick.
func (s *Server) SetTick(tick uint32) { s.tick = tick }

// Send sends payload to a seated player as one Data datagram and returns the
// sequence it went under, which the player's Conn can later say was
// acknowledged or lost. It fails with ErrNoPlayer for a number not seated
// and ErrTooLarge for a payload over MaxDataPayload. An empty payload is a
// keep-alive.
//
// The client drops Data until the Welcome reaches it; PlayerInfo.Playing
// says when it has.
func (s *Server) Send(player uint16, payload []byte, now Time) (wire.Seq, error) {
	p := s.byNum[player]
	if p == nil {
		return 0, ErrNoPlayer
	}
	s.out.reuse()
	return s.sendData(p, payload, now)
}

// sendData queues a Data datagram to p.
func (s *Server) sendData(p *player, payload []byte, now Time) (wire.Seq, error) {
	n, seq, err := sealData(&s.out, p.addr, p.token, p.conn, p.tx, payload, now)
	p.bytesOut += uint64(n)
	return seq, err
}

// sealData queues, in out, a Data datagram to addr: the message header with
// token, then what conn.Seal makes of payload, sealed by tx when it is not
// nil. It returns the datagram's length (0 when it failed).
func sealData(out *outbox, to netip.AddrPort, token uint64, conn *Conn, tx *seal.Sender, payload []byte, now Time) (int, wire.Seq, error) {
	if len(payload) > MaxDataPayload {
		return 0, 0, ErrTooLarge
	}
	buf := out.open()
	start := len(buf)
	buf = openSealed(buf, handshake.KindData, token, tx)
	// Seal counts what it is given as our header against MaxDatagram, so
	// give it this datagram alone. open left room for MaxDatagram bytes,
	// and the check above keeps the datagram within them, tag included, so
	// everything appends in place.
	d, seq, err := conn.Seal(buf[start:], payload, now)
	if err != nil {
		return 0, 0, err
	}
	buf = closeSealed(buf[:start+len(d)], start, tx)
	out.commit(to, buf)
	return len(buf) - start, seq, nil
}

// openSealed appends a message header of kind with token to buf, and when
// tx is not nil the room for the counter, which closeSealed fills.
func openSealed(buf []byte, kind handshake.Kind, token uint64, tx *seal.Sender) []byte {
	buf = handshake.Header{Version: handshake.Version, Kind: kind, Token: token}.Append(buf)
	if tx != nil {
		buf = append(buf, make([]byte, seal.CounterSize)...)
	}
	return buf
}

// closeSealed seals, in place, the datagram openSealed started at
// buf[start:] and whose body has since been appended, when tx is not nil:
// the header stays in the clear as associated data, the counter is written
// after it, the body is encrypted and the tag appended.
func closeSealed(buf []byte, start int, tx *seal.Sender) []byte {
	if tx == nil {
		return buf
	}
	h := start + handshake.HeaderSize
	return tx.Seal(buf[:start], buf[start:h], buf[h+seal.CounterSize:])
}

// Poll does what is due at now: a player not heard from for the connection
// timeout leaves (EventLeft with handshake.GoodbyeTimeout, and a Goodbye
// saying so is sent in case only one direction failed), and a playing player
// not sent anything for the keep-alive interval gets an empty Data. Call it
// at NextDeadline or more often.
func (s *Server) Poll(now Time) {
	s.out.reuse()
	s.events.reuse()
	for i := 0; i < len(s.seated); {
		p := s.seated[i]
		if s.rejoinable(p) {
			silent := now.Sub(p.conn.lastRecvAt)
			if silent >= s.cfg.RejoinWindow {
				s.sendGoodbye(p, handshake.GoodbyeTimeout)
				s.remove(p, handshake.GoodbyeTimeout)
				continue
			}
			if !p.held && silent >= HoldAfter {
				s.hold(p)
			}
			if p.playing && p.conn.NeedsKeepAlive(now) {
				_, _ = s.sendData(p, nil, now)
			}
			i++
			continue
		}
		if p.conn.TimedOut(now) {
			s.sendGoodbye(p, handshake.GoodbyeTimeout)
			s.remove(p, handshake.GoodbyeTimeout) // moves the last player to i
			continue
		}
		if p.playing && p.conn.NeedsKeepAlive(now) {
			_, _ = s.sendData(p, nil, now) // an empty payload always fits
		}
		i++
	}
}

// NextDeadline returns when Poll next has something to do if nothing
// arrives meanwhile, and false when no player is seated. A player who has
// not yet sent Data is sent nothing, so only its timeout counts.
func (s *Server) NextDeadline() (Time, bool) {
	var next Time
	for i, p := range s.seated {
		d := p.joinedAt.Add(s.timeout)
		switch {
		case s.rejoinable(p):
			d = p.conn.lastRecvAt.Add(s.cfg.RejoinWindow)
			if !p.held {
				d = min(d, p.conn.lastRecvAt.Add(HoldAfter))
			}
			if p.playing {
				d = min(d, p.conn.keepAliveAt())
			}
		case p.playing:
			d = p.conn.NextDeadline()
		}
		if i == 0 || d < next {
			next = d
		}
	}
	return next, len(s.seated) > 0
}

// Goodbye tells every seated player the server is shutting down
// (handshake.GoodbyeShutdown) and removes them all, each with an EventLeft.
// The Goodbye is sent once; a client that misses it times out.
func (s *Server) Goodbye(now Time) {
	s.out.reuse()
	s.events.reuse()
	for len(s.seated) > 0 {
		p := s.seated[len(s.seated)-1]
		s.sendGoodbye(p, handshake.GoodbyeShutdown)
		s.remove(p, handshake.GoodbyeShutdown)
	}
}

// Kick removes a seated player, sending it a Goodbye with
// handshake.GoodbyeKicked, and reports whether it was seated.
func (s *Server) Kick(player uint16, now Time) bool {
	return s.End(player, handshake.GoodbyeKicked, now)
}

// End removes a seated player for reason, sending it a Goodbye that says
// so (every seat the server ends is told why; only a player's own quit
// goes untold, as it said it first), and reports whether it was seated.
// The game calls it with handshake.GoodbyeProtocol for a client that broke
// the protocol above the transport.
func (s *Server) End(player uint16, reason handshake.GoodbyeReason, now Time) bool {
	p := s.byNum[player]
	if p == nil {
		return false
	}
	s.out.reuse()
	s.events.reuse()
	s.sendGoodbye(p, reason)
	s.remove(p, reason)
	return true
}

// rejoinable reports whether p's seat is kept for a rejoin when its link
// goes quiet: the server has a window and a key, and p has played.
func (s *Server) rejoinable(p *player) bool {
	return s.cfg.RejoinWindow > 0 && p.rx != nil && p.played
}

// hold marks p's seat held: its link is quiet, and its client may take it
// back with a Hello.
func (s *Server) hold(p *player) {
	p.held = true
	s.stats.Holds++
	s.events.push(ServerEvent{Kind: EventHeld, Player: p.num}, nil)
	s.log.Debug("player held", "player", p.num, "addr", p.addr)
}

// sendGoodbye queues a Goodbye to p.
func (s *Server) sendGoodbye(p *player, reason handshake.GoodbyeReason) {
	buf := s.out.open()
	n := len(buf)
	buf = openSealed(buf, handshake.KindGoodbye, p.token, p.tx)
	buf = handshake.Goodbye{Reason: reason}.Append(buf)
	buf = closeSealed(buf, n, p.tx)
	p.bytesOut += uint64(len(buf) - n)
	s.out.commit(p.addr, buf)
}

// remove unseats p: its number, its Conn and everything else about it go,
// and an EventLeft says why.
func (s *Server) remove(p *player, reason handshake.GoodbyeReason) {
	delete(s.byAddr, p.addr)
	delete(s.byNum, p.num)
	if p.rx != nil && s.byClient[p.client] == p {
		delete(s.byClient, p.client)
	}
	if i := slices.Index(s.seated, p); i >= 0 {
		last := len(s.seated) - 1
		s.seated[i] = s.seated[last]
		s.seated[last] = nil
		s.seated = s.seated[:last]
	}
	s.nums.release(p.num)
	s.dropGuests(p)
	if reason != handshake.GoodbyeTimeout {
		// A deliberate departure: a Hello still on its way must not seat
		// the player again. After a timeout one may, since a client still
		// saying Hello is still trying to join.
		s.retired.add(p.addr, p.token)
		if p.seatedBy != p.token {
			s.retired.add(p.addr, p.seatedBy)
		}
	}
	s.stats.Leaves++
	s.events.push(ServerEvent{Kind: EventLeft, Player: p.num, Reason: reason}, nil)
	s.log.Debug("player left", "player", p.num, "reason", reason.String())
}

// NextDatagram returns the oldest datagram waiting to be sent, with its
// destination, and false when none waits. The bytes alias a buffer the Server
// reuses: they are valid until the next call to Receive, Send, Poll, Goodbye
// or Kick, so write them to the socket (or copy them) before then. Drain it
// after each of those calls.
func (s *Server) NextDatagram() (netip.AddrPort, []byte, bool) {
	to, b, ok := s.out.next()
	if ok {
		s.stats.PacketsOut++
		s.stats.BytesOut += uint64(len(b))
	}
	return to, b, ok
}

// NextEvent returns the oldest event not yet taken, and false when there is
// none. Drain it after each call to Receive, Poll, Goodbye or Kick.
func (s *Server) NextEvent() (ServerEvent, bool) {
	ev, payload, ok := s.events.next()
	ev.Payload = payload
	return ev, ok
}

// Players appends a description of every seated player to dst, in order of
// player number, and returns the extended slice. now is for the loss figure.
func (s *Server) Players(dst []PlayerInfo, now Time) []PlayerInfo {
	start := len(dst)
	for _, p := range s.seated {
		dst = append(dst, PlayerInfo{
			Player: p.num, Addr: p.addr, Name: p.name, Dev: p.dev, Spectator: p.spectator,
			Client: p.client, Authed: p.rx != nil,
			JoinedAt: p.joinedAt, Playing: p.playing,
			RTT: p.conn.RTT(), Loss: p.conn.Loss(now),
			BytesIn: p.bytesIn, BytesOut: p.bytesOut,
		})
	}
	slices.SortFunc(dst[start:], func(a, b PlayerInfo) int { return int(a.Player) - int(b.Player) })
	return dst
}

// AppendPlaying appends the number of every seated player whose Data has
// been accepted (PlayerInfo.Playing) to dst, in ascending order, and returns
// the extended slice: what a send round needs of the seats, without the
// loss figure Players works out for each.
func (s *Server) AppendPlaying(dst []uint16) []uint16 {
	start := len(dst)
	for _, p := range s.seated {
		if p.playing {
			dst = append(dst, p.num)
		}
	}
	slices.Sort(dst[start:])
	return dst
}

// PlayerCount returns how many players are seated, guests included and
// spectators left out (Spectators counts them): the seats taken.
func (s *Server) PlayerCount() int { return s.seatsTaken() }

// Conn returns the connection core of a seated player, or nil for a number
// not seated. Replication asks it whether a sent sequence was acknowledged
// or lost, and reads RTT and loss. The Server does the sealing and opening:
// the caller must not call Seal or Open on it. It belongs to this player
// only, and is dropped when the player leaves.
func (s *Server) Conn(player uint16) *Conn {
	if p := s.byNum[player]; p != nil {
		return p.conn
	}
	return nil
}

// Stats returns the counters so far.
func (s *Server) Stats() ServerStats { return s.stats }

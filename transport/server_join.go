package transport

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/netip"
	"strconv"
	"time"

	"vkm/transport/handshake"
	"vkm/transport/seal"
	"vkm/transport/token"
	"vkm/wire"
)

// Receive takes one datagram that arrived from the address from at now. It
// never fails: whatever cannot be acted on is dropped and counted (Stats).
// The datagram is not kept; the caller may reuse it as soon as Receive
// returns. Afterwards drain NextDatagram and NextEvent.
//
// What the rules guarantee, whatever arrives: a Hello that has not echoed a
// valid token is answered (Challenge or Refuse) and leaves nothing behind;
// no answer to a Hello is larger than the Hello; and a datagram whose token
// is not its seat's is dropped before the seat's Conn sees it, so it can
// neither move the Conn's window nor acknowledge anything.
func (s *Server) Receive(from netip.AddrPort, datagram []byte, now Time) {
	s.out.reuse()
	s.events.reuse()
	s.stats.PacketsIn++
	s.stats.BytesIn += uint64(len(datagram))
	// One peer, one key: an IPv4 peer seen through a dual-stack socket as
	// an IPv4-mapped IPv6 address is the same peer.
	from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
	if len(datagram) > MaxDatagram {
		s.stats.Oversize++
		return
	}
	h, _, verdict := handshake.Classify(datagram)
	switch verdict {
	case handshake.VerdictRead:
	case handshake.VerdictAnswerVersion:
		if !s.hellos.allow(from.Addr(), now) {
			s.stats.HelloLimited++
			return
		}
		r := handshake.VersionRefusal(handshake.Version, h.Version)
		s.refuse(asker{addr: from, cookie: h.Token, limit: len(datagram)}, r)
		s.logRefusal(from, r, nil, now)
		return
	case handshake.VerdictRefusedVersion:
		s.stats.Unexpected++ // a Refuse answers a client's Hello; a server sends none
		return
	default:
		s.stats.dropUnread(datagram)
		return
	}
	switch h.Kind {
	case handshake.KindHello:
		if !s.hellos.allow(from.Addr(), now) {
			s.stats.HelloLimited++
			return
		}
		s.receiveHello(from, h.Token, datagram, now)
	case handshake.KindData:
		s.receiveData(from, h.Token, datagram, now)
	case handshake.KindGoodbye:
		s.receiveGoodbye(from, h.Token, datagram, now)
	default: // Challenge, Welcome, Refuse: a server's own messages
		s.stats.Unexpected++
	}
}

// asker is the Hello an answer goes to: its source address, the cookie it
// echoed (0 for none), its nonce, the datagram's length (the most an answer
// may be) and, once its connect token has been opened and proven, the
// token's claims, whose keys seal every refusal from then on.
type asker struct {
	addr   netip.AddrPort
	cookie uint64
	nonce  uint64
	limit  int
	keys   *token.Claims
}

// receiveHello applies the join rules to the Hello datagram from from.
func (s *Server) receiveHello(from netip.AddrPort, cookie uint64, datagram []byte, now Time) {
	hello, err := handshake.ParseHello(datagram[handshake.HeaderSize:])
	if err != nil {
		s.stats.Malformed++
		return
	}
	size := len(datagram)
	a := asker{addr: from, cookie: cookie, nonce: hello.Nonce, limit: size}
	proven := s.gate.Check(from, hello.Nonce, cookie, time.Duration(now))
	// With a key, a proven Hello's connect token is opened first. A
	// genuine token whose proof fails is a copy without its keys, sent by
	// someone who saw it: nothing it asks for is answered. A proven one
	// gives the keys every refusal from here on is sealed under.
	var claims token.Claims
	var openErr error = token.ErrMalformed
	if s.cfg.Auth != nil && proven && hello.Token != nil {
		claims, openErr = s.openClaims(hello.Token, s.cfg.Auth.Epoch.Add(time.Duration(now)))
		if openErr == nil || errors.Is(openErr, token.ErrExpired) || errors.Is(openErr, token.ErrWrongServer) {
			if !handshake.Proven(datagram, &claims.ClientToServer) {
				s.stats.Unproven++
				return
			}
			a.keys = &claims
		}
	}
	if r, ok := handshake.Check(s.cfg.Hello, hello); !ok {
		if s.cfg.Auth != nil && !proven {
			// A server with a key refuses only a proven Hello, so that
			// a client with a token hears the refusal sealed.
			s.challenge(a, now)
			return
		}
		s.refuse(a, r)
		s.logRefusal(from, r, &hello, now)
		return
	}
	if cookie == 0 {
		// A client starting afresh, perhaps on the address:port of one
		// that left: its window's cookie is the departed seat's again.
		s.retired.forget(from)
	}
	seat := s.byAddr[from]
	if s.cfg.RejoinWindow > 0 && a.keys != nil && openErr == nil && (seat == nil || seat.played) &&
		s.tryRejoin(a, hello, now) {
		return
	}
	if seat != nil && seat.playing && proven {
		// A playing client never says Hello again: this is a client
		// restarted on the same address:port within the cookie's window.
		// The old seat stays until it times out; the new join waits for it
		// rather than inheriting the old player's connection and number.
		s.stats.BadToken++
		return
	}
	if seat != nil && hello.Nonce == seat.attempt && s.seatToken(seat, cookie, now, false) {
		if seat.rx != nil && (a.keys == nil || !sameToken(seat, hello.Token)) {
			// The seat's cookie with another connect token, or none,
			// or one not proven: a client restarted on the same port, or
			// a copy. The seat stays until it times out.
			s.stats.BadToken++
			return
		}
		s.seatToken(seat, cookie, now, true)
		seat.bytesIn += uint64(size)
		s.welcome(seat, size) // the Welcome was lost, or the cookie changed
		return
	}
	switch {
	case seat != nil && proven:
		// A proven join from an address whose seat plays under another
		// cookie: a client restarted on the same port. The seat stays until
		// it times out; the new join waits for it.
		s.stats.BadToken++
		return
	case seat == nil && proven && s.retired.has(from, cookie):
		// The cookie of a seat that has been vacated: a Hello its player
		// sent before the Welcome reached it, delayed past its Goodbye or
		// Kick. It must not seat a player who is gone.
		s.stats.Retired++
		return
	case !proven && s.cfg.Auth != nil:
		// With a key, proof comes first: a stopping or full server
		// answers only once it can seal the answer.
		s.challenge(a, now)
		return
	case seat == nil && s.closedTo != nil:
		// Stopping: a new player hears that, full or not.
		s.refuse(a, *s.closedTo)
		s.logRefusal(from, *s.closedTo, &hello, now)
		return
	case seat == nil && s.full(hello.Spectator):
		full := handshake.Refuse{Reason: handshake.ReasonFull, MaxPlayers: uint16(s.cfg.MaxPlayers)}
		s.refuse(a, full)
		s.logRefusal(from, full, &hello, now)
		return
	case !proven:
		// Nothing proven, nothing kept: the cookie is a hash, not a record.
		s.challenge(a, now)
		return
	}
	var seatClaims *token.Claims
	if s.cfg.Auth != nil {
		if r, ok := s.judgeToken(hello.Token, claims, openErr, now); !ok {
			s.refuse(a, r)
			s.logRefusal(from, r, &hello, now)
			return
		}
		seatClaims = &claims
	}
	s.admit(a, hello, seatClaims, now)
}

// challenge answers the Hello a with a Challenge carrying a fresh cookie
// for its address and nonce.
func (s *Server) challenge(a asker, now Time) {
	c := s.gate.Token(a.addr, a.nonce, time.Duration(now))
	if s.answer(a.addr, c, handshake.Challenge{Nonce: a.nonce}, a.limit) > 0 {
		s.stats.Challenges++
	}
}

// sameToken reports whether sealed is the connect token p was seated with:
// a client repeating its Hello until the Welcome reaches it sends the same
// one. The nonce, in the token's clear part, tells it; a forgery of it is
// refused once it comes to be opened.
func sameToken(p *player, sealed *[handshake.TokenSize]byte) bool {
	const at = 25 // the nonce's offset in the sealed token (transport/token)
	return sealed != nil && bytes.Equal(sealed[at:at+token.NonceSize], p.nonce[:])
}

// judgeToken says whether the connect token a proven Hello carries may
// seat a player at now, given what opening it gave (claims and err), and
// otherwise returns the Refuse that says what is wrong. Only a Hello that
// echoed a valid cookie gets here, so a forged source address costs the
// server no decryption; and nothing is kept of a token refused.
func (s *Server) judgeToken(sealed *[handshake.TokenSize]byte, c token.Claims, err error, now Time) (handshake.Refuse, bool) {
	if sealed == nil {
		return handshake.Refuse{Reason: handshake.ReasonNoToken}, false
	}
	wall := s.cfg.Auth.Epoch.Add(time.Duration(now))
	refuse := func(r handshake.Reason, detail string) (handshake.Refuse, bool) {
		return handshake.Refuse{Reason: r, Detail: detail}, false
	}
	switch {
	case errors.Is(err, token.ErrExpired):
		return refuse(handshake.ReasonTokenExpired, "")
	case errors.Is(err, token.ErrWrongServer):
		return refuse(handshake.ReasonWrongServer, "")
	case errors.Is(err, token.ErrForged):
		return refuse(handshake.ReasonBadToken, "forged or minted with another key")
	case err != nil:
		return refuse(handshake.ReasonBadToken, "malformed")
	case c.Protocol != s.cfg.Auth.Protocol:
		return refuse(handshake.ReasonBadToken, "minted for another game")
	case s.used.Has(c.Nonce, wall):
		return refuse(handshake.ReasonTokenUsed, "")
	case s.byClient[c.Client] != nil:
		// The client is seated, and tryRejoin did not give the seat back:
		// the server keeps no seats for rejoins, or this one is still
		// heard (a second use of the client id at once), or it has not
		// played yet.
		return refuse(handshake.ReasonClientSeated, "")
	}
	return handshake.Refuse{}, true
}

// openClaims opens a sealed connect token at wall-clock time wall, trying
// each of the server's addresses.
func (s *Server) openClaims(sealed *[handshake.TokenSize]byte, wall time.Time) (token.Claims, error) {
	a := s.cfg.Auth
	var c token.Claims
	var err error
	for _, addr := range a.Addrs {
		c, err = token.Open(&a.Key, sealed[:], wall, addr)
		if !errors.Is(err, token.ErrWrongServer) {
			break
		}
	}
	return c, err
}

// tryRejoin gives a held seat back to the client whose proven Hello a
// carries a connect token for the seat's client id (a.keys, opened and its
// proof checked), and reports whether it dealt with the Hello. The token is
// the seat's own (already used, by this seat: the one use it may be put to
// again) or a fresh one for the same client id. A seat still heard is
// refused to it (ReasonClientSeated); a token of another game, a client not
// seated and a fresh token used before are left to the join rules, which
// refuse them as they would any join. A Hello of a join attempt that
// already took the seat, replayed, takes nothing.
func (s *Server) tryRejoin(a asker, hello handshake.Hello, now Time) bool {
	c := a.keys
	wall := s.cfg.Auth.Epoch.Add(time.Duration(now))
	if c.Protocol != s.cfg.Auth.Protocol {
		return false
	}
	p := s.byClient[c.Client]
	switch {
	case p == nil || !p.played:
		return false
	case c.Nonce != p.nonce && s.used.Has(c.Nonce, wall):
		return false
	case p.held && !p.playing && p.addr == a.addr && p.attempt == a.nonce:
		// The rejoin's Welcome was lost, or this is another of the Hellos
		// the client said before it arrived (perhaps echoing a newer
		// cookie of the same attempt, as a window turned): welcomed
		// again, on the same new Conn.
		p.token, p.seatedBy = a.cookie, a.cookie
		p.bytesIn += uint64(a.limit)
		s.welcome(p, a.limit)
		return true
	case !p.held:
		r := handshake.Refuse{Reason: handshake.ReasonClientSeated}
		s.refuse(a, r)
		s.logRefusal(a.addr, r, &hello, now)
		return true
	case p.tookBy(hello.Nonce):
		// A Hello of an attempt that already took the seat, from
		// another address or under another cookie: a copy.
		s.stats.Replayed++
		return true
	case s.byAddr[a.addr] != nil && s.byAddr[a.addr] != p:
		// Another seat answers to this address: a client restarted on a
		// port a seated player still holds. It waits for that seat to go.
		s.stats.BadToken++
		return true
	}
	s.rejoin(p, a, now)
	return true
}

// rejoin moves the held seat p to the proven Hello a and its token's
// claims: a new Conn, and with a fresh token its seals; the seals of the
// same token carry on, so neither end repeats a counter under its keys. The
// player's number, name and everything the game holds for it stay.
func (s *Server) rejoin(p *player, a asker, now Time) {
	c := a.keys
	if p.addr != a.addr {
		delete(s.byAddr, p.addr)
		p.addr = a.addr
		s.byAddr[a.addr] = p
	}
	p.token, p.seatedBy = a.cookie, a.cookie
	p.took(a.nonce)
	if c.Nonce != p.nonce {
		tx, rx := sealers(c)
		s.used.Seen(c.Nonce, c.Expires, s.cfg.Auth.Epoch.Add(time.Duration(now)))
		p.nonce, p.tx, p.rx = c.Nonce, tx, rx
	}
	p.conn = NewConn(s.cfg.Conn, now)
	p.playing = false
	p.bytesIn += uint64(a.limit)
	s.stats.Rejoins++
	s.events.push(ServerEvent{Kind: EventRejoined, Player: p.num, Addr: a.addr, Name: p.name}, nil)
	s.log.Debug("player rejoined", "player", p.num, "addr", a.addr)
	s.welcome(p, a.limit)
}

// admit seats from, whose Hello echoed a valid cookie (and, with Auth,
// whose connect token claims says who it is), if the game accepts it.
func (s *Server) admit(a asker, hello handshake.Hello, claims *token.Claims, now Time) {
	from, token, size := a.addr, a.cookie, a.limit
	num, ok := s.nums.peek()
	if !ok { // 65535 seated: only reachable with MaxPlayers 65535
		s.refuse(a, handshake.Refuse{Reason: handshake.ReasonFull, MaxPlayers: uint16(s.cfg.MaxPlayers)})
		return
	}
	name := hello.Name
	if claims != nil && claims.Name != "" {
		// The backend vouches for this name; the Hello's is the player's
		// own say.
		name = claims.Name
	}
	if name == "" {
		name = "Player " + strconv.Itoa(int(num))
	}
	if len(s.cfg.Password) > 0 && !handshake.PasswordProven(hello, s.cfg.Password, a.cookie) {
		r := handshake.Refuse{Reason: handshake.ReasonPassword}
		s.refuse(a, r)
		s.logRefusal(from, r, &hello, now)
		return
	}
	if s.cfg.Gate != nil {
		var client uint64
		if claims != nil {
			client = claims.Client
		}
		if r, ok := s.cfg.Gate(from, client, claims != nil); !ok {
			if r.Reason == 0 {
				r.Reason = handshake.ReasonDeclined
			}
			s.refuse(a, r)
			s.logRefusal(from, r, &hello, now)
			return
		}
	}
	if admit := s.admitFor(hello.Spectator); admit != nil {
		if r, ok := admit(num, name, hello.Dev); !ok {
			if r.Reason == 0 {
				r.Reason = handshake.ReasonDeclined
			}
			s.refuse(a, r)
			s.logRefusal(from, r, &hello, now)
			return
		}
	}
	p := &player{
		num: num, addr: from, token: token, seatedBy: token, name: name, dev: hello.Dev,
		joinedAt: now, bytesIn: uint64(size), spectator: hello.Spectator,
	}
	p.took(a.nonce)
	if claims != nil {
		tx, rx := sealers(claims)
		// openToken asked Has; Seen now remembers the token, so no other
		// join can use it.
		s.used.Seen(claims.Nonce, claims.Expires, s.cfg.Auth.Epoch.Add(time.Duration(now)))
		p.client, p.nonce, p.tx, p.rx = claims.Client, claims.Nonce, tx, rx
		s.byClient[p.client] = p
	}
	s.nums.take(num)
	p.conn = NewConn(s.cfg.Conn, now)
	s.byAddr[from] = p
	s.byNum[num] = p
	s.seated = append(s.seated, p)
	s.stats.Joins++
	s.events.push(ServerEvent{Kind: EventJoined, Player: num, Addr: from, Name: name, Dev: hello.Dev, Spectator: hello.Spectator}, nil)
	s.log.Debug("player joined", "player", num, "addr", from, "name", name, "dev", hello.Dev)
	s.welcome(p, size)
}

// seatToken reports whether token proves a datagram from p's address is
// p's. It does when it is p's token. It also does, and p adopts it when
// adopt is true, when p has sent no Data yet and the cookie gate accepts it
// for p's address: a client that said Hello as a window turned can be told
// two tokens, be seated under the first and hold the second, and it heard
// both. A sealed datagram adopts only once it has authenticated.
func (s *Server) seatToken(p *player, token uint64, now Time, adopt bool) bool {
	if token == p.token {
		return true
	}
	if p.playing || !s.gate.Check(p.addr, p.attempt, token, time.Duration(now)) {
		return false
	}
	if adopt {
		p.token = token
	}
	return true
}

// welcome queues a Welcome to p.
func (s *Server) welcome(p *player, limit int) {
	w := handshake.Welcome{
		ServerTick: s.tick,
		Player:     p.num,
		MaxPlayers: uint16(s.cfg.MaxPlayers),
		TickRate:   s.cfg.Hello.TickRate,
		Dev:        s.cfg.Hello.Dev,
	}
	if p.tx != nil {
		// Sealed with the server-to-client key: the client believes its
		// seat, number and the server's clock only from the server that
		// opened its token.
		buf := s.out.open()
		start := len(buf)
		buf = openSealed(buf, handshake.KindWelcome, p.token, p.tx)
		buf = closeSealed(w.Append(buf), start, p.tx)
		if n := len(buf) - start; n <= limit {
			s.out.commit(p.addr, buf)
			p.bytesOut += uint64(n)
			s.stats.Welcomes++
		}
		return
	}
	if n := s.answer(p.addr, p.token, w, limit); n > 0 {
		p.bytesOut += uint64(n)
		s.stats.Welcomes++
	}
}

// refuse queues the Refuse r to the Hello a, carrying the Hello's cookie
// and nonce so the client can tell it from a forgery; sealed under the
// connect token's server-to-client key once the token has been opened and
// proven (a.keys), so nobody but this server can end the join.
func (s *Server) refuse(a asker, r handshake.Refuse) {
	r.Nonce = a.nonce
	sent := 0
	if a.keys != nil {
		var hdr [handshake.HeaderSize]byte
		handshake.Header{Version: handshake.Version, Kind: handshake.KindSealedRefuse, Token: a.cookie}.Append(hdr[:0])
		counter := handshake.SealedRefuseBit | s.refusals
		s.refusals = (s.refusals + 1) &^ handshake.SealedRefuseBit
		buf := s.out.open()
		start := len(buf)
		buf = seal.SealOnce(buf, &a.keys.ServerToClient, hdr[:], counter, r.Append(s.plain[:0]))
		if n := len(buf) - start; n <= a.limit {
			s.out.commit(a.addr, buf)
			sent = n
		}
	} else {
		sent = s.answer(a.addr, a.cookie, r, a.limit)
	}
	if sent > 0 && r.Reason.Known() {
		s.stats.Refusals[r.Reason]++
	}
}

// answer queues m to a Hello of limit bytes and returns the datagram's
// length. The Hello's padding is what keeps every answer smaller; answer
// checks it, and sends nothing rather than more than it was sent.
func (s *Server) answer(to netip.AddrPort, token uint64, m handshake.Message, limit int) int {
	buf := s.out.open()
	start := len(buf)
	buf = handshake.AppendDatagram(buf, token, m)
	if n := len(buf) - start; n <= limit {
		s.out.commit(to, buf)
		return n
	}
	return 0
}

// seatFor returns the seat at from if token proves the datagram is its,
// and the body: the datagram's after the header, or for a sealed seat the
// body opened, which aliases a buffer of the Server's until the next
// datagram. It returns nil, counting why, when there is no seat there, the
// token is wrong, or a sealed datagram does not open (forged, altered,
// replayed or too old). Nothing of the seat changes before the datagram
// has authenticated.
func (s *Server) seatFor(from netip.AddrPort, token uint64, datagram []byte, now Time) (*player, []byte) {
	p := s.byAddr[from]
	switch {
	case p == nil:
		s.stats.NoSeat++
		return nil, nil
	case !s.seatToken(p, token, now, p.rx == nil):
		s.stats.BadToken++
		return nil, nil
	case p.rx == nil:
		return p, datagram[handshake.HeaderSize:]
	}
	_, body, err := p.rx.Open(s.plain[:0], datagram)
	if err != nil {
		s.stats.dropSealed(err)
		return nil, nil
	}
	s.seatToken(p, token, now, true)
	return p, body
}

// receiveData hands a Data body from a seat's address to its Conn, once the
// token has proven it is the seat's and the seal that it is genuine.
func (s *Server) receiveData(from netip.AddrPort, token uint64, datagram []byte, now Time) {
	size := len(datagram)
	p, body := s.seatFor(from, token, datagram, now)
	if p == nil {
		return
	}
	if !s.meter(p, now) {
		return
	}
	payload, err := p.conn.Open(body, now)
	switch {
	case errors.Is(err, ErrStale):
		s.stats.Stale++
		return
	case err != nil:
		s.stats.Malformed++
		return
	}
	p.playing, p.played = true, true
	p.bytesIn += uint64(size)
	if p.held {
		p.held = false
		s.events.push(ServerEvent{Kind: EventResumed, Player: p.num}, nil)
		s.log.Debug("player resumed", "player", p.num)
	}
	if len(payload) > 0 {
		seq := wire.Seq(binary.LittleEndian.Uint16(body)) // Open checked the header
		s.events.push(ServerEvent{Kind: EventData, Player: p.num, Seq: seq}, payload)
	}
}

// meter counts an authenticated datagram from p against its seat's rate
// and reports whether it may be acted on. One over the rate is dropped
// (Drops.Flooded); a seat that stays over it is ended, and told so
// (handshake.GoodbyeFlood).
func (s *Server) meter(p *player, now Time) bool {
	ok, flood := p.meter.admit(now, s.seatRate)
	if ok {
		return true
	}
	s.stats.Flooded++
	if flood {
		s.log.Warn("player sent far over its rate; its seat is ended", "player", p.num, "addr", p.addr,
			"rate", s.seatRate)
		s.sendGoodbye(p, handshake.GoodbyeFlood)
		s.remove(p, handshake.GoodbyeFlood)
	}
	return false
}

// receiveGoodbye removes the seat at from if the Goodbye carries its token
// and, for a sealed seat, authenticates.
func (s *Server) receiveGoodbye(from netip.AddrPort, token uint64, datagram []byte, now Time) {
	size := len(datagram)
	p, body := s.seatFor(from, token, datagram, now)
	if p == nil {
		return
	}
	if !s.meter(p, now) {
		return
	}
	g, err := handshake.ParseGoodbye(body)
	if err != nil {
		s.stats.Malformed++
		return
	}
	p.bytesIn += uint64(size)
	s.remove(p, g.Reason)
}

// refusalLog limits log lines about refused joins to one per
// refusalLogEvery, counting what it held back.
type refusalLog struct {
	last   Time
	logged bool
	held   int
}

// logRefusal logs a refused join, unless one was logged less than
// refusalLogEvery ago. A Mismatch or TickRate line carries what each end
// holds, as handshake.MismatchLine, so the two can be diffed; a Version line
// carries both protocol versions (another version's Hello cannot be read,
// so hello is nil for it).
func (s *Server) logRefusal(from netip.AddrPort, r handshake.Refuse, hello *handshake.Hello, now Time) {
	q := &s.logQuiet
	if q.logged && now.Sub(q.last) < refusalLogEvery {
		q.held++
		return
	}
	attrs := []any{"reason", r.Reason.String(), "addr", from, "held_back", q.held}
	switch {
	case r.Reason == handshake.ReasonVersion:
		attrs = append(attrs, "server_version", r.ServerVersion, "client_version", r.ClientVersion)
	case hello != nil && (r.Reason == handshake.ReasonMismatch || r.Reason == handshake.ReasonTickRate):
		attrs = append(attrs, "server", handshake.MismatchLine(s.cfg.Hello), "client", handshake.MismatchLine(*hello))
	}
	s.log.Warn("join refused", attrs...)
	q.last, q.logged, q.held = now, true, 0
}

// retiredRing remembers the tokens of the most recent retiredTokens seats
// that were vacated, so that a Hello a departed player sent before it left,
// arriving after, cannot seat it again: its token still passes the cookie
// gate for up to two windows. Only seats that existed are remembered, never
// a join that proved nothing, and the oldest is forgotten first. An entry
// needs no expiry: once the gate stops accepting its token, no Hello
// carrying it is proven, and a later window gives the address another one.
//
// A tokenless Hello from the address clears its entries: a new client on
// the same address:port starts that way, and within the window it is told
// the very token that was retired. A departed client's own tokenless Hellos
// were all answered before it was seated, so only reordering on the way
// could bring one in after its Goodbye; the cost of that is a seat that
// times out, as without the ring.
type retiredRing struct {
	addr  [retiredTokens]netip.AddrPort
	token [retiredTokens]uint64
	next  int
}

// add remembers one departed seat's token.
func (r *retiredRing) add(addr netip.AddrPort, token uint64) {
	r.addr[r.next], r.token[r.next] = addr, token
	r.next = (r.next + 1) % retiredTokens
}

// has reports whether token, from addr, belonged to a departed seat.
func (r *retiredRing) has(addr netip.AddrPort, token uint64) bool {
	for i, t := range r.token {
		if t == token && t != 0 && r.addr[i] == addr {
			return true
		}
	}
	return false
}

// forget clears addr's entries. It runs for every tokenless Hello, forged
// ones included, so the ring is kept small enough to scan in well under the
// time the Hello's padding takes to check.
func (r *retiredRing) forget(addr netip.AddrPort) {
	for i, t := range r.token {
		if t != 0 && r.addr[i] == addr {
			r.token[i] = 0
		}
	}
}

// CloseJoins makes the server refuse every new join with r from now on,
// before it looks for a free seat, so a player who tries a stopping
// server hears that it is stopping rather than that it is full. Seated
// players, and players rejoining their seats, are not affected.
func (s *Server) CloseJoins(r handshake.Refuse) { s.closedTo = &r }

// sealers makes a seat's two directions of sealing from its token's keys.
func sealers(c *token.Claims) (*seal.Sender, *seal.Receiver) {
	tx, err := seal.NewSender(&c.ServerToClient, handshake.HeaderSize)
	if err != nil {
		panic(err) // the header length is a constant NewSender takes
	}
	rx, err := seal.NewReceiver(&c.ClientToServer, handshake.HeaderSize)
	if err != nil {
		panic(err)
	}
	return tx, rx
}

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
	h, body, verdict := handshake.Classify(datagram)
	switch verdict {
	case handshake.VerdictRead:
	case handshake.VerdictAnswerVersion:
		if !s.hellos.allow(from.Addr(), now) {
			s.stats.HelloLimited++
			return
		}
		r := handshake.VersionRefusal(handshake.Version, h.Version)
		s.refuse(from, h.Token, r, len(datagram))
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
		s.receiveHello(from, h.Token, body, len(datagram), now)
	case handshake.KindData:
		s.receiveData(from, h.Token, datagram, now)
	case handshake.KindGoodbye:
		s.receiveGoodbye(from, h.Token, datagram, now)
	default: // Challenge, Welcome, Refuse: a server's own messages
		s.stats.Unexpected++
	}
}

// receiveHello applies the join rules to a Hello body from from. size is the
// whole datagram's length, the most any answer may be.
func (s *Server) receiveHello(from netip.AddrPort, cookie uint64, body []byte, size int, now Time) {
	hello, err := handshake.ParseHello(body)
	if err != nil {
		s.stats.Malformed++
		return
	}
	if r, ok := handshake.Check(s.cfg.Hello, hello); !ok {
		s.refuse(from, cookie, r, size)
		s.logRefusal(from, r, &hello, now)
		return
	}
	if cookie == 0 {
		// A client starting afresh, perhaps on the address:port of one
		// that left: its window's cookie is the departed seat's again.
		s.retired.forget(from)
	}
	seat := s.byAddr[from]
	if s.cfg.RejoinWindow > 0 && s.cfg.Auth != nil && hello.Token != nil && (seat == nil || seat.played) &&
		cookie != 0 && s.gate.Check(from, cookie, time.Duration(now)) && s.tryRejoin(from, cookie, hello, size, now) {
		return
	}
	if seat != nil && seat.playing && s.gate.Check(from, cookie, time.Duration(now)) {
		// A playing client never says Hello again: this is a client
		// restarted on the same address:port within the cookie's window.
		// The old seat stays until it times out; the new join waits for it
		// rather than inheriting the old player's connection and number.
		s.stats.BadToken++
		return
	}
	if seat != nil && s.seatToken(seat, cookie, now, false) {
		if seat.rx != nil && !sameToken(seat, hello.Token) {
			// The seat's cookie with another connect token, or none:
			// a client restarted on the same port. The seat stays
			// until it times out.
			s.stats.BadToken++
			return
		}
		s.seatToken(seat, cookie, now, true)
		seat.bytesIn += uint64(size)
		s.welcome(seat, size) // the Welcome was lost, or the cookie changed
		return
	}
	proven := s.gate.Check(from, cookie, time.Duration(now))
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
	case seat == nil && s.closedTo != nil:
		// Stopping: a new player hears that, full or not.
		s.refuse(from, cookie, *s.closedTo, size)
		s.logRefusal(from, *s.closedTo, &hello, now)
		return
	case seat == nil && len(s.seated) >= s.cfg.MaxPlayers:
		full := handshake.Refuse{Reason: handshake.ReasonFull, MaxPlayers: uint16(s.cfg.MaxPlayers)}
		s.refuse(from, cookie, full, size)
		s.logRefusal(from, full, &hello, now)
		return
	case !proven:
		// Nothing proven, nothing kept: the cookie is a hash, not a record.
		if s.answer(from, s.gate.Token(from, time.Duration(now)), handshake.Challenge{}, size) > 0 {
			s.stats.Challenges++
		}
		return
	}
	var claims *token.Claims
	if s.cfg.Auth != nil {
		c, r, ok := s.openToken(from, hello.Token, now)
		if !ok {
			s.refuse(from, cookie, r, size)
			s.logRefusal(from, r, &hello, now)
			return
		}
		claims = &c
	}
	s.admit(from, cookie, hello, claims, size, now)
}

// sameToken reports whether sealed is the connect token p was seated with:
// a client repeating its Hello until the Welcome reaches it sends the same
// one. The nonce, in the token's clear part, tells it; a forgery of it is
// refused once it comes to be opened.
func sameToken(p *player, sealed *[handshake.TokenSize]byte) bool {
	const at = 25 // the nonce's offset in the sealed token (transport/token)
	return sealed != nil && bytes.Equal(sealed[at:at+token.NonceSize], p.nonce[:])
}

// openToken checks the connect token a proven Hello from from carries, at
// now, and returns its claims, or the Refuse that says what is wrong. Only
// a Hello that echoed a valid cookie gets here, so a forged source address
// costs the server no decryption; and nothing is kept of a token refused.
func (s *Server) openToken(from netip.AddrPort, sealed *[handshake.TokenSize]byte, now Time) (token.Claims, handshake.Refuse, bool) {
	a := s.cfg.Auth
	if sealed == nil {
		return token.Claims{}, handshake.Refuse{Reason: handshake.ReasonNoToken}, false
	}
	wall := a.Epoch.Add(time.Duration(now))
	c, err := s.openClaims(sealed, wall)
	refuse := func(r handshake.Reason, detail string) (token.Claims, handshake.Refuse, bool) {
		return token.Claims{}, handshake.Refuse{Reason: r, Detail: detail}, false
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
	case c.Protocol != a.Protocol:
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
	return c, handshake.Refuse{}, true
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

// tryRejoin gives a held seat back to the client whose proven Hello from
// from carries a connect token for the seat's client id, and reports
// whether it dealt with the Hello. The token is the seat's own (already
// used, by this seat: the one use it may be put to again) or a fresh one
// for the same client id. A seat still heard is refused to it
// (ReasonClientSeated); a token that does not open, a client not seated
// and a fresh token used before are left to the join rules, which refuse
// them as they would any join.
func (s *Server) tryRejoin(from netip.AddrPort, cookie uint64, hello handshake.Hello, size int, now Time) bool {
	wall := s.cfg.Auth.Epoch.Add(time.Duration(now))
	c, err := s.openClaims(hello.Token, wall)
	if err != nil || c.Protocol != s.cfg.Auth.Protocol {
		return false
	}
	p := s.byClient[c.Client]
	switch {
	case p == nil || !p.played:
		return false
	case c.Nonce != p.nonce && s.used.Has(c.Nonce, wall):
		return false
	case p.held && !p.playing && p.addr == from && p.token == cookie:
		// The rejoin's Welcome was lost, or this is another of the Hellos
		// the client said before it arrived: welcomed again, on the same
		// new Conn.
		p.bytesIn += uint64(size)
		s.welcome(p, size)
		return true
	case !p.held:
		r := handshake.Refuse{Reason: handshake.ReasonClientSeated}
		s.refuse(from, cookie, r, size)
		s.logRefusal(from, r, &hello, now)
		return true
	case s.byAddr[from] != nil && s.byAddr[from] != p:
		// Another seat answers to this address: a client restarted on a
		// port a seated player still holds. It waits for that seat to go.
		s.stats.BadToken++
		return true
	}
	s.rejoin(p, from, cookie, &c, size, now)
	return true
}

// rejoin moves the held seat p to from under cookie and the token claims
// c: a new Conn, and with a fresh token its seals; the seals of the same
// token carry on, so neither end repeats a counter under its keys. The
// player's number, name and everything the game holds for it stay.
func (s *Server) rejoin(p *player, from netip.AddrPort, cookie uint64, c *token.Claims, size int, now Time) {
	if p.addr != from {
		delete(s.byAddr, p.addr)
		p.addr = from
		s.byAddr[from] = p
	}
	p.token, p.seatedBy = cookie, cookie
	if c.Nonce != p.nonce {
		tx, rx := sealers(c)
		s.used.Seen(c.Nonce, c.Expires, s.cfg.Auth.Epoch.Add(time.Duration(now)))
		p.nonce, p.tx, p.rx = c.Nonce, tx, rx
	}
	p.conn = NewConn(s.cfg.Conn, now)
	p.playing = false
	p.bytesIn += uint64(size)
	s.stats.Rejoins++
	s.events.push(ServerEvent{Kind: EventRejoined, Player: p.num, Addr: from, Name: p.name}, nil)
	s.log.Debug("player rejoined", "player", p.num, "addr", from)
	s.welcome(p, size)
}

// admit seats from, whose Hello echoed a valid cookie (and, with Auth,
// whose connect token claims says who it is), if the game accepts it.
func (s *Server) admit(from netip.AddrPort, cookie uint64, hello handshake.Hello, claims *token.Claims, size int, now Time) {
	token := cookie
	num, ok := s.nums.peek()
	if !ok { // 65535 seated: only reachable with MaxPlayers 65535
		s.refuse(from, token, handshake.Refuse{Reason: handshake.ReasonFull, MaxPlayers: uint16(s.cfg.MaxPlayers)}, size)
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
	if s.cfg.Admit != nil {
		if r, ok := s.cfg.Admit(num, name, hello.Dev); !ok {
			if r.Reason == 0 {
				r.Reason = handshake.ReasonDeclined
			}
			s.refuse(from, token, r, size)
			s.logRefusal(from, r, &hello, now)
			return
		}
	}
	p := &player{
		num: num, addr: from, token: token, seatedBy: token, name: name, dev: hello.Dev,
		joinedAt: now, bytesIn: uint64(size),
	}
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
	s.events.push(ServerEvent{Kind: EventJoined, Player: num, Addr: from, Name: name, Dev: hello.Dev}, nil)
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
	if p.playing || !s.gate.Check(p.addr, token, time.Duration(now)) {
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

// refuse queues a Refuse to a Hello, in a header carrying the Hello's token
// so the client can tell it from a forgery.
func (s *Server) refuse(to netip.AddrPort, token uint64, r handshake.Refuse, limit int) {
	if s.answer(to, token, r, limit) > 0 && r.Reason.Known() {
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

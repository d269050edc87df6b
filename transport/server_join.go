package transport

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"strconv"
	"time"

	"vkm/transport/handshake"
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
		s.receiveHello(from, h.Token, body, len(datagram), now)
	case handshake.KindData:
		s.receiveData(from, h.Token, body, len(datagram), now)
	case handshake.KindGoodbye:
		s.receiveGoodbye(from, h.Token, body, len(datagram), now)
	default: // Challenge, Welcome, Refuse: a server's own messages
		s.stats.Unexpected++
	}
}

// receiveHello applies the join rules to a Hello body from from. size is the
// whole datagram's length, the most any answer may be.
func (s *Server) receiveHello(from netip.AddrPort, token uint64, body []byte, size int, now Time) {
	hello, err := handshake.ParseHello(body)
	if err != nil {
		s.stats.Malformed++
		return
	}
	if r, ok := handshake.Check(s.cfg.Hello, hello); !ok {
		s.refuse(from, token, r, size)
		s.logRefusal(from, r, &hello, now)
		return
	}
	if token == 0 {
		// A client starting afresh, perhaps on the address:port of one
		// that left: its window's token is the departed seat's again.
		s.retired.forget(from)
	}
	seat := s.byAddr[from]
	if seat != nil && seat.playing && s.gate.Check(from, token, time.Duration(now)) {
		// A playing client never says Hello again: this is a client
		// restarted on the same address:port within the token's window.
		// The old seat stays until it times out; the new join waits for it
		// rather than inheriting the old player's connection and number.
		s.stats.BadToken++
		return
	}
	if seat != nil && s.seatToken(seat, token, now) {
		seat.bytesIn += uint64(size)
		s.welcome(seat, size) // the Welcome was lost, or the token changed
		return
	}
	proven := s.gate.Check(from, token, time.Duration(now))
	switch {
	case seat != nil && proven:
		// A proven join from an address whose seat plays under another
		// token: a client restarted on the same port. The seat stays until
		// it times out; the new join waits for it.
		s.stats.BadToken++
		return
	case seat == nil && proven && s.retired.has(from, token):
		// The token of a seat that has been vacated: a Hello its player
		// sent before the Welcome reached it, delayed past its Goodbye or
		// Kick. It must not seat a player who is gone.
		s.stats.Retired++
		return
	case seat == nil && len(s.seated) >= s.cfg.MaxPlayers:
		full := handshake.Refuse{Reason: handshake.ReasonFull, MaxPlayers: uint16(s.cfg.MaxPlayers)}
		s.refuse(from, token, full, size)
		s.logRefusal(from, full, &hello, now)
		return
	case !proven:
		// Nothing proven, nothing kept: the token is a hash, not a record.
		if s.answer(from, s.gate.Token(from, time.Duration(now)), handshake.Challenge{}, size) > 0 {
			s.stats.Challenges++
		}
		return
	}
	s.admit(from, token, hello, size, now)
}

// admit seats from, whose Hello echoed a valid token, if the game accepts
// it.
func (s *Server) admit(from netip.AddrPort, token uint64, hello handshake.Hello, size int, now Time) {
	num, ok := s.nums.peek()
	if !ok { // 65535 seated: only reachable with MaxPlayers 65535
		s.refuse(from, token, handshake.Refuse{Reason: handshake.ReasonFull, MaxPlayers: uint16(s.cfg.MaxPlayers)}, size)
		return
	}
	name := hello.Name
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
	s.nums.take(num)
	p := &player{
		num: num, addr: from, token: token, seatedBy: token, name: name, dev: hello.Dev,
		conn: NewConn(s.cfg.Conn, now), joinedAt: now, bytesIn: uint64(size),
	}
	s.byAddr[from] = p
	s.byNum[num] = p
	s.seated = append(s.seated, p)
	s.stats.Joins++
	s.events.push(ServerEvent{Kind: EventJoined, Player: num, Addr: from, Name: name, Dev: hello.Dev}, nil)
	s.log.Debug("player joined", "player", num, "addr", from, "name", name, "dev", hello.Dev)
	s.welcome(p, size)
}

// seatToken reports whether token proves a datagram from p's address is
// p's. It does when it is p's token. It also does, and p adopts it, when p
// has sent no Data yet and the cookie gate accepts it for p's address: a
// client that said Hello as a window turned can be told two tokens, be
// seated under the first and hold the second, and it heard both.
func (s *Server) seatToken(p *player, token uint64, now Time) bool {
	if token == p.token {
		return true
	}
	if p.playing || !s.gate.Check(p.addr, token, time.Duration(now)) {
		return false
	}
	p.token = token
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

// seatFor returns the seat at from if token proves the datagram is its, or
// nil, counting why: no seat there, or the wrong token.
func (s *Server) seatFor(from netip.AddrPort, token uint64, now Time) *player {
	p := s.byAddr[from]
	switch {
	case p == nil:
		s.stats.NoSeat++
		return nil
	case !s.seatToken(p, token, now):
		s.stats.BadToken++
		return nil
	}
	return p
}

// receiveData hands a Data body from a seat's address to its Conn, once the
// token has proven it is the seat's.
func (s *Server) receiveData(from netip.AddrPort, token uint64, body []byte, size int, now Time) {
	p := s.seatFor(from, token, now)
	if p == nil {
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
	p.playing = true
	p.bytesIn += uint64(size)
	if len(payload) > 0 {
		seq := wire.Seq(binary.LittleEndian.Uint16(body)) // Open checked the header
		s.events.push(ServerEvent{Kind: EventData, Player: p.num, Seq: seq}, payload)
	}
}

// receiveGoodbye removes the seat at from if the Goodbye carries its token.
func (s *Server) receiveGoodbye(from netip.AddrPort, token uint64, body []byte, size int, now Time) {
	p := s.seatFor(from, token, now)
	if p == nil {
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

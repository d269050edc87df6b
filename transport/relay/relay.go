package relay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"

	"vkm/transport"
)

// Config is a Relay's limits. A zero field takes its default.
type Config struct {
	// MaxCodes bounds the codes held at once; MaxCodesPerSource those
	// held by one source (an IPv4 address, an IPv6 /64).
	MaxCodes          int
	MaxCodesPerSource int
	// MaxPeers bounds one code's joiners at once.
	MaxPeers int
	// Rate and Burst bound one code's datagrams a second, both ways
	// together; past them datagrams are dropped.
	Rate  float64
	Burst float64
	// PeerRate and PeerBurst bound one joiner's datagrams a second to
	// its server, so one cannot spend its code's rate for the others.
	PeerRate  float64
	PeerBurst float64
	// JoinRate and JoinBurst bound one source's Joins a second, so codes
	// cannot be tried in bulk.
	JoinRate  float64
	JoinBurst float64
	// Keep is how long a registration lasts without a refresh; PeerIdle
	// how long a joiner is kept that has sent nothing; Remember how long
	// a code that ended is still refused as expired rather than unknown.
	Keep     time.Duration
	PeerIdle time.Duration
	Remember time.Duration
	// Rand draws codes and peer numbers (crypto/rand when nil is the
	// caller's business: it must be set).
	Rand io.Reader
}

// The defaults.
const (
	DefaultMaxCodes          = 10000
	DefaultMaxCodesPerSource = 16
	DefaultMaxPeers          = 64
	DefaultRate              = 20000 // 64 players × 64 Hz up and down, with room
	DefaultPeerRate          = 500   // a client sends 64 to 128 a second
	DefaultJoinRate          = 4
	DefaultKeep              = 30 * time.Second
	DefaultPeerIdle          = 30 * time.Second
	DefaultRemember          = 10 * time.Minute
)

func (c *Config) fill() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	deff := func(v *float64, d float64) {
		if *v <= 0 {
			*v = d
		}
	}
	defd := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.MaxCodes, DefaultMaxCodes)
	def(&c.MaxCodesPerSource, DefaultMaxCodesPerSource)
	def(&c.MaxPeers, DefaultMaxPeers)
	deff(&c.Rate, DefaultRate)
	deff(&c.Burst, 2*c.Rate)
	deff(&c.PeerRate, DefaultPeerRate)
	deff(&c.PeerBurst, 2*c.PeerRate)
	deff(&c.JoinRate, DefaultJoinRate)
	deff(&c.JoinBurst, 2*c.JoinRate)
	defd(&c.Keep, DefaultKeep)
	defd(&c.PeerIdle, DefaultPeerIdle)
	defd(&c.Remember, DefaultRemember)
}

// Stats counts a relay's work. A plain value.
type Stats struct {
	Codes, Peers   int
	Registered     uint64 // codes given
	Expired        uint64 // codes forgotten for want of a refresh
	Left           uint64 // codes whose server left
	Joins, Refused uint64
	// Forwarded counts datagrams passed on, ToServer and ToPeer.
	Forwarded uint64
	// Limited counts datagrams dropped over a code's or a joiner's
	// rate; Dropped the
	// rest dropped (malformed, from nobody known, for a peer of another
	// code, a registration over the limits).
	Limited, Dropped uint64
}

// Relay is the relay: it gives codes to servers that register and
// passes datagrams between a code's joiners and its server. It is
// sans-IO: hand it each datagram with Receive, send what Next then
// gives, and call Poll about once a second. It knows each side by its
// source address and never writes one side's address to the other. Not
// safe for concurrent use.
type Relay struct {
	cfg      Config
	codes    map[Code]*entry
	servers  map[netip.AddrPort]*entry
	sources  map[netip.Addr]int // codes held by source
	peers    map[netip.AddrPort]*peer
	byID     map[uint32]*peer
	retired  map[Code]retiredCode
	joinRate map[netip.Addr]*bucket
	out      []outgoing
	buf      []byte
	next     int
	stats    Stats
}

type entry struct {
	code   Code
	addr   netip.AddrPort
	key    [KeySize]byte
	lease  uint64
	seen   transport.Time
	peers  map[uint32]*peer
	bucket bucket
}

type peer struct {
	id     uint32
	addr   netip.AddrPort
	e      *entry
	seen   transport.Time
	bucket bucket
}

type retiredCode struct {
	at  transport.Time
	key [KeySize]byte
}

type outgoing struct {
	to         netip.AddrPort
	start, end int
}

// New returns a Relay with cfg's limits.
func New(cfg Config) (*Relay, error) {
	if cfg.Rand == nil {
		return nil, errors.New("relay: Config.Rand is not set")
	}
	cfg.fill()
	return &Relay{cfg: cfg, codes: map[Code]*entry{}, servers: map[netip.AddrPort]*entry{}, sources: map[netip.Addr]int{},
		peers: map[netip.AddrPort]*peer{}, byID: map[uint32]*peer{}, retired: map[Code]retiredCode{}, joinRate: map[netip.Addr]*bucket{}}, nil
}

// Stats returns the counts so far.
func (r *Relay) Stats() Stats {
	s := r.stats
	s.Codes, s.Peers = len(r.codes), len(r.peers)
	return s
}

// Next returns the next datagram to send. Its bytes are valid until the
// next Receive or Poll, which start a new batch.
func (r *Relay) Next() (to netip.AddrPort, b []byte, ok bool) {
	if r.next >= len(r.out) {
		return netip.AddrPort{}, nil, false
	}
	o := r.out[r.next]
	r.next++
	return o.to, r.buf[o.start:o.end], true
}

func (r *Relay) reset() {
	r.out, r.buf, r.next = r.out[:0], r.buf[:0], 0
}

// send queues the datagram appended to r.buf since start.
func (r *Relay) send(to netip.AddrPort, start int) {
	r.out = append(r.out, outgoing{to: to, start: start, end: len(r.buf)})
}

func (r *Relay) reply(to netip.AddrPort, m *Message) {
	start := len(r.buf)
	r.buf = m.Append(r.buf)
	r.send(to, start)
}

// source is what the per-source limits count: an IPv4 address, or an
// IPv6 address's /64.
func source(a netip.AddrPort) netip.Addr {
	ip := a.Addr().Unmap()
	if ip.Is4() {
		return ip
	}
	p, _ := ip.Prefix(64)
	return p.Addr()
}

// Receive handles one datagram from from at now, queueing what it sends
// (read with Next). It starts a new batch: read the last one first.
func (r *Relay) Receive(from netip.AddrPort, b []byte, now transport.Time) {
	r.reset()
	from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
	m, err := Parse(b)
	if err != nil {
		r.stats.Dropped++
		return
	}
	switch m.Kind {
	case KindToServer:
		p := r.peers[from]
		if p == nil || !p.bucket.take(now, r.cfg.PeerRate, r.cfg.PeerBurst) || !p.e.bucket.take(now, r.cfg.Rate, r.cfg.Burst) {
			r.drop(p != nil)
			return
		}
		p.seen = now
		start := len(r.buf)
		r.buf = AppendHeader(r.buf, KindFromPeer)
		r.buf = binary.LittleEndian.AppendUint32(r.buf, p.id)
		r.buf = append(r.buf, m.Frame...)
		r.send(p.e.addr, start)
		r.stats.Forwarded++
	case KindToPeer:
		e := r.servers[from]
		p := r.byID[m.Peer]
		if e == nil || p == nil || p.e != e || !e.bucket.take(now, r.cfg.Rate, r.cfg.Burst) {
			r.drop(e != nil && p != nil && p.e == e)
			return
		}
		start := len(r.buf)
		r.buf = AppendHeader(r.buf, KindFromServer)
		r.buf = append(r.buf, m.Frame...)
		r.send(p.addr, start)
		r.stats.Forwarded++
	case KindRegister:
		r.register(from, &m, now)
	case KindLeave:
		if e := r.servers[from]; e != nil && e.lease == m.Lease {
			r.retire(e, now)
			r.stats.Left++
		} else {
			r.stats.Dropped++
		}
	case KindJoin:
		r.join(from, &m, now)
	default:
		r.stats.Dropped++
	}
}

func (r *Relay) drop(limited bool) {
	if limited {
		r.stats.Limited++
	} else {
		r.stats.Dropped++
	}
}

// register gives from a code, or refreshes the one it holds.
func (r *Relay) register(from netip.AddrPort, m *Message, now transport.Time) {
	if _, joiner := r.peers[from]; joiner {
		r.stats.Dropped++
		return
	}
	e := r.servers[from]
	if e != nil && e.lease == m.Lease && e.key == m.Key {
		e.seen = now
		r.reply(from, &Message{Kind: KindRegistered, Lease: e.lease, Code: e.code, Refresh: uint16(r.cfg.Keep / time.Second)})
		return
	}
	if e != nil { // the same address again, as a new server: the old one has gone
		r.retire(e, now)
		r.stats.Left++
	}
	src := source(from)
	if len(r.codes) >= r.cfg.MaxCodes || r.sources[src] >= r.cfg.MaxCodesPerSource {
		r.stats.Dropped++
		return
	}
	code := m.Code
	if old, ok := r.retired[code]; code == 0 || r.codes[code] != nil || (ok && old.key != m.Key) {
		var err error
		if code, err = r.freeCode(); err != nil {
			r.stats.Dropped++
			return
		}
	}
	delete(r.retired, code)
	e = &entry{code: code, addr: from, key: m.Key, lease: m.Lease, seen: now, peers: map[uint32]*peer{},
		bucket: bucket{tokens: r.cfg.Burst, at: now}}
	r.codes[code], r.servers[from] = e, e
	r.sources[src]++
	r.stats.Registered++
	r.reply(from, &Message{Kind: KindRegistered, Lease: e.lease, Code: code, Refresh: uint16(r.cfg.Keep / time.Second)})
}

// freeCode draws a code no server holds and none held lately.
func (r *Relay) freeCode() (Code, error) {
	var b [4]byte
	for range 64 {
		if _, err := io.ReadFull(r.cfg.Rand, b[:]); err != nil {
			return 0, err
		}
		c := Code(binary.LittleEndian.Uint32(b[:])) & MaxCode
		if _, old := r.retired[c]; c != 0 && r.codes[c] == nil && !old {
			return c, nil
		}
	}
	return 0, errors.New("relay: no free code found")
}

// join answers a Join: the server's key, or why not.
func (r *Relay) join(from netip.AddrPort, m *Message, now transport.Time) {
	r.stats.Joins++
	refuse := func(why Reason) {
		r.stats.Refused++
		r.reply(from, &Message{Kind: KindRefused, Nonce: m.Nonce, Reason: why})
	}
	if r.servers[from] != nil {
		r.stats.Dropped++
		return
	}
	src := source(from)
	b := r.joinRate[src]
	if b == nil {
		b = &bucket{tokens: r.cfg.JoinBurst, at: now}
		r.joinRate[src] = b
	}
	if !b.take(now, r.cfg.JoinRate, r.cfg.JoinBurst) {
		refuse(ReasonRate)
		return
	}
	e := r.codes[m.Code]
	if e == nil {
		if _, ok := r.retired[m.Code]; ok {
			refuse(ReasonExpired)
		} else {
			refuse(ReasonUnknown)
		}
		return
	}
	p := r.peers[from]
	if p != nil && p.e != e { // the same address joins another code
		r.forget(p)
		p = nil
	}
	if p == nil {
		if len(e.peers) >= r.cfg.MaxPeers {
			refuse(ReasonFull)
			return
		}
		id, err := r.freeID()
		if err != nil {
			r.stats.Dropped++
			return
		}
		p = &peer{id: id, addr: from, e: e, bucket: bucket{tokens: r.cfg.PeerBurst, at: now}}
		r.peers[from], r.byID[id], e.peers[id] = p, p, p
	}
	p.seen = now
	r.reply(from, &Message{Kind: KindJoined, Nonce: m.Nonce, Key: e.key})
}

// freeID draws a peer number no joiner holds.
func (r *Relay) freeID() (uint32, error) {
	var b [4]byte
	for range 64 {
		if _, err := io.ReadFull(r.cfg.Rand, b[:]); err != nil {
			return 0, err
		}
		if id := binary.LittleEndian.Uint32(b[:]); id != 0 && r.byID[id] == nil {
			return id, nil
		}
	}
	return 0, errors.New("relay: no free peer number found")
}

// retire forgets e and its joiners, remembering its code as expired.
func (r *Relay) retire(e *entry, now transport.Time) {
	for _, p := range e.peers {
		r.forget(p)
	}
	delete(r.codes, e.code)
	delete(r.servers, e.addr)
	src := source(e.addr)
	if r.sources[src]--; r.sources[src] <= 0 {
		delete(r.sources, src)
	}
	r.retired[e.code] = retiredCode{at: now, key: e.key}
}

func (r *Relay) forget(p *peer) {
	delete(r.peers, p.addr)
	delete(r.byID, p.id)
	delete(p.e.peers, p.id)
}

// Poll forgets what has gone quiet: registrations not refreshed within
// Keep, joiners silent for PeerIdle, expired codes older than Remember,
// and join rates that are back to full. It sends nothing.
func (r *Relay) Poll(now transport.Time) {
	r.reset()
	for _, e := range r.codes {
		if now.Sub(e.seen) > r.cfg.Keep {
			r.retire(e, now)
			r.stats.Expired++
		}
	}
	for _, p := range r.peers {
		if now.Sub(p.seen) > r.cfg.PeerIdle {
			r.forget(p)
		}
	}
	for c, old := range r.retired {
		if now.Sub(old.at) > r.cfg.Remember {
			delete(r.retired, c)
		}
	}
	for src, b := range r.joinRate {
		if b.refill(now, r.cfg.JoinRate, r.cfg.JoinBurst); b.tokens >= r.cfg.JoinBurst {
			delete(r.joinRate, src)
		}
	}
}

// bucket is a token bucket.
type bucket struct {
	tokens float64
	at     transport.Time
}

// take refills b to now at rate (up to burst) and takes one token if
// there is one.
func (b *bucket) take(now transport.Time, rate, burst float64) bool {
	b.refill(now, rate, burst)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// refill adds the tokens earned since b.at.
func (b *bucket) refill(now transport.Time, rate, burst float64) {
	if d := now.Sub(b.at); d > 0 {
		b.tokens = min(burst, b.tokens+d.Seconds()*rate)
		b.at = now
	}
}

// String writes the counts for a log line.
func (s Stats) String() string {
	return fmt.Sprintf("codes %d peers %d forwarded %d limited %d dropped %d joins %d refused %d",
		s.Codes, s.Peers, s.Forwarded, s.Limited, s.Dropped, s.Joins, s.Refused)
}

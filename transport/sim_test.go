package transport_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"vkm/transport"
	"vkm/transport/handshake"
	"vkm/transport/memnet"
)

// serverHello is what the test server holds.
var serverHello = handshake.Hello{
	SchemaFP:    0x5c4e3a0011223344,
	ActionCount: 6,
	ActionFP:    0xac7101fa11223344,
	WorldFP:     0x3071d00000000001, // any non-zero scene
	TickRate:    64,
}

// clientHello returns the Hello of a client built like the server, named name.
func clientHello(name string) handshake.Hello {
	h := serverHello
	h.Name = name
	return h
}

// at returns a Time d after zero.
func at(d time.Duration) transport.Time { return transport.Time(0).Add(d) }

// peer is one client in a sim: its session, its pipe to the server and what
// it has seen.
type peer struct {
	name   string
	addr   netip.AddrPort
	c      *transport.Client
	pipe   *memnet.Pipe
	events []transport.ClientEvent // payloads copied

	cutUp, cutDown bool                // drop everything that way
	sniffDown      func(b []byte)      // sees each server datagram to this peer as sent
	dropUp         func(b []byte) bool // drops a client datagram when it returns true
	dropDown       func(b []byte) bool // drops a server datagram to it when it returns true
}

// ended returns the peer's EventEnded, if any.
func (p *peer) ended() (transport.ClientEvent, bool) {
	for _, e := range p.events {
		if e.Kind == transport.EventEnded {
			return e, true
		}
	}
	return transport.ClientEvent{}, false
}

// count returns how many of the peer's events are of kind k.
func (p *peer) count(k transport.EventKind) int {
	n := 0
	for _, e := range p.events {
		if e.Kind == k {
			n++
		}
	}
	return n
}

// sim runs a transport.Server and its clients over memnet pipes on a
// synthetic clock, stepping from one event (an arrival, a deadline, the
// test's own tick) to the next.
type sim struct {
	t      testing.TB
	seed   uint64
	now    transport.Time
	srv    *transport.Server
	peers  []*peer
	byAddr map[netip.AddrPort]*peer
	events []transport.ServerEvent // payloads copied
	admits int
	stray  int // server datagrams to an address no peer has
	// strayTo, when set, sees each of those: an attacker's own address.
	strayTo func(to netip.AddrPort, b []byte)

	every     time.Duration
	nextEvery transport.Time
	onEvery   func(now transport.Time)
	steps     int
}

// newSim makes a server from cfg (MaxPlayers 4 when zero) with a cookie key
// drawn from seed, and a logger writing to the test's output.
func newSim(t testing.TB, seed uint64, cfg transport.ServerConfig) *sim {
	t.Helper()
	s := &sim{t: t, seed: seed, byAddr: make(map[netip.AddrPort]*peer)}
	if cfg.Hello.TickRate == 0 {
		cfg.Hello = serverHello
	}
	if cfg.MaxPlayers == 0 {
		cfg.MaxPlayers = 4
	}
	var key [32]byte
	key[0], key[1] = byte(seed), byte(seed>>8)
	cfg.Rand = rand.NewChaCha8(key)
	admit := cfg.Admit
	cfg.Admit = func(player uint16, name string, dev bool) (handshake.Refuse, bool) {
		s.admits++
		if admit == nil {
			return handshake.Refuse{}, true
		}
		return admit(player, name, dev)
	}
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	srv, err := transport.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.srv = srv
	return s
}

// testLogger logs to the test's output.
func testLogger(t testing.TB) *slog.Logger {
	if tt, ok := t.(*testing.T); ok {
		return slog.New(slog.NewTextHandler(tt.Output(), nil))
	}
	return slog.New(slog.DiscardHandler)
}

// addClient adds a client that starts joining now over profile.
func (s *sim) addClient(name string, profile memnet.Profile, cfg transport.ClientConfig) *peer {
	s.t.Helper()
	i := len(s.peers) + 1
	pipe, err := memnet.NewPipe(profile, s.seed*1000+uint64(i))
	if err != nil {
		s.t.Fatal(err)
	}
	if cfg.Hello.TickRate == 0 {
		cfg.Hello = clientHello(name)
	}
	if cfg.Logger == nil {
		cfg.Logger = testLogger(s.t).With("client", name)
	}
	p := &peer{
		name: name,
		addr: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), uint16(40000+i)),
		c:    transport.NewClient(cfg, s.now),
		pipe: pipe,
	}
	s.peers = append(s.peers, p)
	s.byAddr[p.addr] = p
	return p
}

// tick calls fn every d from now on, at the step it falls due.
func (s *sim) tick(d time.Duration, fn func(now transport.Time)) {
	s.every, s.nextEvery, s.onEvery = d, s.now, fn
}

// flush drains everything the server and the clients queued: datagrams into
// the pipes, events into the sim's and peers' lists.
func (s *sim) flush() {
	for {
		to, b, ok := s.srv.NextDatagram()
		if !ok {
			break
		}
		p := s.byAddr[to]
		if p == nil {
			s.stray++
			if s.strayTo != nil {
				s.strayTo(to, bytes.Clone(b))
			}
			continue
		}
		if p.sniffDown != nil {
			p.sniffDown(b)
		}
		if !p.cutDown && (p.dropDown == nil || !p.dropDown(b)) {
			p.pipe.BtoA.Send(b, s.now)
		}
	}
	for {
		e, ok := s.srv.NextEvent()
		if !ok {
			break
		}
		e.Payload = bytes.Clone(e.Payload)
		s.events = append(s.events, e)
	}
	for _, p := range s.peers {
		for {
			b, ok := p.c.NextDatagram()
			if !ok {
				break
			}
			if !p.cutUp && (p.dropUp == nil || !p.dropUp(b)) {
				p.pipe.AtoB.Send(b, s.now)
			}
		}
		for {
			e, ok := p.c.NextEvent()
			if !ok {
				break
			}
			e.Payload = bytes.Clone(e.Payload)
			p.events = append(p.events, e)
		}
	}
}

// step delivers what is due at s.now, polls everyone, and runs the tick.
func (s *sim) step() {
	now := s.now
	for _, p := range s.peers {
		for {
			b, ok := p.pipe.AtoB.Receive(now)
			if !ok {
				break
			}
			s.srv.Receive(p.addr, b, now)
			s.flush()
		}
		for {
			b, ok := p.pipe.BtoA.Receive(now)
			if !ok {
				break
			}
			p.c.Receive(b, now)
			s.flush()
		}
	}
	s.srv.Poll(now)
	s.flush()
	for _, p := range s.peers {
		p.c.Poll(now)
	}
	s.flush()
	if s.onEvery != nil && now >= s.nextEvery {
		s.onEvery(now)
		s.nextEvery = s.nextEvery.Add(s.every)
		s.flush()
	}
	s.steps++
}

// next returns the time of the next thing that will happen, at most until.
func (s *sim) next(until transport.Time) transport.Time {
	next := until
	consider := func(t transport.Time, ok bool) {
		if ok && t < next {
			next = t
		}
	}
	for _, p := range s.peers {
		consider(p.pipe.NextArrival())
		consider(p.c.NextDeadline())
	}
	consider(s.srv.NextDeadline())
	consider(s.nextEvery, s.onEvery != nil)
	return next
}

// run steps the sim until the clock reaches until or done (checked after
// each step) returns true, and reports whether done did.
func (s *sim) run(until transport.Time, done func() bool) bool {
	s.t.Helper()
	same := 0
	for s.now < until {
		s.step()
		if done != nil && done() {
			return true
		}
		next := s.next(until)
		if next < s.now {
			next = s.now // a deadline already due: Poll at now handles it
		}
		if next == s.now {
			if same++; same > 10000 {
				s.t.Fatalf("clock stuck at %v", time.Duration(s.now))
			}
		} else {
			same = 0
		}
		s.now = next
	}
	return false
}

// runFor runs the sim for d.
func (s *sim) runFor(d time.Duration) { s.run(s.now.Add(d), nil) }

// join runs until every peer is playing, or fails after limit.
func (s *sim) join(limit time.Duration) {
	s.t.Helper()
	ok := s.run(s.now.Add(limit), func() bool {
		for _, p := range s.peers {
			if p.c.State() != transport.StatePlaying {
				return false
			}
		}
		return true
	})
	if !ok {
		for _, p := range s.peers {
			s.t.Logf("%s: %v %q %+v", p.name, p.c.State(), p.c.LastError(), p.c.Stats())
		}
		s.t.Fatalf("seed %d: not everyone joined within %v", s.seed, limit)
	}
}

// serverEvents returns the server's events of kind k.
func (s *sim) serverEvents(k transport.EventKind) []transport.ServerEvent {
	var out []transport.ServerEvent
	for _, e := range s.events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// sizes fails the test unless the server holds n seats in all its maps.
func (s *sim) wantSeats(n int) {
	s.t.Helper()
	a, b, c := s.srv.StateSizes()
	if a != n || b != n || c != n {
		s.t.Fatalf("server state sizes %d/%d/%d, want %d", a, b, c, n)
	}
}

// String describes the sim's clock and counts for a log line.
func (s *sim) String() string {
	st := s.srv.Stats()
	return fmt.Sprintf("seed %d t=%v steps %d admits %d challenges %d welcomes %d joins %d leaves %d refusals %v drops %+v",
		s.seed, time.Duration(s.now), s.steps, s.admits, st.Challenges, st.Welcomes, st.Joins, st.Leaves, st.Refusals, st.Drops)
}

// flushServer drains the server alone, for tests that call it directly.
func (s *sim) flushServer() {
	for _, _, ok := s.srv.NextDatagram(); ok; _, _, ok = s.srv.NextDatagram() {
	}
	for e, ok := s.srv.NextEvent(); ok; e, ok = s.srv.NextEvent() {
		s.events = append(s.events, e)
	}
}

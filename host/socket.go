package host

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"vkm/transport"
	"vkm/transport/memnet"
	"vkm/transport/udp"
)

// datagram is one received datagram and where it came from. Bytes is the
// receiver's own copy.
type datagram struct {
	From  netip.AddrPort
	Bytes []byte
}

// socket is what a session's loop sends and receives through: a UDP
// endpoint, or one wrapped in the link simulator. Incoming delivers to the
// loop's goroutine, so the sans-IO session is only ever touched from there.
type socket interface {
	Incoming() <-chan datagram
	// WriteTo sends b to to; a client's socket ignores to (it is
	// connected to its server).
	WriteTo(b []byte, to netip.AddrPort) error
	LocalAddr() netip.AddrPort
	// Err says why Incoming closed, once it has (nil: Close closed it).
	Err() error
	Close() error
}

// incomingDepth is how many received datagrams may wait for the loop. A
// loop that falls this far behind is better served by dropping (UDP does)
// than by blocking the read.
const incomingDepth = 256

// udpSocket adapts a transport/udp endpoint: a goroutine reads it into the
// Incoming channel.
type udpSocket struct {
	in     chan datagram
	write  func(b []byte, to netip.AddrPort) error
	local  netip.AddrPort
	close  func() error
	wg     sync.WaitGroup
	closed sync.Once
	err    error // why the reader stopped; written before in is closed
}

func newUDPSocket(write func([]byte, netip.AddrPort) error, local netip.AddrPort, serve func(func(netip.AddrPort, []byte)) error, closeFn func() error) *udpSocket {
	s := &udpSocket{in: make(chan datagram, incomingDepth), write: write, local: local, close: closeFn}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(s.in)
		s.err = serve(func(from netip.AddrPort, b []byte) {
			select {
			case s.in <- datagram{From: from, Bytes: append([]byte(nil), b...)}:
			default: // the loop is behind: drop, as the network would
			}
		})
	}()
	return s
}

func (s *udpSocket) Incoming() <-chan datagram                 { return s.in }
func (s *udpSocket) WriteTo(b []byte, to netip.AddrPort) error { return s.write(b, to) }
func (s *udpSocket) LocalAddr() netip.AddrPort                 { return s.local }
func (s *udpSocket) Err() error                                { return s.err }

// Close closes the endpoint and waits for its reader to finish.
func (s *udpSocket) Close() error {
	var err error
	s.closed.Do(func() {
		err = s.close()
		s.wg.Wait()
	})
	return err
}

// listenUDP opens a server's socket on addr ("host:port").
func listenUDP(addr string) (socket, error) {
	srv, err := udp.Listen(addr)
	if err != nil {
		return nil, err
	}
	return newUDPSocket(srv.WriteTo, srv.LocalAddr(), srv.Serve, srv.Close), nil
}

// dial opens a client's socket connected to addr, on n if it is set and
// UDP otherwise.
func dial(n *Loopback, addr string) (socket, error) {
	if n != nil {
		return n.dial(addr)
	}
	c, err := udp.Dial(addr)
	if err != nil {
		return nil, err
	}
	remote := c.RemoteAddr()
	serve := func(fn func(netip.AddrPort, []byte)) error {
		return c.Serve(func(b []byte) { fn(remote, b) })
	}
	write := func(b []byte, _ netip.AddrPort) error { return c.Write(b) }
	return newUDPSocket(write, c.LocalAddr(), serve, c.Close), nil
}

// simSocket runs every datagram of an inner socket through the seeded link
// simulator, in real time: received ones through the inbound link before
// the loop sees them, sent ones through the outbound link before they reach
// the wire. A developer serves or plays over a bad link on one machine.
type simSocket struct {
	inner socket
	in    chan datagram
	start time.Time

	mu        sync.Mutex
	inbound   *memnet.Link
	outbound  *memnet.Link
	wake      chan struct{}
	done      chan struct{}
	wg        sync.WaitGroup // receive
	delivered sync.WaitGroup // deliver
	closed    sync.Once
}

// simulate wraps inner in the named profile. A server's inbound link is the
// profile's Up (client to server); a client's is its Down.
func simulate(inner socket, profile string, seed uint64, server bool) (socket, error) {
	p, err := memnet.ProfileByName(profile)
	if err != nil {
		return nil, err
	}
	if seed == 0 {
		return nil, memnet.ErrNoSeed
	}
	in, out := p.Down, p.Up
	if server {
		in, out = p.Up, p.Down
	}
	s := &simSocket{
		inner: inner, in: make(chan datagram, incomingDepth), start: time.Now(),
		inbound: memnet.NewLink(in, seed), outbound: memnet.NewLink(out, seed^0x5eed),
		wake: make(chan struct{}, 1), done: make(chan struct{}),
	}
	s.wg.Add(1)
	s.delivered.Add(1)
	go s.receive()
	go s.deliver()
	return s, nil
}

func (s *simSocket) now() transport.Time { return transport.Time(time.Since(s.start)) }

// link returns the simulated link's setting (the inbound direction's; a
// setting applies to both).
func (s *simSocket) link() memnet.LinkConfig {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inbound.Config()
}

// setLink applies c to both directions of the simulated link, from the
// next datagram on.
func (s *simSocket) setLink(c memnet.LinkConfig) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.inbound.SetConfig(c); err != nil {
		return err
	}
	return s.outbound.SetConfig(c)
}

func (s *simSocket) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// receive moves what the inner socket hears onto the inbound link.
func (s *simSocket) receive() {
	defer s.wg.Done()
	for d := range s.inner.Incoming() {
		s.mu.Lock()
		s.inbound.Send(wrapAddr(d.From, d.Bytes), s.now())
		s.mu.Unlock()
		s.poke()
	}
}

// deliver hands each datagram on when its link says it arrives.
func (s *simSocket) deliver() {
	defer s.delivered.Done()
	defer close(s.in)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	closing, drainUntil := false, time.Time{}
	done := s.done // nil once closing: a closed channel is always ready, and waiting on it would spin
	for {
		s.mu.Lock()
		now := s.now()
		var due []datagram
		var sends []datagram
		for {
			b, ok := s.inbound.Receive(now)
			if !ok {
				break
			}
			due = append(due, unwrapAddr(b))
		}
		for {
			b, ok := s.outbound.Receive(now)
			if !ok {
				break
			}
			sends = append(sends, unwrapAddr(b))
		}
		next := time.Hour
		for _, l := range []*memnet.Link{s.inbound, s.outbound} {
			if at, ok := l.NextArrival(); ok {
				next = min(next, time.Duration(at-now))
			}
		}
		s.mu.Unlock()
		for _, d := range sends {
			s.inner.WriteTo(d.Bytes, d.From)
		}
		for _, d := range due {
			select {
			case s.in <- d:
			default:
			}
		}
		if closing {
			s.mu.Lock()
			left := s.outbound.InFlight()
			s.mu.Unlock()
			if left == 0 || time.Now().After(drainUntil) {
				return
			}
		}
		timer.Reset(max(next, 0))
		select {
		case <-done:
			closing, drainUntil, done = true, time.Now().Add(simDrain), nil
		case <-s.wake:
		case <-timer.C:
		}
	}
}

// simDrain is how long a closing simulated socket keeps delivering what it
// has sent (a goodbye, say) before it gives up on the rest.
const simDrain = time.Second

func (s *simSocket) Incoming() <-chan datagram { return s.in }
func (s *simSocket) LocalAddr() netip.AddrPort { return s.inner.LocalAddr() }
func (s *simSocket) Err() error                { return s.inner.Err() }

func (s *simSocket) WriteTo(b []byte, to netip.AddrPort) error {
	if len(b) > transport.MaxDatagram {
		return udp.ErrTooLarge
	}
	s.mu.Lock()
	s.outbound.Send(wrapAddr(to, b), s.now())
	s.mu.Unlock()
	s.poke()
	return nil
}

// Close delivers what this end has already sent (for at most simDrain: a
// goodbye must not be lost to the simulator's own shutdown), drops what is
// still on its way in, and closes the inner socket.
func (s *simSocket) Close() error {
	var err error
	s.closed.Do(func() {
		close(s.done)
		s.delivered.Wait()
		err = s.inner.Close()
		s.wg.Wait()
	})
	return err
}

// wrapAddr and unwrapAddr carry a datagram's address through a link, which
// carries bytes only.
func wrapAddr(a netip.AddrPort, b []byte) []byte {
	ab, _ := a.MarshalBinary()
	out := make([]byte, 0, 1+len(ab)+len(b))
	out = append(out, byte(len(ab)))
	out = append(out, ab...)
	return append(out, b...)
}

func unwrapAddr(b []byte) datagram {
	n := int(b[0])
	var a netip.AddrPort
	a.UnmarshalBinary(b[1 : 1+n])
	return datagram{From: a, Bytes: b[1+n:]}
}

// directIO is a socket the serving loop reads and writes itself, in
// batches, with no goroutine between it and the wire (udp.BatchServer).
type directIO interface {
	// ReadWaiting calls fn with every datagram waiting, without waiting for
	// more; b aliases a buffer the next read reuses. It fails once the
	// socket has closed.
	ReadWaiting(fn func(from netip.AddrPort, b []byte)) error
	// Queue adds a datagram to the next Flush; b must not change until
	// then.
	Queue(b []byte, to netip.AddrPort) error
	// Flush sends what is queued; a datagram refused is dropped, and the
	// first refusal returned.
	Flush() error
}

// directSocket is a udp.BatchServer as a socket, for what reads it as a
// channel (nothing does: Incoming is never ready) and for single writes.
type directSocket struct{ *udp.BatchServer }

var _ directIO = directSocket{} // or the serving loop would never read it

func (directSocket) Incoming() <-chan datagram { return nil }
func (directSocket) Err() error                { return nil }

// listenServer opens a server's socket: read by the loop itself where the
// system has batched calls, unless a link simulator, which needs a reader
// of its own, wraps it; read by a goroutine of its own otherwise.
func listenServer(addr string, sim bool) (socket, error) {
	if !sim {
		b, err := udp.ListenBatch(addr)
		if err == nil {
			return directSocket{b}, nil
		}
		if !errors.Is(err, errors.ErrUnsupported) {
			return nil, err
		}
	}
	return listenUDP(addr)
}

// listen opens a server's socket, on n if it is set and UDP otherwise,
// wrapped in the simulator when asked.
func listen(n *Loopback, addr string, sim string, seed uint64) (socket, error) {
	var s socket
	var err error
	if n != nil {
		s, err = n.listen(addr)
	} else {
		s, err = listenServer(addr, sim != "")
	}
	if err != nil || sim == "" {
		return s, err
	}
	w, err := simulate(s, sim, seed, true)
	if err != nil {
		s.Close()
		return nil, err
	}
	return w, nil
}

// pump runs a session's I/O on the wall clock until ctx ends, duration
// passes (0: no limit) or the socket closes (an error). Each datagram goes
// to receive; after every wake-up, step runs the session with the wall time
// elapsed since the last and returns how long the loop may sleep; a status
// callback runs once a second.
func pump(ctx context.Context, duration time.Duration, sock socket, receive func(datagram), step func(elapsed time.Duration) time.Duration, status func()) error {
	last := time.Now()
	nextStatus := last.Add(time.Second)
	timer := time.NewTimer(0)
	defer timer.Stop()
	var stop <-chan time.Time
	if duration > 0 {
		t := time.NewTimer(duration)
		defer t.Stop()
		stop = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-stop:
			return nil
		case d, ok := <-sock.Incoming():
			if !ok {
				return fmt.Errorf("host: the socket closed: %v", sock.Err())
			}
			receive(d)
		case <-timer.C:
		}
		now := time.Now()
		wait := step(now.Sub(last))
		last = now
		if !now.Before(nextStatus) {
			status()
			nextStatus = nextStatus.Add(time.Second)
		}
		timer.Reset(min(wait, time.Until(nextStatus)))
	}
}

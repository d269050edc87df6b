package netio

import (
	"net/netip"
	"sync"
	"time"

	"vkm/transport"
	"vkm/transport/memnet"
	"vkm/transport/udp"
)

// Sim runs every datagram of an inner socket through the seeded link
// simulator, in real time: received ones through the inbound link before
// the loop sees them, sent ones through the outbound link before they reach
// the wire. A developer serves or plays over a bad link on one machine.
// Make one with Simulate; it is safe for concurrent use.
type Sim struct {
	inner Socket
	in    chan Datagram
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

// Simulate wraps inner in the named profile (memnet.ProfileByName), seeded
// with seed, which must not be 0. A server's inbound link is the profile's
// Up (client to server); a client's is its Down. Closing the Sim closes
// inner.
func Simulate(inner Socket, profile string, seed uint64, server bool) (*Sim, error) {
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
	s := &Sim{
		inner: inner, in: make(chan Datagram, IncomingDepth), start: time.Now(),
		inbound: memnet.NewLink(in, seed), outbound: memnet.NewLink(out, seed^0x5eed),
		wake: make(chan struct{}, 1), done: make(chan struct{}),
	}
	s.wg.Add(1)
	s.delivered.Add(1)
	go s.receive()
	go s.deliver()
	return s, nil
}

func (s *Sim) now() transport.Time { return transport.Time(time.Since(s.start)) }

// Link returns the simulated link's setting (the inbound direction's; a
// setting applies to both).
func (s *Sim) Link() memnet.LinkConfig {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inbound.Config()
}

// SetLink applies c to both directions of the simulated link, from the
// next datagram on.
func (s *Sim) SetLink(c memnet.LinkConfig) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.inbound.SetConfig(c); err != nil {
		return err
	}
	return s.outbound.SetConfig(c)
}

func (s *Sim) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// receive moves what the inner socket hears onto the inbound link.
func (s *Sim) receive() {
	defer s.wg.Done()
	for d := range s.inner.Incoming() {
		s.mu.Lock()
		s.inbound.Send(wrapAddr(d.From, d.Bytes), s.now())
		s.mu.Unlock()
		s.poke()
	}
}

// deliver hands each datagram on when its link says it arrives.
func (s *Sim) deliver() {
	defer s.delivered.Done()
	defer close(s.in)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	closing, drainUntil := false, time.Time{}
	done := s.done // nil once closing: a closed channel is always ready, and waiting on it would spin
	for {
		s.mu.Lock()
		now := s.now()
		var due []Datagram
		var sends []Datagram
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

func (s *Sim) Incoming() <-chan Datagram { return s.in }
func (s *Sim) LocalAddr() netip.AddrPort { return s.inner.LocalAddr() }
func (s *Sim) Err() error                { return s.inner.Err() }

func (s *Sim) WriteTo(b []byte, to netip.AddrPort) error {
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
func (s *Sim) Close() error {
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

func unwrapAddr(b []byte) Datagram {
	n := int(b[0])
	var a netip.AddrPort
	a.UnmarshalBinary(b[1 : 1+n])
	return Datagram{From: a, Bytes: b[1+n:]}
}

var _ Socket = (*Sim)(nil)

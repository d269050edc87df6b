// Package netio is the datagram sockets the host's loops send and receive
// through, and a client's loop on one.
//
// A Socket is a UDP endpoint (Listen, Dial) or an endpoint of an
// in-process Loopback, either of them optionally run through the seeded
// link simulator in real time (Simulate); other packages make sockets of
// their own (a server's web listener, a browser page's link). A Direct
// socket is one the serving loop reads and writes itself, in batches, with
// no goroutine between it and the wire. Pump runs a client's session on a
// socket and the wall clock.
//
// A socket delivers what arrives to its loop's goroutine (Incoming), so
// the sans-IO session it feeds is only ever touched from there.
package netio

import (
	"errors"
	"net/netip"
	"sync"

	"vkm/transport/udp"
)

// Datagram is one received datagram and where it came from. Bytes is the
// receiver's own copy.
type Datagram struct {
	From  netip.AddrPort
	Bytes []byte
}

// Socket is what a session's loop sends and receives through: a UDP
// endpoint, or one wrapped in the link simulator. Incoming delivers to the
// loop's goroutine, so the sans-IO session is only ever touched from there.
type Socket interface {
	// Incoming delivers what arrives; a Direct socket's may never be
	// ready (its loop reads it with ReadWaiting).
	Incoming() <-chan Datagram
	// WriteTo sends b to to; a client's socket ignores to (it is
	// connected to its server).
	WriteTo(b []byte, to netip.AddrPort) error
	LocalAddr() netip.AddrPort
	// Err says why Incoming closed, once it has (nil: Close closed it).
	Err() error
	Close() error
}

// IncomingDepth is how many received datagrams may wait for the loop in
// a socket's Incoming. A loop that falls this far behind is better served
// by dropping (UDP does) than by blocking the read.
const IncomingDepth = 256

// udpSocket adapts a transport/udp endpoint: a goroutine reads it into the
// Incoming channel.
type udpSocket struct {
	in     chan Datagram
	write  func(b []byte, to netip.AddrPort) error
	local  netip.AddrPort
	close  func() error
	wg     sync.WaitGroup
	closed sync.Once
	err    error // why the reader stopped; written before in is closed
}

func newUDPSocket(write func([]byte, netip.AddrPort) error, local netip.AddrPort, serve func(func(netip.AddrPort, []byte)) error, closeFn func() error) *udpSocket {
	s := &udpSocket{in: make(chan Datagram, IncomingDepth), write: write, local: local, close: closeFn}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(s.in)
		s.err = serve(func(from netip.AddrPort, b []byte) {
			select {
			case s.in <- Datagram{From: from, Bytes: append([]byte(nil), b...)}:
			default: // the loop is behind: drop, as the network would
			}
		})
	}()
	return s
}

func (s *udpSocket) Incoming() <-chan Datagram                 { return s.in }
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
func listenUDP(addr string) (Socket, error) { return listenUDPMax(addr, 0) }

// listenUDPMax is listenUDP carrying datagrams of up to max bytes (0:
// transport.MaxDatagram).
func listenUDPMax(addr string, max int) (Socket, error) {
	srv, err := udp.Listen(addr)
	if err != nil {
		return nil, err
	}
	if max > 0 {
		srv.WithMax(max)
	}
	return newUDPSocket(srv.WriteTo, srv.LocalAddr(), srv.Serve, srv.Close), nil
}

// Dial opens a client's socket connected to addr ("host:port"), on n if
// it is set and UDP otherwise. Its WriteTo ignores the address it is given.
func Dial(n *Loopback, addr string) (Socket, error) { return dial(n, addr, 0) }

// dial is Dial whose UDP socket carries datagrams of up to max bytes
// (0: transport.MaxDatagram).
func dial(n *Loopback, addr string, max int) (Socket, error) {
	if n != nil {
		return n.dial(addr)
	}
	c, err := udp.Dial(addr)
	if err != nil {
		return nil, err
	}
	if max > 0 {
		c.WithMax(max)
	}
	remote := c.RemoteAddr()
	serve := func(fn func(netip.AddrPort, []byte)) error {
		return c.Serve(func(b []byte) { fn(remote, b) })
	}
	write := func(b []byte, _ netip.AddrPort) error { return c.Write(b) }
	return newUDPSocket(write, c.LocalAddr(), serve, c.Close), nil
}

// Direct is a socket the serving loop reads and writes itself, in
// batches, with no goroutine between it and the wire (udp.BatchServer).
type Direct interface {
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

var _ Direct = directSocket{} // or the serving loop would never read it

func (directSocket) Incoming() <-chan Datagram { return nil }
func (directSocket) Err() error                { return nil }

// listenServer opens a server's socket: read by the loop itself where the
// system has batched calls, unless a link simulator, which needs a reader
// of its own, wraps it; read by a goroutine of its own otherwise.
func listenServer(addr string, sim bool) (Socket, error) {
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

// Listen opens a server's socket at addr ("host:port"), on n if it is set
// and UDP otherwise, wrapped in the simulator profile sim (with seed) when
// one is named. A UDP socket is Direct where the system has batched calls
// and no simulator wraps it.
func Listen(n *Loopback, addr string, sim string, seed uint64) (Socket, error) {
	var s Socket
	var err error
	if n != nil {
		s, err = n.listen(addr)
	} else {
		s, err = listenServer(addr, sim != "")
	}
	if err != nil || sim == "" {
		return s, err
	}
	w, err := Simulate(s, sim, seed, true)
	if err != nil {
		s.Close()
		return nil, err
	}
	return w, nil
}

package netio

import (
	"errors"
	"fmt"
	"net/netip"
	"sync"
)

// Loopback is an in-process network of datagram sockets: a server and its
// clients in one process talk through it instead of UDP. Its sockets are
// channels, so a serving or playing loop waits on nothing but channels and
// timers, and under testing/synctest time moves only when the test says;
// an end-to-end test then runs on a clock no busy machine can stretch.
//
// Every address is on 127.0.0.1; port 0 picks a free one. A datagram to
// an address nobody holds is lost, and one to a socket whose queue is full
// is dropped, as UDP would. The zero value is not usable: NewLoopback. It
// is safe for concurrent use.
type Loopback struct {
	mu    sync.Mutex
	next  uint16 // the next port a port-0 socket tries
	socks map[netip.AddrPort]*loopSocket
}

// NewLoopback returns an empty in-process network.
func NewLoopback() *Loopback {
	return &Loopback{next: 40000, socks: map[netip.AddrPort]*loopSocket{}}
}

var errLoopbackAddr = errors.New("netio: loopback addresses are 127.0.0.1:PORT")

// bind makes a socket at addr, or at a free port if addr's is 0.
func (n *Loopback) bind(addr string) (*loopSocket, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || ap.Addr() != netip.AddrFrom4([4]byte{127, 0, 0, 1}) {
		return nil, fmt.Errorf("%w: %q", errLoopbackAddr, addr)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if ap.Port() == 0 {
		for n.socks[netip.AddrPortFrom(ap.Addr(), n.next)] != nil {
			n.next++
		}
		ap = netip.AddrPortFrom(ap.Addr(), n.next)
		n.next++
	}
	if n.socks[ap] != nil {
		return nil, fmt.Errorf("netio: loopback %v is in use", ap)
	}
	s := &loopSocket{net: n, local: ap, in: make(chan Datagram, IncomingDepth)}
	n.socks[ap] = s
	return s, nil
}

// listen opens a server's socket at addr.
func (n *Loopback) listen(addr string) (Socket, error) { return n.bind(addr) }

// dial opens a client's socket whose every datagram goes to addr.
func (n *Loopback) dial(addr string) (Socket, error) {
	to, err := n.Resolve(addr)
	if err != nil {
		return nil, err
	}
	s, err := n.bind("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.peer = to
	return s, nil
}

// Resolve parses addr ("127.0.0.1:PORT") as the address a client of n
// sends to, as a name is resolved for UDP.
func (n *Loopback) Resolve(addr string) (netip.AddrPort, error) {
	a, err := netip.ParseAddrPort(addr)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("%w: %q", errLoopbackAddr, addr)
	}
	return a, nil
}

// deliver hands a copy of b to the socket at to, if there is one with
// room.
func (n *Loopback) deliver(from, to netip.AddrPort, b []byte) {
	n.mu.Lock()
	defer n.mu.Unlock()
	s := n.socks[to]
	if s == nil {
		return
	}
	select {
	case s.in <- Datagram{From: from, Bytes: append([]byte(nil), b...)}:
	default: // its loop is behind: dropped, as the network would
	}
}

// loopSocket is one endpoint of a Loopback.
type loopSocket struct {
	net   *Loopback
	local netip.AddrPort
	peer  netip.AddrPort // a client's server; invalid for a server's socket
	in    chan Datagram
}

func (s *loopSocket) Incoming() <-chan Datagram { return s.in }
func (s *loopSocket) LocalAddr() netip.AddrPort { return s.local }
func (s *loopSocket) Err() error                { return nil }

func (s *loopSocket) WriteTo(b []byte, to netip.AddrPort) error {
	if s.peer.IsValid() {
		to = s.peer
	}
	s.net.deliver(s.local, to, b)
	return nil
}

// Close frees the address and ends Incoming.
func (s *loopSocket) Close() error {
	s.net.mu.Lock()
	defer s.net.mu.Unlock()
	if s.net.socks[s.local] != s {
		return nil
	}
	delete(s.net.socks, s.local)
	close(s.in)
	return nil
}

var _ Socket = (*loopSocket)(nil)

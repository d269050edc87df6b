package web

import (
	"errors"
	"net"
	"net/netip"
	"sync"

	"vkm/transport/udp"
)

// wtSocket is the WebTransport port's socket as quic-go is given it: each
// packet read and written as a raw system call on the runtime's poller
// (udp.PollerPacketConn, as the ICE port is), so that neither marks its P
// as in a system call.
//
// Given the *net.UDPConn itself, quic-go reads with recvmmsg and writes
// with sendmsg through plain system calls, and entering one wakes the
// runtime's monitor thread whenever it sleeps deeply, which it does
// between the serving loop's wake-ups: it then polls every 20 µs for a
// while. With WebTransport peers that was the largest single part of
// vkmd's CPU (the monitor thread's sleeps, a seventh of the samples with
// four peers), and every datagram each way, and every acknowledgement,
// went through such a call.
//
// quic-go reads a conn with ReadMsgUDP and WriteMsgUDP that way
// (quic.OOBCapablePacketConn), so wtSocket has neither: noOOB's methods
// of those names, at the same depth as the UDPConn's, make both
// ambiguous, and a struct's method set leaves ambiguous names out. quic-go
// then takes it as a plain net.PacketConn (ReadFrom and WriteTo, here the
// raw calls): one packet a read, no GSO and no ECN, which a peer sent a
// datagram or two a tick has no use for. The UDPConn's SyscallConn stays,
// so quic-go still sets the don't-fragment bit and finds the path's MTU,
// and so do its Close, deadlines and buffer sizes.
type wtSocket struct {
	*net.UDPConn
	//lint:ignore U1000 its presence is its use (see noOOB)
	noOOB
	rw addrPortConn

	// addrs are the addresses ReadFrom has handed out, by source, so that
	// a packet from a known peer allocates none: quic-go keeps and
	// compares them and never changes one. Bounded by maxTracked.
	mu    sync.Mutex
	addrs map[netip.AddrPort]*net.UDPAddr
}

// noOOB hides the UDPConn's ReadMsgUDP and WriteMsgUDP from wtSocket's
// method set (wtSocket); neither is ever called: being there is their use.
//
//lint:ignore U1000 embedded only to make the UDPConn's methods of these names ambiguous
type noOOB struct{}

//lint:ignore U1000 see noOOB
func (noOOB) ReadMsgUDP() {}

//lint:ignore U1000 see noOOB
func (noOOB) WriteMsgUDP() {}

// addrPortConn is the raw reads and writes of udp.PollerPacketConn's
// socket.
type addrPortConn interface {
	ReadFromAddrPort(b []byte) (int, netip.AddrPort, error)
	WriteToAddrPort(b []byte, to netip.AddrPort) (int, error)
}

// newWTSocket returns c as quic-go is given it (wtSocket), or c itself
// where its reads and writes cannot be made raw, or where a reply could
// leave from another address than the one its peer sent to (routedReplies).
func newWTSocket(c *net.UDPConn) net.PacketConn {
	if !routedReplies(c.LocalAddr()) {
		return c
	}
	return rawWTSocket(c)
}

// rawWTSocket returns c as quic-go is given it (wtSocket), or c itself
// where its reads and writes cannot be made raw: a client's socket, whose
// packets all go to the one server and leave from the address the route
// to it picks.
func rawWTSocket(c *net.UDPConn) net.PacketConn {
	rw, ok := udp.PollerPacketConn(c).(addrPortConn)
	if !ok {
		return c
	}
	return &wtSocket{UDPConn: c, rw: rw, addrs: map[netip.AddrPort]*net.UDPAddr{}}
}

// ReadFrom reads one packet into b.
func (s *wtSocket) ReadFrom(b []byte) (int, net.Addr, error) {
	n, from, err := s.rw.ReadFromAddrPort(b)
	if err != nil {
		return 0, nil, err
	}
	s.mu.Lock()
	a := s.addrs[from]
	if a == nil {
		if len(s.addrs) >= maxTracked {
			clear(s.addrs)
		}
		a = net.UDPAddrFromAddrPort(from)
		s.addrs[from] = a
	}
	s.mu.Unlock()
	return n, a, nil
}

// errNotUDP is a write to an address that is not a UDP one.
var errNotUDP = errors.New("web: not a UDP address")

// WriteTo sends b to a as one packet.
func (s *wtSocket) WriteTo(b []byte, a net.Addr) (int, error) {
	ua, ok := a.(*net.UDPAddr)
	if !ok {
		return 0, &net.OpError{Op: "write", Net: "udp", Source: s.LocalAddr(), Addr: a, Err: errNotUDP}
	}
	return s.rw.WriteToAddrPort(b, ua.AddrPort())
}

// routedReplies reports whether a packet sent from a socket bound to
// local reaches its peer from the address the peer sent to without
// saying which: always on a socket bound to one address; on one bound to
// every address only while the host has at most one address of each
// family besides loopback and link-local ones (oneAddressPerFamily), so
// that the route the kernel picks for the reply leaves from it. quic-go
// reading the socket itself learns each packet's own destination
// (IP_PKTINFO) and answers from it; wtSocket's plain reads do not, so a
// host with more addresses keeps quic-go's reads, and their cost.
func routedReplies(local net.Addr) bool {
	a, ok := local.(*net.UDPAddr)
	if !ok {
		return false
	}
	if !a.IP.IsUnspecified() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	return err == nil && oneAddressPerFamily(addrs)
}

// oneAddressPerFamily reports whether addrs hold at most one IPv4 and one
// IPv6 address besides loopback and link-local ones.
func oneAddressPerFamily(addrs []net.Addr) bool {
	var v4, v6 int
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() {
			continue
		}
		if n.IP.To4() != nil {
			v4++
		} else {
			v6++
		}
	}
	return v4 <= 1 && v6 <= 1
}

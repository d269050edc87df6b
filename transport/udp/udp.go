// Package udp is the socket under vkm's transport: a server endpoint, one
// UDP socket that every player's datagrams share, and a client endpoint, a
// socket connected to one server (DESIGN.md, "Packages": transport, the UDP
// endpoint). It moves whole datagrams and decides nothing: what they mean is
// transport.Server's and transport.Client's business, which is why only
// this package in transport imports net, or makes a system call.
//
// Nothing larger than transport.MaxDatagram is ever sent (a write is
// refused whole rather than fragmented), and an arriving datagram larger
// than that is dropped and counted before anyone sees it (BatchServer
// leaves that to the transport, which drops and counts it too).
//
// Server and Client are safe for concurrent use: one goroutine runs Serve
// while others write and, eventually, Close.
//
// BatchServer is the server endpoint for a loop that reads and writes its
// socket itself, in batches, with no goroutine of the package's between
// it and the wire (recvmmsg and sendmmsg, on Linux amd64 and arm64 only;
// elsewhere ListenBatch says it is unsupported and Listen serves). It
// belongs to that one goroutine.
package udp

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync/atomic"
	"syscall"

	"vkm/transport"
)

// readSize is the read buffer: one byte over the largest datagram, so a
// larger one shows as a read that fills it rather than passing, cut, as a
// datagram of exactly MaxDatagram bytes.
const readSize = transport.MaxDatagram + 1

// ReceiveBuffer is the kernel receive buffer a server's socket asks for:
// a burst of MaxDatagram datagrams, some 870 of them (every player of a
// full match joining at once, or a tick's worth from 256 players with
// room), waits in it while the serving loop is busy with a tick, rather
// than being dropped by the kernel. The kernel may give less (Linux caps
// it at net.core.rmem_max, 208 KiB by default); ReceiveBufferGot says
// what it gave. Tuning constant.
const ReceiveBuffer = 1 << 20

// ErrTooLarge is returned for a datagram over transport.MaxDatagram; nothing
// is sent.
var ErrTooLarge = errors.New("udp: datagram larger than transport.MaxDatagram")

// Stats counts what an endpoint dropped or shrugged off. It is a plain value,
// safe to copy.
type Stats struct {
	// Oversize: datagrams received larger than transport.MaxDatagram.
	Oversize uint64
	// ReadErrors: reads that failed for a reason that does not stop the
	// loop, such as the ICMP "port unreachable" a connected socket reports
	// after sending to a server that is not there yet.
	ReadErrors uint64
}

// counters is the atomic form of Stats, written by the read loop.
type counters struct {
	oversize, readErrors atomic.Uint64
}

func (c *counters) stats() Stats {
	return Stats{Oversize: c.oversize.Load(), ReadErrors: c.readErrors.Load()}
}

// Server is a server's endpoint: one socket for every client. Make one with
// Listen.
type Server struct {
	conn *net.UDPConn
	n    counters
	max  int // the largest datagram sent or received
}

// Listen opens a server socket on addr ("host:port"; port 0 picks a free
// one, ":27960" listens on every interface).
func Listen(addr string) (*Server, error) {
	conn, err := listenConn(addr)
	if err != nil {
		return nil, err
	}
	if err := ignoreConnReset(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("udp: listen %q: %w", addr, err)
	}
	return &Server{conn: conn, max: transport.MaxDatagram}, nil
}

// WithMax sets the largest datagram s sends and receives to max bytes
// in place of transport.MaxDatagram, and returns s: a relay's socket
// carries a vkm datagram in an envelope a little larger
// (transport/relay.MaxDatagram). Call it before Serve.
func (s *Server) WithMax(max int) *Server {
	s.max = max
	return s
}

// LocalAddr returns the address the socket is bound to.
func (s *Server) LocalAddr() netip.AddrPort { return s.conn.LocalAddr().(*net.UDPAddr).AddrPort() }

// WriteTo sends one datagram to a client. It refuses one over
// transport.MaxDatagram with ErrTooLarge.
func (s *Server) WriteTo(datagram []byte, to netip.AddrPort) error {
	if len(datagram) > s.max {
		return ErrTooLarge
	}
	_, err := s.conn.WriteToUDPAddrPort(datagram, to)
	return err
}

// Serve reads datagrams until Close and calls fn with each one and its
// source (an IPv4 peer on a dual-stack socket is given as plain IPv4).
// datagram aliases a buffer the next read reuses: fn must copy what it keeps.
// Serve returns nil after Close, or the error that stopped it.
func (s *Server) Serve(fn func(from netip.AddrPort, datagram []byte)) error {
	buf := make([]byte, s.max+1)
	for {
		n, from, err := s.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if stop, err := s.n.readFailed(err); stop {
				return err
			}
			continue
		}
		if n > s.max {
			s.n.oversize.Add(1)
			continue
		}
		fn(netip.AddrPortFrom(from.Addr().Unmap(), from.Port()), buf[:n])
	}
}

// Stats returns the counters so far.
func (s *Server) Stats() Stats { return s.n.stats() }

// Close closes the socket, which ends Serve.
func (s *Server) Close() error { return s.conn.Close() }

// Client is a client's endpoint: a socket connected to one server, so it
// hears only that server. Make one with Dial.
type Client struct {
	conn *net.UDPConn
	n    counters
	max  int // the largest datagram sent or received
}

// Dial opens a socket on a free local port, connected to the server at addr
// ("host:port").
func Dial(addr string) (*Client, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("udp: dial %q: %w", addr, err)
	}
	conn, err := net.DialUDP("udp", nil, ua)
	if err != nil {
		return nil, fmt.Errorf("udp: dial %q: %w", addr, err)
	}
	if err := ignoreConnReset(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("udp: dial %q: %w", addr, err)
	}
	return &Client{conn: conn, max: transport.MaxDatagram}, nil
}

// WithMax sets the largest datagram c sends and receives to max bytes
// in place of transport.MaxDatagram, and returns c (see Server.WithMax).
// Call it before Serve.
func (c *Client) WithMax(max int) *Client {
	c.max = max
	return c
}

// ReceiveBufferGot returns the receive buffer the kernel gave the
// server's socket, in bytes (Linux reports twice what it holds for
// datagrams, its bookkeeping included), or 0 if it cannot say.
func (s *Server) ReceiveBufferGot() int { return receiveBuffer(s.conn) }

// receiveBuffer reads SO_RCVBUF of conn, or 0.
func receiveBuffer(conn *net.UDPConn) int {
	raw, err := conn.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	_ = raw.Control(func(fd uintptr) { n = getRcvbuf(fd) })
	return n
}

// LocalAddr returns the address the socket is bound to: what the server
// sees as this client's address, unless a NAT lies between them.
func (c *Client) LocalAddr() netip.AddrPort { return c.conn.LocalAddr().(*net.UDPAddr).AddrPort() }

// RemoteAddr returns the server's address.
func (c *Client) RemoteAddr() netip.AddrPort { return c.conn.RemoteAddr().(*net.UDPAddr).AddrPort() }

// Write sends one datagram to the server. It refuses one over
// transport.MaxDatagram with ErrTooLarge.
func (c *Client) Write(datagram []byte) error {
	if len(datagram) > c.max {
		return ErrTooLarge
	}
	_, err := c.conn.Write(datagram)
	return err
}

// Serve reads datagrams from the server until Close and calls fn with each.
// datagram aliases a buffer the next read reuses. A read failing because
// the server's port is not (yet) open is counted and the loop goes on.
// Serve returns nil after Close, or the error that stopped it.
func (c *Client) Serve(fn func(datagram []byte)) error {
	buf := make([]byte, c.max+1)
	for {
		n, err := c.conn.Read(buf)
		if err != nil {
			if stop, err := c.n.readFailed(err); stop {
				return err
			}
			continue
		}
		if n > c.max {
			c.n.oversize.Add(1)
			continue
		}
		fn(buf[:n])
	}
}

// Stats returns the counters so far.
func (c *Client) Stats() Stats { return c.n.stats() }

// Close closes the socket, which ends Serve.
func (c *Client) Close() error { return c.conn.Close() }

// readFailed sorts a read error: the socket closed (stop, nil), an ICMP
// report about an earlier send (counted; go on), anything else (stop, err).
// The ICMP reports concern some other datagram than the one being read, so
// they must not end the loop: on a server's shared socket that would be one
// departed client cutting off all the others.
func (n *counters) readFailed(err error) (stop bool, _ error) {
	switch {
	case errors.Is(err, net.ErrClosed):
		return true, nil
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET):
		n.readErrors.Add(1)
		return false, nil
	}
	return true, fmt.Errorf("udp: read: %w", err)
}

// listenConn opens a UDP socket on addr ("host:port"; port 0 picks a free
// one), with the error naming the address: the one way Listen and
// ListenBatch open one.
func listenConn(addr string) (*net.UDPConn, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("udp: listen %q: %w", addr, err)
	}
	conn, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, fmt.Errorf("udp: listen %q: %w", addr, err)
	}
	// A smaller buffer than asked for is still a socket: the kernel's cap
	// is the machine's, and ReceiveBufferGot reports it.
	_ = conn.SetReadBuffer(ReceiveBuffer)
	return conn, nil
}

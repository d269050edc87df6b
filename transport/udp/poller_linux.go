//go:build linux

package udp

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawUDP is the ICE port's socket as the mux reads and writes it: the
// same socket, on the runtime's network poller as before, but each
// recvfrom and sendto made as a raw system call inside the poller's
// RawConn.Read and RawConn.Write, which park the goroutine on the poller
// when the socket has nothing to read or no room, as net.UDPConn's own
// calls do.
//
// A plain system call (net.UDPConn's) marks its P as in a call, and
// entering one wakes the runtime's monitor thread (sysmon) whenever it
// sleeps deeply, which it does between the serving loop's wake-ups on a
// server whose Ps are idle (host/loop's timer): it then polls every 20 µs
// for a while. Every datagram a WebRTC peer sends or is sent went through
// one, about 100 a second each at 64 Hz; a non-blocking recvfrom or sendto
// needs no hand-off of its P, so here neither is one.
//
// The mux takes a conn with ReadFromAddrPort and WriteToAddrPort for its
// reads and writes (ice.AddrPortReaderWriter); every other method is the
// net.UDPConn's. Reads come from the mux's one reading goroutine and writes
// from every peer's, so each has its own lock and state, bound once: a read
// or a write allocates nothing.
type rawUDP struct {
	*net.UDPConn
	rc syscall.RawConn
	// v4 is an AF_INET socket's (it reaches only IPv4 addresses); any
	// other here is AF_INET6.
	v4 bool

	rmu   sync.Mutex
	rbuf  []byte
	rfrom unix.RawSockaddrAny
	rn    int
	rerr  unix.Errno
	read  func(fd uintptr) bool

	wmu   sync.Mutex
	wbuf  []byte
	wto   unix.RawSockaddrInet6
	wlen  uintptr
	wn    int
	werr  unix.Errno
	write func(fd uintptr) bool
}

// PollerPacketConn is c with its reads and writes made as raw system
// calls on the runtime's poller (rawUDP), where the socket's family is
// known, c itself otherwise: host/web gives the ICE mux its port this way.
func PollerPacketConn(c *net.UDPConn) net.PacketConn {
	rc, err := c.SyscallConn()
	if err != nil {
		return c
	}
	var family int
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		family, ferr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_DOMAIN)
	}); err != nil || ferr != nil || (family != unix.AF_INET && family != unix.AF_INET6) {
		return c
	}
	u := &rawUDP{UDPConn: c, rc: rc, v4: family == unix.AF_INET}
	u.read = func(fd uintptr) bool {
		for {
			l := uint32(unix.SizeofSockaddrAny)
			n, _, e := unix.RawSyscall6(unix.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(unsafe.SliceData(u.rbuf))), uintptr(len(u.rbuf)),
				0, uintptr(unsafe.Pointer(&u.rfrom)), uintptr(unsafe.Pointer(&l)))
			switch e {
			case unix.EINTR:
				continue
			case unix.EAGAIN:
				return false // nothing yet: wait on the poller
			}
			u.rn, u.rerr = int(n), e
			return true
		}
	}
	u.write = func(fd uintptr) bool {
		for {
			n, _, e := unix.RawSyscall6(unix.SYS_SENDTO, fd, uintptr(unsafe.Pointer(unsafe.SliceData(u.wbuf))), uintptr(len(u.wbuf)),
				0, uintptr(unsafe.Pointer(&u.wto)), u.wlen)
			switch e {
			case unix.EINTR:
				continue
			case unix.EAGAIN:
				return false // no room: wait on the poller, as net.UDPConn does
			}
			u.wn, u.werr = int(n), e
			return true
		}
	}
	return u
}

// errUnreachable is a write to an address the socket's family cannot
// reach (IPv6 from an IPv4 socket).
var errUnreachable = errors.New("web: the ICE socket cannot reach that address")

// ReadFromAddrPort reads one datagram into b, as net.UDPConn's
// ReadFromUDPAddrPort does: an AF_INET6 socket gives an IPv4 peer's address
// as mapped.
func (u *rawUDP) ReadFromAddrPort(b []byte) (int, netip.AddrPort, error) {
	u.rmu.Lock()
	defer u.rmu.Unlock()
	u.rbuf = b
	err := u.rc.Read(u.read)
	u.rbuf = nil
	if err == nil && u.rerr != 0 {
		err = &net.OpError{Op: "read", Net: "udp", Source: u.LocalAddr(), Err: u.rerr}
	}
	if err != nil {
		return 0, netip.AddrPort{}, err
	}
	from, ok := rawSockaddr(&u.rfrom)
	if !ok {
		return 0, netip.AddrPort{}, &net.OpError{Op: "read", Net: "udp", Source: u.LocalAddr(), Err: unix.EAFNOSUPPORT}
	}
	return u.rn, from, nil
}

// WriteToAddrPort sends b to to as one datagram.
func (u *rawUDP) WriteToAddrPort(b []byte, to netip.AddrPort) (int, error) {
	u.wmu.Lock()
	defer u.wmu.Unlock()
	if !u.sockaddr(to) {
		return 0, &net.OpError{Op: "write", Net: "udp", Source: u.LocalAddr(), Addr: net.UDPAddrFromAddrPort(to), Err: errUnreachable}
	}
	u.wbuf = b
	err := u.rc.Write(u.write)
	u.wbuf = nil
	if err == nil && u.werr != 0 {
		err = u.werr
	}
	if err != nil {
		return 0, &net.OpError{Op: "write", Net: "udp", Source: u.LocalAddr(), Addr: net.UDPAddrFromAddrPort(to), Err: err}
	}
	return u.wn, nil
}

// sockaddr sets the write's address to to as the socket's family takes
// it: an IPv4 socket only IPv4 addresses, an IPv6 one any (IPv4 as
// mapped).
func (u *rawUDP) sockaddr(to netip.AddrPort) bool {
	u.wto = unix.RawSockaddrInet6{}
	a := to.Addr()
	if u.v4 {
		if !a.Unmap().Is4() {
			return false
		}
		p := (*unix.RawSockaddrInet4)(unsafe.Pointer(&u.wto))
		p.Family = unix.AF_INET
		binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&p.Port))[:], to.Port())
		p.Addr = a.Unmap().As4()
		u.wlen = unix.SizeofSockaddrInet4
		return true
	}
	u.wto.Family = unix.AF_INET6
	binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&u.wto.Port))[:], to.Port())
	u.wto.Addr = a.As16()
	if z := a.Zone(); z != "" {
		if n, err := strconv.ParseUint(z, 10, 32); err == nil {
			u.wto.Scope_id = uint32(n)
		} else if ifi, err := net.InterfaceByName(z); err == nil {
			u.wto.Scope_id = uint32(ifi.Index)
		}
	}
	u.wlen = unix.SizeofSockaddrInet6
	return true
}

// rawSockaddr is a datagram's source as net.UDPConn gives it: IPv4 from
// an AF_INET socket, the 16 bytes as they are from an AF_INET6 one (an
// IPv4 peer mapped), with a link-local peer's zone.
func rawSockaddr(a *unix.RawSockaddrAny) (netip.AddrPort, bool) {
	switch a.Addr.Family {
	case unix.AF_INET:
		p := (*unix.RawSockaddrInet4)(unsafe.Pointer(a))
		port := binary.BigEndian.Uint16((*[2]byte)(unsafe.Pointer(&p.Port))[:])
		return netip.AddrPortFrom(netip.AddrFrom4(p.Addr), port), true
	case unix.AF_INET6:
		p := (*unix.RawSockaddrInet6)(unsafe.Pointer(a))
		port := binary.BigEndian.Uint16((*[2]byte)(unsafe.Pointer(&p.Port))[:])
		addr := netip.AddrFrom16(p.Addr)
		if p.Scope_id != 0 {
			if ifi, err := net.InterfaceByIndex(int(p.Scope_id)); err == nil {
				addr = addr.WithZone(ifi.Name)
			} else {
				addr = addr.WithZone(strconv.FormatUint(uint64(p.Scope_id), 10))
			}
		}
		return netip.AddrPortFrom(addr, port), true
	}
	return netip.AddrPort{}, false
}

// rawTCP is a WebSocket peer's connection as the WebSocket library reads
// and writes it: net.TCPConn's own socket and poller, with each read and
// write a raw system call inside RawConn.Read and RawConn.Write, for the
// reason rawUDP's are (a plain call wakes the runtime's monitor thread).
// The library has one reader and one writer at a time; each direction
// still has its own lock, and its state bound once.
type rawTCP struct {
	*net.TCPConn
	rc syscall.RawConn

	rmu  sync.Mutex
	rbuf []byte
	rn   int
	rerr unix.Errno
	read func(fd uintptr) bool

	wmu   sync.Mutex
	wbuf  []byte
	wn    int
	werr  unix.Errno
	write func(fd uintptr) bool
}

// PollerStreamConn is c with its reads and writes made as raw system
// calls on the runtime's poller (rawTCP) for a TCP connection, c itself
// otherwise: host/web gives the WebSocket library its connections this
// way.
func PollerStreamConn(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	t := &rawTCP{TCPConn: tc, rc: rc}
	t.read = func(fd uintptr) bool {
		for {
			n, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(t.rbuf))), uintptr(len(t.rbuf)))
			switch e {
			case unix.EINTR:
				continue
			case unix.EAGAIN:
				return false
			}
			t.rn, t.rerr = int(n), e
			return true
		}
	}
	t.write = func(fd uintptr) bool {
		for t.wn < len(t.wbuf) {
			rest := t.wbuf[t.wn:]
			n, _, e := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(rest))), uintptr(len(rest)))
			switch e {
			case 0:
				t.wn += int(n)
			case unix.EINTR:
			case unix.EAGAIN:
				return false // the socket's buffer is full: wait for room
			default:
				t.werr = e
				return true
			}
		}
		return true
	}
	return t
}

// Read reads what the connection has, up to len(b), as net.TCPConn's
// Read does: 0 and io.EOF once the other end has closed its side.
func (t *rawTCP) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	t.rmu.Lock()
	defer t.rmu.Unlock()
	t.rbuf, t.rn, t.rerr = b, 0, 0
	err := t.rc.Read(t.read)
	t.rbuf = nil
	if err == nil && t.rerr != 0 {
		err = t.rerr
	}
	if err != nil {
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: t.LocalAddr(), Addr: t.RemoteAddr(), Err: err}
	}
	if t.rn == 0 {
		return 0, io.EOF
	}
	return t.rn, nil
}

// Write writes all of b, waiting on the poller while the socket's buffer
// is full, as net.TCPConn's Write does.
func (t *rawTCP) Write(b []byte) (int, error) {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	t.wbuf, t.wn, t.werr = b, 0, 0
	err := t.rc.Write(t.write)
	t.wbuf = nil
	if err == nil && t.werr != 0 {
		err = t.werr
	}
	if err != nil {
		return t.wn, &net.OpError{Op: "write", Net: "tcp", Source: t.LocalAddr(), Addr: t.RemoteAddr(), Err: err}
	}
	return t.wn, nil
}

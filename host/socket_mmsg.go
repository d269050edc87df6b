//go:build linux && (amd64 || arm64)

package host

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"vkm/transport"
	"vkm/transport/udp"
)

// The batch calls' numbers, which package syscall does not name on every
// architecture.
var sysRecvmmsg, sysSendmmsg = func() (uintptr, uintptr) {
	if runtime.GOARCH == "arm64" {
		return 243, 269
	}
	return 299, 307 // amd64
}()

// mmsgBatch is how many datagrams one recvmmsg or sendmmsg call moves: a
// tick's worth of command packets from 64 players. Tuning constant.
const mmsgBatch = 64

// directReadBuffer is the socket receive buffer a directly read server asks
// for: it holds what arrives between two wake-ups (64 players' command
// packets many times over). The kernel caps it at net.core.rmem_max.
// Tuning constant.
const directReadBuffer = 1 << 20

// mmsghdr is the kernel's struct mmsghdr.
type mmsghdr struct {
	hdr syscall.Msghdr
	n   uint32
}

// directSocket is a server's UDP socket that the serving loop reads itself:
// no reader goroutine, so a datagram wakes nobody. The loop takes in what
// is waiting, in batches of mmsgBatch a system call, whenever it wakes for
// work of its own, and sends a wake-up's datagrams the same way.
//
// Its descriptor is its own, outside the runtime's network poller: a
// socket the poller watches wakes the poller's thread for every datagram
// that arrives (edge-triggered, an edge per datagram), although nobody
// waits on it; 4 players at 128 Hz made 512 such wake-ups a second, half
// of the server's context switches. So the socket is opened as any other
// (udp.ListenConn), its descriptor duplicated, and the original closed,
// which takes it out of the poller.
type directSocket struct {
	fd     int
	closed bool
	local  netip.AddrPort

	bufs  []byte // mmsgBatch read buffers of readSize
	names [mmsgBatch]syscall.RawSockaddrAny
	iovs  [mmsgBatch]syscall.Iovec
	msgs  [mmsgBatch]mmsghdr
	// got and errno are what the last recvmmsg or sendmmsg returned.
	got   int
	errno syscall.Errno
	// The datagrams waiting to be sent, with their addresses as the kernel
	// takes them.
	out   [][]byte
	outTo [mmsgBatch]syscall.RawSockaddrInet6
}

// readSize is one byte over the largest datagram, so a larger one shows as
// a read that fills the buffer (the transport drops and counts it).
const readSize = transport.MaxDatagram + 1

// listenDirect opens a server's socket on addr ("host:port") for the loop
// to read itself.
func listenDirect(addr string) (*directSocket, error) {
	conn, err := udp.ListenConn(addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close() // the duplicate keeps the socket open
	raw, err := conn.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("udp: listen %q: %w", addr, err)
	}
	conn.SetReadBuffer(directReadBuffer) // best effort: the default still works
	fd, errno := -1, syscall.Errno(0)
	if err := raw.Control(func(orig uintptr) {
		r, _, e := syscall.Syscall(syscall.SYS_FCNTL, orig, syscall.F_DUPFD_CLOEXEC, 0)
		fd, errno = int(r), e
	}); err != nil {
		return nil, fmt.Errorf("udp: listen %q: %w", addr, err)
	}
	if errno != 0 {
		return nil, fmt.Errorf("udp: listen %q: duplicating the socket: %w", addr, errno)
	}
	// The duplicate shares the original's open file, non-blocking too.
	s := &directSocket{fd: fd, bufs: make([]byte, mmsgBatch*readSize)}
	s.local = conn.LocalAddr().(*net.UDPAddr).AddrPort()
	for i := range s.msgs {
		s.iovs[i].Base = &s.bufs[i*readSize]
		s.iovs[i].SetLen(readSize)
	}
	return s, nil
}

// rawCalls: recvmmsg and sendmmsg go through syscall.RawSyscall6, not
// Syscall6. Both are MSG_DONTWAIT, so neither ever parks the thread, and
// Syscall6 would mark the loop's P as in a system call for the call's
// length: the runtime's monitor thread, seeing a P in a call, polls every
// 20 µs for a while afterwards in case it must hand the P on. On a server
// that wakes 128 times a second those polls were a tenth of its CPU
// (perf: usleep in sysmon).

// recv is one recvmmsg, not waiting: got is how many datagrams came.
func (s *directSocket) recv() {
	for i := range s.msgs {
		h := &s.msgs[i].hdr
		h.Name = (*byte)(unsafe.Pointer(&s.names[i]))
		h.Namelen = syscall.SizeofSockaddrAny
		h.Iov = &s.iovs[i]
		h.Iovlen = 1
		h.Control, h.Controllen, h.Flags = nil, 0, 0
	}
	for {
		// Raw: a call that never waits needs no hand-off of its P, and
		// marking one as in a system call is what wakes the runtime's
		// monitor thread to watch it (see rawCalls).
		n, _, e := syscall.RawSyscall6(sysRecvmmsg, uintptr(s.fd), uintptr(unsafe.Pointer(&s.msgs[0])), mmsgBatch, syscall.MSG_DONTWAIT, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		s.got, s.errno = int(n), e
		if e != 0 {
			s.got = 0
		}
		return // never wait: the loop reads again when it next wakes
	}
}

// readWaiting calls fn with every datagram waiting on the socket, without
// waiting for more. b aliases a buffer the next read reuses. It fails only
// once the socket is closed.
func (s *directSocket) readWaiting(fn func(from netip.AddrPort, b []byte)) error {
	for {
		if s.closed {
			return net.ErrClosed
		}
		s.recv()
		for i := range s.got {
			from, ok := sockaddrPort(&s.names[i])
			if !ok {
				continue
			}
			n := int(s.msgs[i].n)
			fn(from, s.bufs[i*readSize:i*readSize+n])
		}
		// A short batch (or EAGAIN, or a passing error such as a refused
		// port) means the queue is empty for now.
		if s.got < mmsgBatch {
			return nil
		}
	}
}

// sockaddrPort reads a datagram's source (an IPv4 peer on a dual-stack
// socket is given as plain IPv4).
func sockaddrPort(a *syscall.RawSockaddrAny) (netip.AddrPort, bool) {
	switch a.Addr.Family {
	case syscall.AF_INET:
		p := (*syscall.RawSockaddrInet4)(unsafe.Pointer(a))
		port := binary.BigEndian.Uint16((*[2]byte)(unsafe.Pointer(&p.Port))[:])
		return netip.AddrPortFrom(netip.AddrFrom4(p.Addr), port), true
	case syscall.AF_INET6:
		p := (*syscall.RawSockaddrInet6)(unsafe.Pointer(a))
		port := binary.BigEndian.Uint16((*[2]byte)(unsafe.Pointer(&p.Port))[:])
		addr := netip.AddrFrom16(p.Addr).Unmap()
		if p.Scope_id != 0 && addr.Is6() {
			// A link-local peer is reached through the interface it came
			// in on: keep it, as its number, so replies go back there.
			addr = addr.WithZone(strconv.FormatUint(uint64(p.Scope_id), 10))
		}
		return netip.AddrPortFrom(addr, port), true
	}
	return netip.AddrPort{}, false
}

// queue adds one datagram to the batch flush sends. b must stay as it is
// until then.
func (s *directSocket) queue(b []byte, to netip.AddrPort) error {
	if len(b) > transport.MaxDatagram {
		return udp.ErrTooLarge
	}
	if len(s.out) == mmsgBatch {
		if err := s.flush(); err != nil {
			return err
		}
	}
	if !s.sockaddr(&s.outTo[len(s.out)], to) {
		return fmt.Errorf("udp: cannot send to %v from %v", to, s.local)
	}
	s.out = append(s.out, b)
	return nil
}

// sockaddr fills sa with to as this socket's family takes it: an IPv4
// socket only IPv4 addresses (as a sockaddr_in), an IPv6 one any (IPv4 as
// mapped).
func (s *directSocket) sockaddr(sa *syscall.RawSockaddrInet6, to netip.AddrPort) bool {
	*sa = syscall.RawSockaddrInet6{}
	if s.local.Addr().Is4() {
		if !to.Addr().Unmap().Is4() {
			return false
		}
		p := (*syscall.RawSockaddrInet4)(unsafe.Pointer(sa))
		p.Family = syscall.AF_INET
		binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&p.Port))[:], to.Port())
		p.Addr = to.Addr().Unmap().As4()
		return true
	}
	sa.Family = syscall.AF_INET6
	binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&sa.Port))[:], to.Port())
	sa.Addr = to.Addr().As16()
	if z := to.Addr().Zone(); z != "" {
		if n, err := strconv.ParseUint(z, 10, 32); err == nil {
			sa.Scope_id = uint32(n)
		} else if ifi, err := net.InterfaceByName(z); err == nil {
			sa.Scope_id = uint32(ifi.Index)
		}
	}
	return true
}

// flush sends the queued datagrams, as few sendmmsg calls as the kernel
// takes them in. A datagram the kernel refuses is dropped, as the network
// would, and the rest go on; the first refusal is returned.
func (s *directSocket) flush() error {
	var first error
	for len(s.out) > 0 {
		for i, b := range s.out {
			s.iovs[i].Base = unsafe.SliceData(b)
			s.iovs[i].SetLen(len(b))
			h := &s.msgs[i].hdr
			h.Name = (*byte)(unsafe.Pointer(&s.outTo[i]))
			h.Namelen = syscall.SizeofSockaddrInet6
			if s.outTo[i].Family == syscall.AF_INET {
				h.Namelen = syscall.SizeofSockaddrInet4
			}
			h.Iov = &s.iovs[i]
			h.Iovlen = 1
			h.Control, h.Controllen, h.Flags = nil, 0, 0
		}
		if err := s.send(); err != nil {
			clear(s.out)
			s.out = s.out[:0]
			first = cmp.Or(first, err) // closed, or no room: nothing more goes
			break
		}
		sent := s.got
		if s.errno != 0 {
			first = cmp.Or(first, error(s.errno))
			sent = 1 // drop the one refused and go on with the rest
		}
		sent = max(sent, 1)
		n := copy(s.out, s.out[sent:])
		copy(s.outTo[:], s.outTo[sent:sent+n])
		clear(s.out[n:])
		s.out = s.out[:n]
	}
	// Put the read buffers back in the vectors the sends borrowed.
	for i := range s.iovs {
		s.iovs[i].Base = &s.bufs[i*readSize]
		s.iovs[i].SetLen(readSize)
	}
	return first
}

// send is one sendmmsg of the queued datagrams. A full socket buffer is
// waited on for room, as a plain write would, up to sendWait; it fails
// when the socket is closed or the wait runs out.
func (s *directSocket) send() error {
	waited := false
	for {
		if s.closed {
			return net.ErrClosed
		}
		// Raw: see rawCalls.
		n, _, e := syscall.RawSyscall6(sysSendmmsg, uintptr(s.fd), uintptr(unsafe.Pointer(&s.msgs[0])), uintptr(len(s.out)), syscall.MSG_DONTWAIT, 0, 0)
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			if waited {
				return fmt.Errorf("udp: no room to send for %v", sendWait)
			}
			s.waitWritable()
			waited = true
			continue
		}
		s.got, s.errno = int(n), e
		if e != 0 {
			s.got = 0
		}
		return nil
	}
}

// sendWait bounds how long a send waits for room in a full socket buffer.
// Tuning constant.
const sendWait = 20 * time.Millisecond

// waitWritable waits, up to sendWait, for the socket to have room. It is a
// plain ppoll: the socket is not the runtime poller's (see directSocket),
// and the wait is rare (a kernel buffer full of datagrams).
func (s *directSocket) waitWritable() {
	pfd := struct {
		fd             int32
		events, revent int16
	}{fd: int32(s.fd), events: 0x4} // POLLOUT
	ts := syscall.NsecToTimespec(int64(sendWait))
	syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
}

// The socket interface, for what reads it as a channel (nothing does:
// Incoming is never ready) and for single writes.
func (s *directSocket) Incoming() <-chan datagram { return nil }
func (s *directSocket) WriteTo(b []byte, to netip.AddrPort) error {
	if err := s.queue(b, to); err != nil {
		return err
	}
	return s.flush()
}
func (s *directSocket) LocalAddr() netip.AddrPort { return s.local }
func (s *directSocket) Err() error                { return nil }
func (s *directSocket) Close() error {
	if s.closed {
		return net.ErrClosed
	}
	s.closed = true
	return syscall.Close(s.fd)
}

// listenServer opens a server's socket: read by the loop itself unless a
// link simulator, which needs a reader of its own, wraps it.
func listenServer(addr string, sim bool) (socket, error) {
	if sim {
		return listenUDP(addr)
	}
	return listenDirect(addr)
}

//go:build linux && (amd64 || arm64)

package udp

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"vkm/transport"
)

// mmsgBatch is how many datagrams one recvmmsg or sendmmsg call moves: a
// tick's worth of command packets from 64 players. Tuning constant.
const mmsgBatch = 64

// batchReadBuffer is the socket receive buffer a BatchServer asks for: it
// holds what arrives between two of its owner's wake-ups (64 players'
// command packets many times over). The kernel caps it at
// net.core.rmem_max. Tuning constant.
const batchReadBuffer = ReceiveBuffer

// BatchServer is a server's endpoint that its owner reads and writes
// itself, in batches, with no goroutine between it and the wire: a
// datagram that arrives wakes nobody. The owner takes in what is waiting
// (ReadWaiting, up to 64 datagrams a recvmmsg) whenever it wakes for work
// of its own, and sends a wake-up's datagrams the same way (Queue, then
// Flush: a sendmmsg). Make one with ListenBatch.
//
// Its descriptor is its own, outside the runtime's network poller: a
// socket the poller watches wakes the poller's thread for every datagram
// that arrives (edge-triggered, an edge per datagram), although nobody
// waits on it; 4 players at 128 Hz made 512 such wake-ups a second, half
// of the server's context switches. So the socket is opened as any other
// (as Listen opens one), its descriptor duplicated, and the original
// closed, which takes it out of the poller.
//
// A BatchServer is not safe for concurrent use: one goroutine reads,
// sends and closes it. The zero value is a closed endpoint.
type BatchServer struct {
	fd    int
	open  bool
	local netip.AddrPort

	bufs  []byte // mmsgBatch read buffers of readSize
	names [mmsgBatch]unix.RawSockaddrAny
	iovs  [mmsgBatch]unix.Iovec
	msgs  [mmsgBatch]unix.Mmsghdr
	// got and errno are what the last recvmmsg or sendmmsg returned.
	got   int
	errno unix.Errno
	// The datagrams waiting to be sent, with their addresses as the kernel
	// takes them.
	out   [][]byte
	outTo [mmsgBatch]unix.RawSockaddrInet6
}

// ListenBatch opens a server socket on addr ("host:port"; port 0 picks a
// free one) for its owner to read itself. Where batched calls are not
// available it fails with an error matching errors.ErrUnsupported, and
// the caller falls back to Listen.
func ListenBatch(addr string) (*BatchServer, error) {
	conn, err := listenConn(addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close() // the duplicate keeps the socket open
	raw, err := conn.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("udp: listen %q: %w", addr, err)
	}
	conn.SetReadBuffer(batchReadBuffer) // best effort: the default still works
	fd, dupErr := -1, error(nil)
	if err := raw.Control(func(orig uintptr) {
		fd, dupErr = unix.FcntlInt(orig, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, fmt.Errorf("udp: listen %q: %w", addr, err)
	}
	if dupErr != nil {
		return nil, fmt.Errorf("udp: listen %q: duplicating the socket: %w", addr, dupErr)
	}
	// The duplicate shares the original's open file, non-blocking too.
	s := &BatchServer{fd: fd, open: true, bufs: make([]byte, mmsgBatch*readSize)}
	s.local = conn.LocalAddr().(*net.UDPAddr).AddrPort()
	s.resetIovs()
	return s, nil
}

// resetIovs points every vector at its read buffer (the zero value has
// none).
func (s *BatchServer) resetIovs() {
	if s.bufs == nil {
		return
	}
	for i := range s.iovs {
		s.iovs[i].Base = &s.bufs[i*readSize]
		s.iovs[i].SetLen(readSize)
	}
}

// rawCalls: recvmmsg and sendmmsg go through unix.RawSyscall6, not
// Syscall6. Both are MSG_DONTWAIT, so neither ever parks the thread, and
// Syscall6 would mark the owner's P as in a system call for the call's
// length: the runtime's monitor thread, seeing a P in a call, polls every
// 20 µs for a while afterwards in case it must hand the P on. On a server
// that wakes 128 times a second those polls were a tenth of its CPU
// (perf: usleep in sysmon).

// recv is one recvmmsg, not waiting: got is how many datagrams came.
func (s *BatchServer) recv() {
	for i := range s.msgs {
		h := &s.msgs[i].Hdr
		h.Name = (*byte)(unsafe.Pointer(&s.names[i]))
		h.Namelen = unix.SizeofSockaddrAny
		h.Iov = &s.iovs[i]
		h.SetIovlen(1)
		h.Control, h.Flags = nil, 0
		h.SetControllen(0)
	}
	for {
		// Raw: a call that never waits needs no hand-off of its P, and
		// marking one as in a system call is what wakes the runtime's
		// monitor thread to watch it (see rawCalls).
		n, _, e := unix.RawSyscall6(unix.SYS_RECVMMSG, uintptr(s.fd), uintptr(unsafe.Pointer(&s.msgs[0])), mmsgBatch, unix.MSG_DONTWAIT, 0, 0)
		if e == unix.EINTR {
			continue
		}
		s.got, s.errno = int(n), e
		if e != 0 {
			s.got = 0
		}
		return // never wait: the owner reads again when it next wakes
	}
}

// ReadWaiting calls fn with every datagram waiting on the socket, without
// waiting for more, and its source (an IPv4 peer on a dual-stack socket is
// given as plain IPv4; a link-local IPv6 one keeps its interface as its
// zone). datagram aliases a buffer the next read reuses: fn must copy
// what it keeps. A datagram larger than transport.MaxDatagram is handed on
// as transport.MaxDatagram+1 bytes, for the transport to drop and count.
// ReadWaiting reads into buffers it reuses and allocates nothing per
// datagram; it fails only once the socket is closed.
func (s *BatchServer) ReadWaiting(fn func(from netip.AddrPort, datagram []byte)) error {
	for {
		if !s.open {
			return net.ErrClosed
		}
		s.recv()
		for i := range s.got {
			from, ok := sockaddrPort(&s.names[i])
			if !ok {
				continue
			}
			n := int(s.msgs[i].Len)
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
func sockaddrPort(a *unix.RawSockaddrAny) (netip.AddrPort, bool) {
	switch a.Addr.Family {
	case unix.AF_INET:
		p := (*unix.RawSockaddrInet4)(unsafe.Pointer(a))
		port := binary.BigEndian.Uint16((*[2]byte)(unsafe.Pointer(&p.Port))[:])
		return netip.AddrPortFrom(netip.AddrFrom4(p.Addr), port), true
	case unix.AF_INET6:
		p := (*unix.RawSockaddrInet6)(unsafe.Pointer(a))
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

// Queue adds one datagram to the batch Flush sends; datagram must stay as
// it is until then. A full batch is flushed first. It refuses a datagram
// over transport.MaxDatagram with ErrTooLarge, one to an address this
// socket cannot reach (IPv6 from an IPv4 socket), and any once the socket
// is closed.
func (s *BatchServer) Queue(datagram []byte, to netip.AddrPort) error {
	if !s.open {
		return net.ErrClosed
	}
	if len(datagram) > transport.MaxDatagram {
		return ErrTooLarge
	}
	if len(s.out) == mmsgBatch {
		if err := s.Flush(); err != nil {
			return err
		}
	}
	if !s.sockaddr(&s.outTo[len(s.out)], to) {
		return fmt.Errorf("udp: cannot send to %v from %v", to, s.local)
	}
	s.out = append(s.out, datagram)
	return nil
}

// sockaddr fills sa with to as this socket's family takes it: an IPv4
// socket only IPv4 addresses (as a sockaddr_in), an IPv6 one any (IPv4 as
// mapped).
func (s *BatchServer) sockaddr(sa *unix.RawSockaddrInet6, to netip.AddrPort) bool {
	*sa = unix.RawSockaddrInet6{}
	if s.local.Addr().Is4() {
		if !to.Addr().Unmap().Is4() {
			return false
		}
		p := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		p.Family = unix.AF_INET
		binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&p.Port))[:], to.Port())
		p.Addr = to.Addr().Unmap().As4()
		return true
	}
	sa.Family = unix.AF_INET6
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

// Flush sends the queued datagrams, in as few sendmmsg calls as the
// kernel takes them in. A datagram the kernel refuses is dropped, as the
// network would, and the rest go on; the first refusal is returned. It
// allocates nothing when every datagram goes.
func (s *BatchServer) Flush() error {
	var first error
	for len(s.out) > 0 {
		for i, b := range s.out {
			s.iovs[i].Base = unsafe.SliceData(b)
			s.iovs[i].SetLen(len(b))
			h := &s.msgs[i].Hdr
			h.Name = (*byte)(unsafe.Pointer(&s.outTo[i]))
			h.Namelen = unix.SizeofSockaddrInet6
			if s.outTo[i].Family == unix.AF_INET {
				h.Namelen = unix.SizeofSockaddrInet4
			}
			h.Iov = &s.iovs[i]
			h.SetIovlen(1)
			h.Control, h.Flags = nil, 0
			h.SetControllen(0)
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
	s.resetIovs()
	return first
}

// send is one sendmmsg of the queued datagrams. A full socket buffer is
// waited on for room, as a plain write would, up to sendWait; it fails
// when the socket is closed or the wait runs out.
func (s *BatchServer) send() error {
	waited := false
	for {
		if !s.open {
			return net.ErrClosed
		}
		// Raw: see rawCalls.
		n, _, e := unix.RawSyscall6(unix.SYS_SENDMMSG, uintptr(s.fd), uintptr(unsafe.Pointer(&s.msgs[0])), uintptr(len(s.out)), unix.MSG_DONTWAIT, 0, 0)
		switch e {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
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
// plain ppoll (a call that may wait, so not a raw one): the socket is not
// the runtime poller's (see BatchServer), and the wait is rare (a kernel
// buffer full of datagrams).
func (s *BatchServer) waitWritable() {
	fds := [1]unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLOUT}}
	ts := unix.NsecToTimespec(int64(sendWait))
	unix.Ppoll(fds[:], &ts, nil)
}

// WriteTo sends one datagram at once: Queue, then Flush (which sends
// whatever else was queued too).
func (s *BatchServer) WriteTo(datagram []byte, to netip.AddrPort) error {
	if err := s.Queue(datagram, to); err != nil {
		return err
	}
	return s.Flush()
}

// LocalAddr returns the address the socket is bound to.
func (s *BatchServer) LocalAddr() netip.AddrPort { return s.local }

// Close closes the socket; reads and sends fail from then on. Closing it
// again is refused with net.ErrClosed rather than closing whatever
// descriptor has taken its number since.
func (s *BatchServer) Close() error {
	if !s.open {
		return net.ErrClosed
	}
	s.open = false
	return unix.Close(s.fd)
}

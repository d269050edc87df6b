//go:build linux && (amd64 || arm64)

package udp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"vkm/transport"
)

// TestBatchServerBatches reads more than a batch of datagrams, one of
// them over the largest a transport sends, and sends a batch with a
// datagram the kernel refuses between two it takes.
func TestBatchServerBatches(t *testing.T) {
	s, err := ListenBatch("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	peer, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	to := net.UDPAddrFromAddrPort(s.LocalAddr())
	const n = mmsgBatch + 5
	for i := range n {
		b := bytes.Repeat([]byte{byte(i)}, 1+i)
		if i == 3 {
			b = make([]byte, 2*transport.MaxDatagram)
		}
		if _, err := peer.WriteToUDP(b, to); err != nil {
			t.Fatal(err)
		}
	}
	from := peer.LocalAddr().(*net.UDPAddr).AddrPort()
	got := 0
	if err := s.ReadWaiting(func(a netip.AddrPort, b []byte) {
		if a != from {
			t.Errorf("datagram %d from %v, sent from %v", got, a, from)
		}
		switch {
		case got == 3:
			if len(b) != readSize {
				t.Errorf("an oversized datagram read as %d bytes", len(b))
			}
		case len(b) != 1+got || b[0] != byte(got):
			t.Errorf("datagram %d: %d bytes of %d", got, len(b), b[0])
		}
		got++
	}); err != nil {
		t.Fatal(err)
	}
	if got != n {
		t.Fatalf("read %d of %d datagrams", got, n)
	}

	for _, d := range []struct {
		b  []byte
		to netip.AddrPort
	}{
		{[]byte("one"), from},
		{[]byte("refused"), netip.AddrPortFrom(from.Addr(), 0)},
		{[]byte("two"), from},
	} {
		if err := s.Queue(d.b, d.to); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(); err == nil {
		t.Error("a datagram to port 0 was not refused")
	}
	buf := make([]byte, 64)
	// A bound on the wait, so a datagram that never comes fails the test
	// rather than hanging it.
	peer.SetReadDeadline(time.Now().Add(10 * time.Second))
	for _, want := range []string{"one", "two"} {
		k, _, err := peer.ReadFromUDPAddrPort(buf)
		if err != nil {
			t.Fatal(err)
		}
		if string(buf[:k]) != want {
			t.Fatalf("received %q, want %q", buf[:k], want)
		}
	}
	if err := s.Queue(make([]byte, 8), netip.MustParseAddrPort("[::1]:9")); err == nil {
		t.Error("an IPv4 socket queued a datagram to an IPv6 address")
	}
}

// TestLinkLocalPeersKeepTheirInterface: a link-local IPv6 peer's address
// keeps the interface it came in on, as a zone, and a reply to it goes
// back out through that interface.
func TestLinkLocalPeersKeepTheirInterface(t *testing.T) {
	var raw unix.RawSockaddrAny
	p := (*unix.RawSockaddrInet6)(unsafe.Pointer(&raw))
	p.Family = unix.AF_INET6
	p.Addr = netip.MustParseAddr("fe80::1").As16()
	p.Scope_id = 3
	binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&p.Port))[:], 27960)
	got, ok := sockaddrPort(&raw)
	if !ok || got.Addr().Zone() != "3" || got.Port() != 27960 {
		t.Fatalf("read %v %v, want fe80::1%%3 port 27960", got, ok)
	}
	s := &BatchServer{local: netip.MustParseAddrPort("[::]:1")}
	var sa unix.RawSockaddrInet6
	if !s.sockaddr(&sa, got) || sa.Scope_id != 3 {
		t.Fatalf("a reply goes out with scope %d, want 3", sa.Scope_id)
	}
}

// TestBatchServerClosed: once closed, the socket reads and sends nothing
// and says so, and closing it again is refused rather than closing
// whatever descriptor took its number.
func TestBatchServerClosed(t *testing.T) {
	s, err := ListenBatch("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.ReadWaiting(func(netip.AddrPort, []byte) { t.Error("read from a closed socket") }); err == nil {
		t.Error("reading a closed socket did not fail")
	}
	if err := s.WriteTo([]byte("x"), netip.MustParseAddrPort("127.0.0.1:9")); err == nil {
		t.Error("sending on a closed socket did not fail")
	}
	if err := s.Close(); err == nil {
		t.Error("a second Close did not fail")
	}
}

// TestBatchServerZeroIsClosed: the zero value is a closed endpoint, so
// nothing reads, sends on or closes descriptor 0 through it.
func TestBatchServerZeroIsClosed(t *testing.T) {
	var s BatchServer
	if err := s.ReadWaiting(func(netip.AddrPort, []byte) { t.Error("read from the zero value") }); !errors.Is(err, net.ErrClosed) {
		t.Errorf("reading the zero value: %v, want net.ErrClosed", err)
	}
	if err := s.WriteTo([]byte("x"), netip.MustParseAddrPort("127.0.0.1:9")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("sending on the zero value: %v, want net.ErrClosed", err)
	}
	if err := s.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("closing the zero value: %v, want net.ErrClosed", err)
	}
}

// TestBatchServerIsNotPolled: the runtime's network poller must not watch
// the socket its owner reads itself, or every datagram that arrives wakes
// the poller's thread for nothing. Linux lists what an epoll instance
// watches in /proc/self/fdinfo.
func TestBatchServerIsNotPolled(t *testing.T) {
	s, err := ListenBatch("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Make sure the runtime's poller exists, watching a socket of its own.
	other, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var otherFD int
	raw, _ := other.SyscallConn()
	raw.Control(func(fd uintptr) { otherFD = int(fd) })

	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	// A watched file is listed by its inode (in hex), whatever descriptor
	// shares it: a duplicate of a watched socket is still watched.
	inode := func(fd int) uint64 {
		link, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"), 10, 64)
		if err != nil {
			t.Fatalf("fd %d is %q, not a socket", fd, link)
		}
		return n
	}
	watched := map[uint64]bool{}
	polls := 0
	for _, e := range fds {
		link, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || link != "anon_inode:[eventpoll]" {
			continue
		}
		polls++
		info, err := os.ReadFile("/proc/self/fdinfo/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(info), "\n") {
			for _, f := range strings.Fields(line) {
				if v, ok := strings.CutPrefix(f, "ino:"); ok && strings.HasPrefix(line, "tfd:") {
					n, _ := strconv.ParseUint(v, 16, 64)
					watched[n] = true
				}
			}
		}
	}
	if polls == 0 || !watched[inode(otherFD)] {
		t.Fatalf("found %d epoll instances and not the runtime's (watching inodes %v; its own socket's is %d)", polls, watched, inode(otherFD))
	}
	if watched[inode(s.fd)] {
		t.Errorf("the directly read socket (inode %d) is watched by the runtime's poller", inode(s.fd))
	}
}

// BenchmarkBatchServer moves a batch of command-sized datagrams between
// two BatchServers on loopback: one Queue-and-Flush of mmsgBatch
// datagrams (a sendmmsg) and one ReadWaiting of them (a recvmmsg) an
// operation. Neither side may allocate.
func BenchmarkBatchServer(b *testing.B) {
	rx, err := ListenBatch("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer rx.Close()
	tx, err := ListenBatch("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Close()
	to := rx.LocalAddr()
	payload := make([][]byte, mmsgBatch)
	for i := range payload {
		payload[i] = bytes.Repeat([]byte{byte(i)}, 96)
	}
	got := 0
	count := func(netip.AddrPort, []byte) { got++ }
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range payload {
			if err := tx.Queue(p, to); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Flush(); err != nil {
			b.Fatal(err)
		}
		if err := rx.ReadWaiting(count); err != nil {
			b.Fatal(err)
		}
	}
	if want := b.N * mmsgBatch; got != want {
		b.Fatalf("received %d of %d datagrams", got, want)
	}
}

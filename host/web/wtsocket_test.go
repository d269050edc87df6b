package web

import (
	"bytes"
	"net"
	"syscall"
	"testing"

	"github.com/quic-go/quic-go"
)

// The WebTransport port is handed to quic-go as a plain PacketConn, so
// that it reads and writes through wtSocket's raw calls rather than its
// own plain system calls on the *net.UDPConn (recvmmsg, sendmsg), which
// it uses on any conn with ReadMsgUDP and WriteMsgUDP; it keeps the
// socket's SyscallConn for the don't-fragment bit; and a packet from a
// source it has seen allocates nothing.
func TestTheWebTransportSocketIsReadPacketByPacketWithoutAllocating(t *testing.T) {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	s := newWTSocket(c)
	defer s.Close()
	if _, ok := s.(quic.OOBCapablePacketConn); ok {
		t.Fatal("quic-go would read and write the WebTransport socket through its own plain system calls")
	}
	if _, ok := s.(interface {
		SyscallConn() (syscall.RawConn, error)
	}); !ok {
		t.Fatal("quic-go cannot set the don't-fragment bit on the WebTransport socket")
	}
	peer, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	to := c.LocalAddr().(*net.UDPAddr).AddrPort()
	msg := []byte("a datagram")
	buf := make([]byte, 1500)
	read := func() net.Addr {
		if _, err := peer.WriteToUDPAddrPort(msg, to); err != nil {
			t.Fatal(err)
		}
		n, from, err := s.ReadFrom(buf)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf[:n], msg) {
			t.Fatalf("read %q, sent %q", buf[:n], msg)
		}
		return from
	}
	first := read()
	if got, want := first.(*net.UDPAddr).AddrPort(), peer.LocalAddr().(*net.UDPAddr).AddrPort(); got != want {
		t.Fatalf("a packet from %v read as from %v", want, got)
	}
	if again := read(); again != first {
		t.Errorf("a second packet from %v gave another address", first)
	}
	if a := testing.AllocsPerRun(100, func() { read() }); a != 0 {
		t.Errorf("a packet from a known source: %.1f allocations, want 0", a)
	}
	// Written back to the address read.
	if _, err := s.WriteTo([]byte("back"), first); err != nil {
		t.Fatal(err)
	}
	n, err := peer.Read(buf)
	if err != nil || string(buf[:n]) != "back" {
		t.Fatalf("the peer read %q, %v; want \"back\"", buf[:n], err)
	}
	if _, err := s.WriteTo(msg, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}); err == nil {
		t.Error("a write to a TCP address did not fail")
	}
}

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

// A socket bound to every address is read raw only on a host where the
// kernel's route for a reply leaves from the address the peer sent to:
// one address of each family besides loopback and link-local ones.
func TestTheWebTransportSocketIsReadRawOnlyWhereRepliesLeaveFromTheRightAddress(t *testing.T) {
	nets := func(cidrs ...string) []net.Addr {
		var l []net.Addr
		for _, c := range cidrs {
			ip, n, err := net.ParseCIDR(c)
			if err != nil {
				t.Fatal(err)
			}
			n.IP = ip
			l = append(l, n)
		}
		return l
	}
	for _, c := range []struct {
		addrs []string
		want  bool
	}{
		{[]string{"127.0.0.1/8", "::1/128"}, true},
		{[]string{"127.0.0.1/8", "10.0.0.2/24", "fe80::1/64", "2001:db8::2/64"}, true},
		{[]string{"127.0.0.1/8", "10.0.0.2/24", "192.168.1.5/24"}, false},
		{[]string{"10.0.0.2/24", "2001:db8::2/64", "2001:db8:1::2/64"}, false},
	} {
		if got := oneAddressPerFamily(nets(c.addrs...)); got != c.want {
			t.Errorf("%v: %v, want %v", c.addrs, got, c.want)
		}
	}
	if !routedReplies(&net.UDPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 1}) {
		t.Error("a socket bound to one address is not read raw")
	}
	c, err := net.ListenUDP("udp", &net.UDPAddr{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	_, raw := newWTSocket(c).(*wtSocket)
	if want := oneAddressPerFamily(addrs); raw != want {
		t.Errorf("a socket bound to every address on this host (%v) read raw: %v, want %v", addrs, raw, want)
	}
}

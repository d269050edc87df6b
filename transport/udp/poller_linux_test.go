//go:build linux

package udp

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/netip"
	"testing"
)

// The ICE port's raw reads and writes give and take the addresses a
// net.UDPConn's do, on an IPv4 socket and on a dual-stack one.
func TestRawUDPAsNetUDPConn(t *testing.T) {
	for _, tc := range []struct{ listen, peer string }{
		{"127.0.0.1:0", "127.0.0.1:0"},
		{"[::]:0", "127.0.0.1:0"},
		{"[::1]:0", "[::1]:0"},
	} {
		t.Run(tc.listen, func(t *testing.T) {
			c, err := net.ListenPacket("udp", tc.listen)
			if err != nil {
				t.Skip(err)
			}
			defer c.Close()
			u, ok := PollerPacketConn(c.(*net.UDPConn)).(*rawUDP)
			if !ok {
				t.Fatal("not a rawUDP")
			}
			peer, err := net.ListenPacket("udp", tc.peer)
			if err != nil {
				t.Skip(err)
			}
			defer peer.Close()
			pc := peer.(*net.UDPConn)
			port := c.LocalAddr().(*net.UDPAddr).AddrPort().Port()
			to := netip.AddrPortFrom(pc.LocalAddr().(*net.UDPAddr).AddrPort().Addr(), port)
			if to.Addr().IsUnspecified() {
				to = netip.AddrPortFrom(netip.IPv6Loopback(), port)
			}
			if _, err := pc.WriteToUDPAddrPort([]byte("hello"), to); err != nil {
				t.Fatal(err)
			}
			b := make([]byte, 64)
			n, from, err := u.ReadFromAddrPort(b)
			if err != nil || string(b[:n]) != "hello" {
				t.Fatalf("read %q, %v", b[:n], err)
			}
			// What net.UDPConn would say, mapped on a dual-stack socket.
			want := pc.LocalAddr().(*net.UDPAddr).AddrPort()
			if !u.v4 && want.Addr().Is4() {
				want = netip.AddrPortFrom(netip.AddrFrom16(want.Addr().As16()), want.Port())
			}
			if from != want {
				t.Fatalf("from %v, want %v", from, want)
			}
			if _, err := u.WriteToAddrPort([]byte("back"), from); err != nil {
				t.Fatal(err)
			}
			n, back, err := pc.ReadFromUDPAddrPort(b)
			if err != nil || string(b[:n]) != "back" || back.Port() != port {
				t.Fatalf("read %q from %v, %v", b[:n], back, err)
			}
			if u.v4 {
				if _, err := u.WriteToAddrPort([]byte("x"), netip.MustParseAddrPort("[::1]:9")); !errors.Is(err, errUnreachable) {
					t.Fatalf("an IPv6 address from an IPv4 socket: %v", err)
				}
			}
		})
	}
}

// A WebSocket peer's raw connection reads and writes as net.TCPConn does:
// all of a large write arrives, and a closed end reads as io.EOF.
func TestRawTCPAsNetTCPConn(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	other, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	c := <-accepted
	if c == nil {
		t.Fatal("no connection")
	}
	rc, ok := PollerStreamConn(c).(*rawTCP)
	if !ok {
		t.Fatal("not a rawTCP")
	}
	defer rc.Close()
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // past the socket's buffers: Write waits for room
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(other, int64(len(big))))
		got <- b
	}()
	if n, err := rc.Write(big); err != nil || n != len(big) {
		t.Fatalf("wrote %d, %v", n, err)
	}
	if b := <-got; !bytes.Equal(b, big) {
		t.Fatalf("read %d bytes, not what was written", len(b))
	}
	if _, err := other.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 16)
	n, err := io.ReadFull(rc, b[:4])
	if err != nil || string(b[:n]) != "ping" {
		t.Fatalf("read %q, %v", b[:n], err)
	}
	other.Close()
	if n, err := rc.Read(b); n != 0 || err != io.EOF {
		t.Fatalf("after the other end closed: %d, %v", n, err)
	}
}

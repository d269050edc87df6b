//go:build linux && (amd64 || arm64)

package host

import (
	"bytes"
	"net"
	"net/netip"
	"testing"

	"vkm/transport"
)

// TestDirectSocketBatches reads more than a batch of datagrams, one of
// them over the largest a transport sends, and sends a batch with a
// datagram the kernel refuses between two it takes.
func TestDirectSocketBatches(t *testing.T) {
	s, err := listenDirect("127.0.0.1:0")
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
	if err := s.readWaiting(func(a netip.AddrPort, b []byte) {
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
		if err := s.queue(d.b, d.to); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.flush(); err == nil {
		t.Error("a datagram to port 0 was not refused")
	}
	buf := make([]byte, 64)
	for _, want := range []string{"one", "two"} {
		k, _, err := peer.ReadFromUDPAddrPort(buf)
		if err != nil {
			t.Fatal(err)
		}
		if string(buf[:k]) != want {
			t.Fatalf("received %q, want %q", buf[:k], want)
		}
	}
	if err := s.queue(make([]byte, 8), netip.MustParseAddrPort("[::1]:9")); err == nil {
		t.Error("an IPv4 socket queued a datagram to an IPv6 address")
	}
}

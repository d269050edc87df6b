//go:build !js

package browser

import (
	"net/netip"
	"testing"

	"vkm/host/netio"
	"vkm/host/web"
)

// queued is a Direct UDP socket that counts what it is given.
type queued struct{ n int }

func (q *queued) Incoming() <-chan netio.Datagram                { return nil }
func (q *queued) WriteTo([]byte, netip.AddrPort) error           { q.n++; return nil }
func (q *queued) LocalAddr() netip.AddrPort                      { return netip.AddrPort{} }
func (q *queued) Err() error                                     { return nil }
func (q *queued) Close() error                                   { return nil }
func (q *queued) ReadWaiting(func(netip.AddrPort, []byte)) error { return nil }
func (q *queued) Queue([]byte, netip.AddrPort) error             { q.n++; return nil }
func (q *queued) Flush() error                                   { return nil }

// testListener is a listener over a gateway of its own and q.
func testListener(t testing.TB, q *queued) *listener {
	g, err := web.NewGateway(web.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return &listener{udp: q, g: g}
}

// A datagram to a UDP address goes on the UDP socket; one to an address
// of the web peers' range goes to the gateway, never over UDP, whether
// or not a peer has it.
func TestTheListenerSendsByAddress(t *testing.T) {
	q := &queued{}
	s := testListener(t, q)
	udp := netip.MustParseAddrPort("127.0.0.1:4000")
	peer := netip.MustParseAddrPort("[fd76:6b6d:0:1:1:2:3:4]:1")
	if err := s.Queue([]byte("x"), udp); err != nil || q.n != 1 {
		t.Fatalf("to UDP: %v, %d queued", err, q.n)
	}
	if err := s.WriteTo([]byte("x"), udp); err != nil || q.n != 2 {
		t.Fatalf("to UDP: %v, %d written", err, q.n)
	}
	if err := s.Queue([]byte("x"), peer); err != web.ErrNoPeer || q.n != 2 {
		t.Fatalf("to a web address no peer has: %v, %d on UDP", err, q.n)
	}
	if err := s.WriteTo([]byte("x"), peer); err != web.ErrNoPeer || q.n != 2 {
		t.Fatalf("to a web address no peer has: %v, %d on UDP", err, q.n)
	}
}

// BenchmarkListenerQueueUDP times the web listener's hand-over of one
// datagram to a UDP peer: what serving browsers adds to every UDP
// datagram the loop sends.
func BenchmarkListenerQueueUDP(b *testing.B) {
	q := &queued{}
	s := testListener(b, q)
	to := netip.MustParseAddrPort("127.0.0.1:4000")
	msg := make([]byte, 100)
	b.ReportAllocs()
	for b.Loop() {
		s.Queue(msg, to)
	}
}

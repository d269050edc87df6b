package web

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"

	"vkm/transport/handshake"
)

// benchRoundTrip times one datagram of 100 bytes (about a command's size)
// from a peer to the gateway and back, one at a time.
func benchRoundTrip(b *testing.B, dial func(context.Context, string, DialOptions) (*Peer, error)) {
	g, err := NewGateway(Config{WebTransportAddr: "127.0.0.1:0"})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	srv := newServer(g)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	p, err := dial(ctx, srv.URL, DialOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	msg := make([]byte, 100)
	// Learn the peer's address first.
	if err := p.Send(msg); err != nil {
		b.Fatal(err)
	}
	from := (<-g.Incoming()).From
	// Welcomed, so that a run longer than WelcomeTimeout (profiling)
	// is not closed under it.
	if err := g.WriteTo(handshake.Header{Version: handshake.Version, Kind: handshake.KindWelcome}.Append(nil), from); err != nil {
		b.Fatal(err)
	}
	<-p.Incoming()
	b.SetBytes(int64(2 * len(msg)))
	b.ReportAllocs()
	// An unreliable channel may lose a datagram; one that has not come
	// back within a second is counted lost.
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	lost := 0
	for b.Loop() {
		if err := p.Send(msg); err != nil {
			b.Fatal(err)
		}
		timer.Reset(time.Second)
		select {
		case <-g.Incoming():
		case <-timer.C:
			lost++
			continue
		}
		if err := g.WriteTo(msg, from); err != nil {
			b.Fatal(err)
		}
		timer.Reset(time.Second)
		select {
		case <-p.Incoming():
		case <-timer.C:
			lost++
		}
	}
	b.ReportMetric(float64(lost), "lost")
}

// BenchmarkRoundTripUDP is the same round trip over plain UDP sockets on
// loopback, each end read by a goroutine of its own into a channel, as
// the host reads its UDP socket: what the gateway's cost compares with.
func BenchmarkRoundTripUDP(b *testing.B) {
	a, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	read := func(conn *net.UDPConn) <-chan []byte {
		ch := make(chan []byte, 16)
		go func() {
			defer close(ch)
			buf := make([]byte, 1500)
			for {
				n, _, err := conn.ReadFromUDPAddrPort(buf)
				if err != nil {
					return
				}
				ch <- append([]byte(nil), buf[:n]...)
			}
		}()
		return ch
	}
	ain, cin := read(a), read(c)
	to := c.LocalAddr().(*net.UDPAddr).AddrPort()
	back := a.LocalAddr().(*net.UDPAddr).AddrPort()
	msg := make([]byte, 100)
	b.SetBytes(int64(2 * len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		a.WriteToUDPAddrPort(msg, to)
		<-cin
		c.WriteToUDPAddrPort(msg, back)
		<-ain
	}
}

func BenchmarkRoundTripWebRTC(b *testing.B)       { benchRoundTrip(b, Dial) }
func BenchmarkRoundTripWebSocket(b *testing.B)    { benchRoundTrip(b, DialWS) }
func BenchmarkRoundTripWebTransport(b *testing.B) { benchRoundTrip(b, DialWT) }

// BenchmarkDoor times the per-address admission every offer and upgrade
// passes before anything else. "1_source" and "4096_sources" take one
// attempt through the door (enter: the caps and the offer rate; admit;
// welcome; leave), with one source or with 4096 each with an attempt
// under way. "flood" is one attempt from a new address while the offer
// table holds maxTracked sources that have all spent their burst, as in
// a flood from many addresses: it is refused.
func BenchmarkDoor(b *testing.B) {
	for _, n := range []int{1, maxTracked} {
		b.Run(fmt.Sprintf("%d_source%s", n, map[bool]string{true: "s"}[n > 1]), func(b *testing.B) {
			d := newDoor(Config{OffersPerIPPerSecond: 1 << 20}.withDefaults())
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			srcs := make([]netip.Addr, n)
			for i := range srcs {
				srcs[i] = netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
				if n > 1 && d.enter(srcs[i], now) != reasonNone {
					b.Fatal("refused filling the table")
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				now = now.Add(time.Microsecond)
				src := srcs[i%n]
				i++
				if d.enter(src, now) != reasonNone || d.admit(src) != reasonNone {
					b.Fatal("refused")
				}
				d.welcome(src)
				d.leave(src, true, true)
			}
		})
	}
	b.Run("flood", func(b *testing.B) {
		d := newDoor(Config{}.withDefaults())
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		addr := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}) }
		for i := range maxTracked {
			for d.enter(addr(i), now) == reasonNone {
				d.leave(addr(i), false, false)
			}
		}
		// Far in debt, so that none refills while the benchmark's clock
		// runs on: every sweep (one a second, at 1 µs an attempt one in
		// a million) reads them all and forgets none.
		for a, bk := range d.offers {
			bk.tokens = -1e12
			d.offers[a] = bk
		}
		b.ReportAllocs()
		i := maxTracked
		for b.Loop() {
			now = now.Add(time.Microsecond)
			if d.enter(addr(i), now) != reasonRate {
				b.Fatal("a new source let in with every tracked one busy")
			}
			i = maxTracked + (i+1)%(1<<20)
		}
	})
}

// BenchmarkWelcomes times the check WriteTo makes of every datagram to a
// peer the handshake has not welcomed yet (a welcomed one costs only an
// atomic load).
func BenchmarkWelcomes(b *testing.B) {
	dg := handshake.Header{Version: handshake.Version, Kind: handshake.KindChallenge}.Append(make([]byte, 0, 1200))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if welcomes(dg) {
			n++
		}
	}
	if n != 0 {
		b.Fatal("a challenge welcomed")
	}
}

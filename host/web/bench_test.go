package web

import (
	"context"
	"net"
	"testing"
	"time"
)

// benchRoundTrip times one datagram of 100 bytes (about a command's size)
// from a peer to the gateway and back, one at a time.
func benchRoundTrip(b *testing.B, dial func(context.Context, string, DialOptions) (*Peer, error)) {
	g, err := NewGateway(Config{})
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

func BenchmarkRoundTripWebRTC(b *testing.B)    { benchRoundTrip(b, Dial) }
func BenchmarkRoundTripWebSocket(b *testing.B) { benchRoundTrip(b, DialWS) }

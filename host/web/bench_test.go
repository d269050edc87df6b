package web

import (
	"context"
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
	lost := 0
	for b.Loop() {
		if err := p.Send(msg); err != nil {
			b.Fatal(err)
		}
		select {
		case <-g.Incoming():
		case <-time.After(time.Second):
			lost++ // an unreliable channel may lose one; count it
			continue
		}
		if err := g.WriteTo(msg, from); err != nil {
			b.Fatal(err)
		}
		select {
		case <-p.Incoming():
		case <-time.After(time.Second):
			lost++
		}
	}
	b.ReportMetric(float64(lost), "lost")
}

func BenchmarkRoundTripWebRTC(b *testing.B)    { benchRoundTrip(b, Dial) }
func BenchmarkRoundTripWebSocket(b *testing.B) { benchRoundTrip(b, DialWS) }

package host

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"vkm/host/browser"
	"vkm/host/netio"
	"vkm/host/session"
	"vkm/transport"
)

// A web player whose connection closes without a Goodbye (a tab closing
// over WebTransport, whose datagram write is asynchronous and dies with
// the page) frees its seat at once: the gateway sees the connection end,
// and the server ends the seat there, rather than when the link times out
// (10 s). Over WebTransport, WebRTC and the WebSocket alike.
func TestAWebPlayerWhoseLinkClosesWithoutAGoodbyeLeavesAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of real sockets on the wall clock: runs without -short")
	}
	p := loadArena(t)
	c, err := session.NewClient(session.ClientConfig{Project: p})
	if err != nil {
		t.Fatal(err)
	}
	hello, schema := session.Hello(c.Game()), c.Game().Schema()
	c.Close()
	for _, scheme := range []string{"wt", "http", "ws"} {
		t.Run(scheme, func(t *testing.T) {
			seated := make(chan int, 16)
			_, web, stop := servedWeb(t, ServeConfig{Project: p, WebTransport: true, Seated: func(n int) { seated <- n }})
			defer stop()
			ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
			defer cancel()
			sock, err := browser.Dial(ctx, scheme+"://"+web)
			if err != nil {
				t.Fatal(err)
			}
			// A client that plays and then goes without a word: its
			// socket closes and no Goodbye is ever sent.
			start := time.Now()
			now := func() transport.Time { return transport.Time(time.Since(start)) }
			var playing atomic.Bool
			l := session.NewLite(session.LiteConfig{Project: p, Hello: hello, Schema: schema, Name: "silent", Now: now(),
				OnState: func(state, _ string) {
					if state == "playing" && !playing.Swap(true) {
						cancel()
					}
				}})
			err = netio.Pump(ctx, 0, sock, func(d netio.Datagram) { l.Receive(d.Bytes, now()) },
				func(elapsed time.Duration) time.Duration {
					wait := l.Step(elapsed, now())
					for b, ok := l.Net().NextDatagram(); ok; b, ok = l.Net().NextDatagram() {
						sock.WriteTo(b, sock.LocalAddr())
					}
					return wait
				}, func() {})
			if err != nil || !playing.Load() {
				t.Fatalf("the client never played: %v, %v", l.Net().State(), err)
			}
			wasSeated := false
			for !wasSeated {
				select {
				case n := <-seated:
					wasSeated = n > 0
				case <-time.After(testDeadline):
					t.Fatal("the server never seated the client")
				}
			}
			closed := time.Now()
			sock.Close()
			bound := time.After(transport.DefaultTimeout / 2)
			for {
				select {
				case n := <-seated:
					if n == 0 {
						t.Logf("the seat freed %v after the %s connection closed", time.Since(closed).Round(time.Millisecond), scheme)
						return
					}
				case <-bound:
					t.Fatalf("the seat was still taken %v after the %s connection closed", transport.DefaultTimeout/2, scheme)
				}
			}
		})
	}
}

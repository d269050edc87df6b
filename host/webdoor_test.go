//go:build !js

package host

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"

	"vkm/host/web"
)

// deadlineSlack is how late past its deadline an idle attempt may be seen
// closed: the gateway's timers, the test's reads, a busy machine.
const deadlineSlack = 2 * time.Second

// Forty addresses (127.0.0.2 to .41) each start two offers whose body
// never finishes and open six WebSockets that never speak: 320 attempts,
// more than the gateway's 256 slots. Clients joining over WebRTC and over
// WebSocket from 127.0.0.1 meanwhile join and play, and every idle attempt
// is closed by its deadline: each offer answered 408 no sooner than
// web.DefaultOfferTimeout after it was sent and not much later, each
// socket closed no sooner than web.DefaultWelcomeTimeout after it opened
// and not much later. The server's report counts them by reason.
func TestIdleWebAttemptsDoNotKeepWebPlayersOut(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of real sockets on the wall clock: runs without -short")
	}
	p := loadArena(t)
	_, addr, stop := servedWeb(t, ServeConfig{Project: p})
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	const sources, offersEach, socketsEach = 40, 2, 6
	ip := func(i int) *net.TCPAddr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(i+2))} }

	type offer struct {
		c    net.Conn
		sent time.Time
	}
	var offers []offer
	for i := range sources {
		d := net.Dialer{LocalAddr: ip(i)}
		for range offersEach {
			c, err := d.DialContext(ctx, "tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// The time is taken before the bytes go: the gateway's deadline
			// starts once it has read them, which can be before Fprintf
			// returns here.
			sent := time.Now()
			fmt.Fprintf(c, "POST /vkm/offer HTTP/1.1\r\nHost: %s\r\nContent-Length: 3000\r\n\r\n{\"type\":\"offer\"", addr)
			offers = append(offers, offer{c, sent})
		}
	}
	type socket struct {
		ws         *websocket.Conn
		start, end time.Time
	}
	var sockets []socket
	refused := 0
	for i := range sources {
		d := &net.Dialer{LocalAddr: ip(i)}
		hc := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
		for range socketsEach {
			start := time.Now()
			ws, resp, err := websocket.Dial(ctx, "ws://"+addr+"/vkm/ws", &websocket.DialOptions{HTTPClient: hc})
			switch {
			case err == nil:
				defer ws.CloseNow()
				sockets = append(sockets, socket{ws, start, time.Now()})
			case resp != nil && resp.StatusCode == http.StatusTooManyRequests:
				refused++
			default:
				t.Fatalf("a socket from %v: %v", ip(i), err)
			}
		}
	}

	reps := playTogether(t,
		PlayConfig{Project: p, Web: "http://" + addr, Name: "rtc"},
		PlayConfig{Project: p, Web: "ws://" + addr, Name: "ws"},
	)
	wantPlaying(t, []string{"webrtc", "websocket"}, reps)

	// An offer is let in or refused as its handler reaches the door,
	// which may come after a socket of its address has.
	timedOut := 0
	for _, o := range offers {
		o.c.SetReadDeadline(o.sent.Add(web.DefaultOfferTimeout + deadlineSlack))
		resp, err := http.ReadResponse(bufio.NewReader(o.c), nil)
		took := time.Since(o.sent)
		switch {
		case err == nil && resp.StatusCode == http.StatusTooManyRequests:
			refused++
		case err == nil && resp.StatusCode == http.StatusRequestTimeout && took >= web.DefaultOfferTimeout:
			timedOut++
		default:
			t.Fatalf("a half-sent offer from %v: %v %v after %v; want 408 after %v", o.c.LocalAddr(), resp, err, took, web.DefaultOfferTimeout)
		}
	}
	t.Logf("%d offers waited for their deadline, %d sockets open, %d attempts refused", timedOut, len(sockets), refused)
	if in := timedOut + len(sockets); in != sources*web.DefaultMaxConnectingPerAddress {
		t.Errorf("%d attempts let in, want %d from each address", in, web.DefaultMaxConnectingPerAddress)
	}
	for _, s := range sockets {
		rctx, cancel := context.WithDeadline(ctx, s.end.Add(web.DefaultWelcomeTimeout+deadlineSlack))
		_, _, err := s.ws.Read(rctx)
		late := rctx.Err()
		cancel()
		took := time.Since(s.start)
		if err == nil || late != nil || took < web.DefaultWelcomeTimeout {
			t.Fatalf("an idle socket: closed (%v) after %v; want closed after %v", err, took, web.DefaultWelcomeTimeout)
		}
	}
	w := stop().Web
	t.Logf("web: %+v", *w)
	if w.Closed["offer_timeout"] != uint64(timedOut) || w.Closed["handshake_deadline"] != uint64(len(sockets)) ||
		w.Closed["address_cap"] != uint64(refused) || w.Admitted["webrtc"] != 1 || w.Admitted["websocket"] != 1 {
		t.Errorf("the report's web counts: %+v", *w)
	}
}

//go:build !js

package host

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"vkm/host/web"
)

// deadlineSlack is how late past its deadline an idle attempt may be seen
// closed on an idle machine: the gateway's timers, the test's reads. A busy
// machine answers later; TestIdleWebAttemptsDoNotKeepWebPlayersOut adds
// what it measures of that.
const deadlineSlack = 2 * time.Second

// Forty addresses (127.0.0.2 to .41) each start two offers whose body
// never finishes and open six WebSockets that never speak: 320 attempts,
// more than the gateway's 256 slots. Clients joining over WebRTC and over
// WebSocket from 127.0.0.1 meanwhile join and play, and every idle attempt
// is closed by its deadline: each offer answered 408 no sooner than
// web.DefaultOfferTimeout after it was sent and not much later, each
// socket closed no sooner than web.DefaultWelcomeTimeout after it opened
// and not much later: deadlineSlack, plus the longest the gateway took to
// answer a socket's upgrade here, which is how late a busy machine runs
// its handlers. The server's report counts them by reason.
func TestIdleWebAttemptsDoNotKeepWebPlayersOut(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of real sockets on the wall clock: runs without -short")
	}
	p := loadArena(t)
	_, addr, stop := servedWeb(t, ServeConfig{Project: p})
	// Only a guard against a hang: 320 attempts, then the players, take
	// far longer than testDeadline under the race detector on a busy
	// machine.
	ctx, cancel := context.WithTimeout(context.Background(), 3*testDeadline)
	defer cancel()
	const sources, offersEach, socketsEach = 40, 2, 6
	ip := func(i int) *net.TCPAddr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(i+2))} }

	// Each attempt's end is awaited on a goroutine of its own from the
	// moment it is made, so that when it ended is what is judged, however
	// long the players below take to join on a busy machine. A read ends
	// with ctx at the latest.
	type offer struct {
		from     net.Addr
		sent, at time.Time
		resp     *http.Response
		err      error
	}
	type socket struct {
		from           net.Addr
		start, end, at time.Time
		err            error
	}
	var offers []*offer
	var sockets []*socket
	var ended sync.WaitGroup
	var lag time.Duration // the slowest upgrade
	refused := 0
	// A source's attempts are made together, its offers then its
	// sockets, so that all eight reach the door before the first of them
	// can have left it (an offer, OfferTimeout after its handler began).
	for i := range sources {
		d := &net.Dialer{LocalAddr: ip(i)}
		for range offersEach {
			c, err := d.DialContext(ctx, "tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// The time is taken before the bytes go: the gateway's deadline
			// starts once it has read them, which can be before Fprintf
			// returns here.
			o := &offer{from: c.LocalAddr(), sent: time.Now()}
			unwatch := context.AfterFunc(ctx, func() { c.Close() })
			defer unwatch()
			fmt.Fprintf(c, "POST /vkm/offer HTTP/1.1\r\nHost: %s\r\nContent-Length: 3000\r\n\r\n{\"type\":\"offer\"", addr)
			offers = append(offers, o)
			ended.Go(func() {
				o.resp, o.err = http.ReadResponse(bufio.NewReader(c), nil)
				o.at = time.Now()
			})
		}
		hc := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
		for range socketsEach {
			start := time.Now()
			ws, resp, err := websocket.Dial(ctx, "ws://"+addr+"/vkm/ws", &websocket.DialOptions{HTTPClient: hc})
			switch {
			case err == nil:
				defer ws.CloseNow()
				s := &socket{from: ip(i), start: start, end: time.Now()}
				sockets = append(sockets, s)
				lag = max(lag, s.end.Sub(s.start))
				ended.Go(func() {
					_, _, s.err = ws.Read(ctx)
					s.at = time.Now()
				})
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
	ended.Wait()

	// An offer is let in or refused as its handler reaches the door,
	// which may come after a socket of its address has.
	slack := deadlineSlack + lag
	t.Logf("the slowest upgrade took %v: closing may be %v late", lag, slack)
	timedOut := 0
	for _, o := range offers {
		took := o.at.Sub(o.sent)
		switch {
		case o.err == nil && o.resp.StatusCode == http.StatusTooManyRequests:
			refused++
		case o.err == nil && o.resp.StatusCode == http.StatusRequestTimeout && took >= web.DefaultOfferTimeout && took <= web.DefaultOfferTimeout+slack:
			timedOut++
		default:
			t.Fatalf("a half-sent offer from %v: %v %v after %v; want 408 after %v, at most %v later", o.from, o.resp, o.err, took, web.DefaultOfferTimeout, slack)
		}
	}
	t.Logf("%d offers waited for their deadline, %d sockets open, %d attempts refused", timedOut, len(sockets), refused)
	if in := timedOut + len(sockets); in != sources*web.DefaultMaxConnectingPerAddress {
		t.Errorf("%d attempts let in, want %d from each address", in, web.DefaultMaxConnectingPerAddress)
	}
	for _, s := range sockets {
		took, late := s.at.Sub(s.start), s.at.Sub(s.end.Add(web.DefaultWelcomeTimeout))
		if s.err == nil || ctx.Err() != nil || took < web.DefaultWelcomeTimeout || late > slack {
			t.Fatalf("an idle socket from %v: closed (%v) after %v, %v past its deadline; want closed after %v, at most %v past it", s.from, s.err, took, late, web.DefaultWelcomeTimeout, slack)
		}
	}
	w := stop().Web
	t.Logf("web: %+v", *w)
	if w.Closed["offer_timeout"] != uint64(timedOut) || w.Closed["handshake_deadline"] != uint64(len(sockets)) ||
		w.Closed["address_cap"] != uint64(refused) || w.Admitted["webrtc"] != 1 || w.Admitted["websocket"] != 1 {
		t.Errorf("the report's web counts: %+v", *w)
	}
}

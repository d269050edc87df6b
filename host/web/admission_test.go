package web

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"vkm/transport/handshake"
)

// clientFrom is an HTTP client whose connections come from ip, one of
// loopback's 127.0.0.0/8, so that one test can be many sources.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// halfOffer starts an offer from ip to the server at srvURL whose body
// never finishes: its headers and the first bytes of a 3000-byte body.
func halfOffer(t *testing.T, srvURL, ip string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	host := strings.TrimPrefix(srvURL, "http://")
	c, err := d.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST /vkm/offer HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 3000\r\n\r\n{\"type\":\"offer\",\"sdp\":\"v=0", host)
	return c
}

// status reads the status code of the answer on c.
func status(t *testing.T, c net.Conn) int {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(testTimeout))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer on %v: %v", c.LocalAddr(), err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// until waits, for at most testTimeout, until cond holds of the
// gateway's stats.
func until(t *testing.T, g *Gateway, what string, cond func(Stats) bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !cond(g.Stats()) {
		if time.Now().After(deadline) {
			t.Fatalf("never %s: %+v", what, g.Stats())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Forty addresses each start two offers whose body never finishes and
// then open WebSockets that never speak, twice as many attempts as the
// gateway has slots: each address gets DefaultMaxConnectingPerAddress in
// and is refused the rest, so a player from another address still
// connects over WebRTC and over WebSocket. The half-sent offers are
// answered 408 once OfferTimeout passes and the sockets are closed once
// WelcomeTimeout does, neither before; the welcomed players stay.
func TestIdleSocketsAndHalfSentOffersDoNotKeepAPlayerOut(t *testing.T) {
	g, srv, _, clock := start(t, Config{})
	ctx := ctxFor(t)
	const sources, offersEach, socketsEach = 40, 2, 6
	if n := sources * (offersEach + socketsEach); n <= DefaultMaxPeers {
		t.Fatalf("%d attempts would not fill %d slots", n, DefaultMaxPeers)
	}
	ip := func(i int) string { return fmt.Sprintf("127.0.0.%d", i+2) }
	var offers []net.Conn
	for i := range sources {
		for range offersEach {
			offers = append(offers, halfOffer(t, srv.URL, ip(i)))
		}
	}
	until(t, g, "reading every half-sent offer", func(s Stats) bool { return s.Connecting["webrtc"] == sources*offersEach })
	var sockets []*websocket.Conn
	refused := 0
	for i := range sources {
		hc := clientFrom(ip(i))
		for range socketsEach {
			ws, resp, err := websocket.Dial(ctx, srv.URL+"/vkm/ws", &websocket.DialOptions{HTTPClient: hc})
			switch {
			case err == nil:
				sockets = append(sockets, ws)
				t.Cleanup(func() { ws.CloseNow() })
			case resp != nil && resp.StatusCode == http.StatusTooManyRequests:
				refused++
			default:
				t.Fatalf("a socket from %s: %v", ip(i), err)
			}
		}
	}
	in := DefaultMaxConnectingPerAddress - offersEach
	if len(sockets) != sources*in || refused != sources*(socketsEach-in) {
		t.Fatalf("%d sockets open and %d refused, want %d and %d", len(sockets), refused, sources*in, sources*(socketsEach-in))
	}

	// The players, from 127.0.0.1.
	rtc, err := Dial(ctx, srv.URL, DialOptions{})
	if err != nil {
		t.Fatalf("a WebRTC player among the idle attempts: %v", err)
	}
	defer rtc.Close()
	ws, err := DialWS(ctx, srv.URL, DialOptions{})
	if err != nil {
		t.Fatalf("a WebSocket player among the idle attempts: %v", err)
	}
	defer ws.Close()
	rtcAddr, wsAddr := roundTrip(t, g, rtc, kindRTC), roundTrip(t, g, ws, kindWS)
	welcome(t, g, rtc, rtcAddr)
	welcome(t, g, ws, wsAddr)

	clock.Advance(DefaultOfferTimeout - time.Millisecond)
	if s := g.Stats(); s.Closed["offer_timeout"] != 0 || s.Closed["handshake_deadline"] != 0 || s.Connecting["webrtc"] != sources*offersEach {
		t.Fatalf("before the offers' deadline: %+v", s)
	}
	clock.Advance(time.Millisecond)
	for _, c := range offers {
		if st := status(t, c); st != http.StatusRequestTimeout {
			t.Fatalf("a half-sent offer from %v: answered %d, want 408", c.LocalAddr(), st)
		}
	}
	until(t, g, "forgetting the half-sent offers", func(s Stats) bool { return s.Closed["offer_timeout"] == sources*offersEach })
	if s := g.Stats(); s.Closed["handshake_deadline"] != 0 || s.Connecting["websocket"] != len(sockets) {
		t.Fatalf("the sockets went before their deadline: %+v", s)
	}

	clock.Advance(DefaultWelcomeTimeout - DefaultOfferTimeout)
	for _, s := range sockets {
		if _, _, err := s.Read(ctx); err == nil || ctx.Err() != nil {
			t.Fatalf("an idle socket is still open past its deadline: %v", err)
		}
	}
	until(t, g, "closing the idle sockets", func(s Stats) bool {
		return s.Closed["handshake_deadline"] == uint64(len(sockets)) && s.Connecting["websocket"]+s.Connecting["webrtc"] == 0
	})
	roundTrip(t, g, rtc, kindRTC)
	roundTrip(t, g, ws, kindWS)
	s := g.Stats()
	if s.Peers["webrtc"] != 1 || s.Peers["websocket"] != 1 || s.Closed["address_cap"] != uint64(refused) || s.Closed["full"] != 0 {
		t.Errorf("at the end: %+v", s)
	}
}

// An offer whose body never finishes holds no slot: with one slot, a
// player takes it. The offer is answered 408 once OfferTimeout has passed.
func TestAHalfSentOfferHoldsNoSlot(t *testing.T) {
	g, srv, forgotten, clock := start(t, Config{MaxPeers: 1})
	c := halfOffer(t, srv.URL, "127.0.0.2")
	until(t, g, "reading the offer", func(s Stats) bool { return s.Connecting["webrtc"] == 1 })
	p, err := DialWS(ctxFor(t), srv.URL, DialOptions{})
	if err != nil {
		t.Fatalf("the one slot with a half-sent offer waiting: %v", err)
	}
	defer p.Close()
	roundTrip(t, g, p, kindWS)
	clock.Advance(DefaultOfferTimeout)
	if st := status(t, c); st != http.StatusRequestTimeout {
		t.Fatalf("answered %d, want 408", st)
	}
	if e := <-forgotten; e.why != reasonOfferTimeout || e.addr.IsValid() {
		t.Errorf("the offer ended %+v, want offer_timeout without an address", e)
	}
}

// A closing gateway does not wait for an offer's body.
func TestClosingDoesNotWaitForAnOffersBody(t *testing.T) {
	g, srv, forgotten, _ := start(t, Config{})
	halfOffer(t, srv.URL, "127.0.0.2")
	until(t, g, "reading the offer", func(s Stats) bool { return s.Connecting["webrtc"] == 1 })
	closed := make(chan error)
	go func() { closed <- g.Close() }()
	select {
	case <-closed:
	case <-time.After(testTimeout):
		t.Fatal("Close waited for the offer")
	}
	if e := <-forgotten; e.why != reasonShutdown {
		t.Errorf("the offer ended for %v, want shutdown", e.why)
	}
}

// dialers are the three ways a native peer connects.
var dialers = []struct {
	name string
	dial func(context.Context, string, DialOptions) (*Peer, error)
	kind int
}{{"webrtc", Dial, kindRTC}, {"websocket", DialWS, kindWS}, {"webtransport", DialWT, kindWT}}

// A peer the handshake does not welcome is closed WelcomeTimeout after it
// was admitted, not before; datagrams of the handshake's other kinds sent
// to it do not count as a welcome.
func TestAPeerNotWelcomedInTimeIsClosed(t *testing.T) {
	for _, d := range dialers {
		g, srv, forgotten, clock := start(t, Config{})
		p, err := d.dial(ctxFor(t), srv.URL, DialOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		a := roundTrip(t, g, p, d.kind)
		for _, k := range []handshake.Kind{handshake.KindChallenge, handshake.KindRefuse, handshake.KindGoodbye} {
			if err := g.WriteTo(handshake.Header{Version: handshake.Version, Kind: k}.Append(nil), a); err != nil {
				t.Fatal(err)
			}
			peerReceive(t, p)
		}
		clock.Advance(DefaultWelcomeTimeout - time.Millisecond)
		roundTrip(t, g, p, d.kind) // still open
		clock.Advance(time.Millisecond)
		if why := forgets(t, g, forgotten, a); why != reasonHandshakeDeadline {
			t.Errorf("%s: ended for %v, want handshake_deadline", d.name, why)
		}
		select {
		case <-p.Done():
		case <-time.After(testTimeout):
			t.Fatalf("%s: the peer's connection outlived its deadline", d.name)
		}
		if s := g.Stats(); s.Closed["handshake_deadline"] != 1 || s.Admitted[d.name] != 0 {
			t.Errorf("%s: %+v", d.name, s)
		}
	}
}

// A welcomed peer that sends nothing for IdleTimeout is closed; one that
// sent within it is not. Data to the peer counts as its welcome.
func TestAWelcomedPeerIdlePastTheTimeoutIsClosed(t *testing.T) {
	for _, d := range dialers {
		g, srv, forgotten, clock := start(t, Config{})
		p, err := d.dial(ctxFor(t), srv.URL, DialOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		a := roundTrip(t, g, p, d.kind) // heard at 0
		data := handshake.Header{Version: handshake.Version, Kind: handshake.KindData, Token: 7}.Append(nil)
		if err := g.WriteTo(data, a); err != nil {
			t.Fatal(err)
		}
		peerReceive(t, p)
		clock.Advance(DefaultWelcomeTimeout + time.Second)
		roundTrip(t, g, p, d.kind) // heard at 6 s
		clock.Advance(transport10s - time.Millisecond)
		roundTrip(t, g, p, d.kind) // heard at 16 s less 1 ms
		clock.Advance(transport10s - time.Millisecond)
		if s := g.Stats(); s.Closed["idle"] != 0 || s.Peers[d.name] != 1 {
			t.Fatalf("%s: closed with a datagram heard within the timeout: %+v", d.name, s)
		}
		clock.Advance(time.Millisecond)
		if why := forgets(t, g, forgotten, a); why != reasonIdle {
			t.Errorf("%s: ended for %v, want idle", d.name, why)
		}
		if s := g.Stats(); s.Admitted[d.name] != 1 || s.Peers[d.name] != 0 {
			t.Errorf("%s: %+v", d.name, s)
		}
	}
}

// transport10s is the idle timeout a zero Config gives: the transport's
// connection timeout.
const transport10s = 10 * time.Second

// The server's ReadTimeout does not end a WebSocket: the upgrade clears
// it, and the socket's silence is the gateway's to judge.
func TestAWebSocketOutlivesTheServersReadTimeout(t *testing.T) {
	g, err := newGateway(Config{}, newFakeClock())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(g.Handler())
	const readTimeout = 50 * time.Millisecond
	srv.Config.ReadTimeout = readTimeout
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		g.Close()
	})
	p, err := DialWS(ctxFor(t), srv.URL, DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	roundTrip(t, g, p, kindWS)
	time.Sleep(4 * readTimeout) // the server's own timeout, on the wall clock
	roundTrip(t, g, p, kindWS)
}

// A refusal that may pass later says when, and the dialer reads it: a
// source at its connecting cap may try again in a second (an attempt is
// welcomed about as soon), one at its cap of peers within WelcomeTimeout,
// one over the rate within a second.
func TestRefusalsSayWhenToTryAgain(t *testing.T) {
	g, srv, _, _ := start(t, Config{MaxConnectingPerAddress: 1, OffersPerIPPerSecond: 1})
	ctx := ctxFor(t)
	p, err := DialWS(ctx, srv.URL, DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a := roundTrip(t, g, p, kindWS)
	var refused *RefusedError
	if _, err := DialWS(ctx, srv.URL, DialOptions{}); !errors.As(err, &refused) || refused.Status != http.StatusTooManyRequests || refused.RetryAfter != connectingRetry {
		t.Fatalf("a second connecting from one address: %v (%+v), want 429 retrying after %v", err, refused, connectingRetry)
	}
	welcome(t, g, p, a)
	for range OfferBurst - 1 {
		q, err := DialWS(ctx, srv.URL, DialOptions{})
		if err != nil {
			t.Fatal(err)
		}
		welcome(t, g, q, roundTrip(t, g, q, kindWS))
		defer q.Close()
	}
	if _, err := DialWS(ctx, srv.URL, DialOptions{}); !errors.As(err, &refused) || refused.Status != http.StatusTooManyRequests || refused.RetryAfter != time.Second {
		t.Fatalf("over the rate: %v (%+v), want 429 retrying after 1s", err, refused)
	}
	if s := g.Stats(); s.Closed["address_cap"] != 1 || s.Closed["rate"] != 1 || s.Peers["websocket"] != OfferBurst {
		t.Errorf("%+v", s)
	}

	// At its cap of peers, with none connecting, a source waits for one
	// to leave: no sooner than WelcomeTimeout.
	g, srv, _, _ = start(t, Config{MaxPeersPerAddress: 1})
	p, err = DialWS(ctx, srv.URL, DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	welcome(t, g, p, roundTrip(t, g, p, kindWS))
	if _, err := DialWS(ctx, srv.URL, DialOptions{}); !errors.As(err, &refused) || refused.Status != http.StatusTooManyRequests || refused.RetryAfter != DefaultWelcomeTimeout {
		t.Fatalf("a second peer from one address: %v (%+v), want 429 retrying after %v", err, refused, DefaultWelcomeTimeout)
	}
}

// A peer whose connection ends is told once to the gateway's reader
// (TakeGone), with what its end is taken for: a client's close as its
// Goodbye (quit), an idle link as a timeout.
func TestAPeerWhoseConnectionEndsIsToldGone(t *testing.T) {
	for _, d := range dialers {
		g, srv, forgotten, clock := start(t, Config{})
		if got := g.TakeGone(nil); len(got) != 0 {
			t.Fatalf("%s: gone before any peer: %+v", d.name, got)
		}
		p, err := d.dial(ctxFor(t), srv.URL, DialOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a := roundTrip(t, g, p, d.kind)
		welcome(t, g, p, a)
		p.Close()
		if why := forgets(t, g, forgotten, a); why != reasonClientClosed {
			t.Fatalf("%s: ended for %v", d.name, why)
		}
		if got := g.TakeGone(nil); len(got) != 1 || got[0] != (Gone{a, handshake.GoodbyeQuit}) || !Synthetic(got[0].Addr.Addr()) {
			t.Errorf("%s: gone %+v, want %v for quit", d.name, got, a)
		}
		if got := g.TakeGone(nil); len(got) != 0 {
			t.Errorf("%s: told again: %+v", d.name, got)
		}
		q, err := d.dial(ctxFor(t), srv.URL, DialOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		b := roundTrip(t, g, q, d.kind)
		welcome(t, g, q, b)
		clock.Advance(transport10s)
		if why := forgets(t, g, forgotten, b); why != reasonIdle {
			t.Fatalf("%s: ended for %v, want idle", d.name, why)
		}
		if got := g.TakeGone(nil); len(got) != 1 || got[0] != (Gone{b, handshake.GoodbyeTimeout}) {
			t.Errorf("%s: gone %+v, want %v for timeout", d.name, got, b)
		}
	}
}

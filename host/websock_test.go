package host

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"vkm/host/game"
	"vkm/host/netio"
	"vkm/transport"
)

// servedWeb starts Serve for cfg on 127.0.0.1 with its web listener on a
// free port, and returns the UDP address, the web listener's and a stop.
func servedWeb(t *testing.T, cfg ServeConfig) (udp, webAddr string, stop func() *ServerReport) {
	t.Helper()
	ready := make(chan net.Addr, 1)
	cfg.Web, cfg.WebReady = "127.0.0.1:0", func(a net.Addr) { ready <- a }
	udp, stop = servedWith(t, nil, cfg)
	return udp, (<-ready).String(), stop
}

// playTogether plays every cfg at once until each has played playTicks
// ticks seated (or been refused, or testDeadline passed), then leaves,
// and returns the reports in order.
func playTogether(t *testing.T, cfgs ...PlayConfig) []ClientReport {
	t.Helper()
	const playTicks = 64
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	reps := make([]ClientReport, len(cfgs))
	var wg sync.WaitGroup
	var left atomic.Int32
	left.Store(int32(len(cfgs)))
	done := func(once *sync.Once) {
		once.Do(func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
	}
	for i, cfg := range cfgs {
		var once sync.Once
		var playing atomic.Bool
		var ticks int
		cfg.OnState = func(state, why string) {
			playing.Store(state == "playing")
			if state == "refused" {
				done(&once)
			}
		}
		cfg.AfterTick = func(*game.Game) {
			if playing.Load() {
				if ticks++; ticks == playTicks {
					done(&once)
				}
			}
		}
		wg.Go(func() {
			rep, err := Play(ctx, cfg)
			if err != nil && !strings.Contains(err.Error(), "refused") {
				t.Errorf("client %d (%s): %v", i+1, cfg.Web, err)
			}
			reps[i] = rep
		})
	}
	wg.Wait()
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("the clients never all played %d ticks: %+v", playTicks, reps)
	}
	return reps
}

// wantPlaying fails unless every report is of a seated client that played
// without a script error, each as its own player.
func wantPlaying(t *testing.T, names []string, reps []ClientReport) {
	t.Helper()
	seen := map[uint16]bool{}
	for i, r := range reps {
		t.Logf("%s: state %s player %d ticks %d rtt %.1f ms errors %d", names[i], r.State, r.Player, r.Ticks, r.RTTms, r.Errors)
		if r.State != "playing" || r.Errors != 0 || r.Player == 0 || seen[r.Player] {
			t.Errorf("%s: %+v, want playing with no script error as a player of its own", names[i], r)
		}
		seen[r.Player] = true
	}
}

// One server, four clients playing at once: over UDP, over a WebRTC data
// channel, over the WebSocket fall-back and over WebTransport, through the
// web listener.
func TestClientsPlayOverUDPWebRTCAndWebSocketTogether(t *testing.T) {
	p := loadArena(t)
	udp, web, stop := servedWeb(t, ServeConfig{Project: p, WebTransport: true})
	reps := playTogether(t,
		PlayConfig{Project: p, Connect: udp, Name: "udp"},
		PlayConfig{Project: p, Web: "http://" + web, Name: "rtc"},
		PlayConfig{Project: p, Web: "ws://" + web, Name: "ws"},
		PlayConfig{Project: p, Web: "wt://" + web, Name: "wt"},
	)
	srv := stop()
	wantPlaying(t, []string{"udp", "webrtc", "websocket", "webtransport"}, reps)
	t.Logf("server: joins %d errors %d", srv.Joins, srv.Errors)
	if srv.Joins != 4 || srv.Errors != 0 {
		t.Errorf("server: %d joins, %d errors; want 4 and 0", srv.Joins, srv.Errors)
	}
	if w := srv.Web; w == nil || w.Admitted["webtransport"] != 1 {
		t.Errorf("server: web stats %+v, want one peer welcomed over WebTransport", w)
	}
	if w := srv.Web; w == nil || w.DatagramsIn == 0 || w.DatagramsOut == 0 || w.Refused != 0 {
		t.Errorf("server: web stats %+v, want datagrams both ways and no refusal", w)
	}
}

// With a key, a client over WebRTC, WebSocket or WebTransport joins with a
// token as one
// over UDP does: minted under the key and naming the server's address, it
// plays; without one, or under another key, it is refused for that reason.
func TestTokensWorkOverTheWebAsOverUDP(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of real sockets on the wall clock: runs without -short")
	}
	p := loadArena(t)
	key := &testKeys[0]
	udp, web, stop := servedWeb(t, ServeConfig{Project: p, Key: key, WebTransport: true})
	rtc, ws, wt := "http://"+web, "ws://"+web, "wt://"+web
	reps := playTogether(t,
		PlayConfig{Project: p, Connect: udp, Name: "udp", Key: key, ClientID: 1},
		PlayConfig{Project: p, Connect: udp, Web: rtc, Name: "rtc", Key: key, ClientID: 2},
		PlayConfig{Project: p, Connect: udp, Web: ws, Name: "ws", Key: key, ClientID: 3},
		PlayConfig{Project: p, Connect: udp, Web: wt, Name: "wt", Key: key, ClientID: 4},
	)
	wantPlaying(t, []string{"udp", "webrtc", "websocket", "webtransport"}, reps)
	refused := playTogether(t,
		PlayConfig{Project: p, Connect: udp, Web: rtc, Name: "none"},
		PlayConfig{Project: p, Connect: udp, Web: rtc, Name: "other", Key: &testKeys[1]},
		PlayConfig{Project: p, Connect: udp, Web: ws, Name: "ws-none"},
		PlayConfig{Project: p, Connect: udp, Web: wt, Name: "wt-other", Key: &testKeys[1]},
	)
	srv := stop()
	for i, want := range []string{"no_token", "bad_token", "no_token", "bad_token"} {
		if refused[i].Refusal != want {
			t.Errorf("client %d: refusal %q (%s), want %q", i+1, refused[i].Refusal, refused[i].State, want)
		}
	}
	if srv.Joins != 4 {
		t.Errorf("server: %d joins, want 4", srv.Joins)
	}
}

// A web address that is not loopback needs a key or Insecure, as a UDP
// one does; the status line says when the web listener is open to all.
func TestWebListenerSecurityRules(t *testing.T) {
	for _, c := range []struct {
		cfg  ServeConfig
		want string
	}{
		{ServeConfig{Web: "0.0.0.0:8080"}, "web address \"0.0.0.0:8080\" is not loopback"},
		{ServeConfig{Web: "0.0.0.0:8080", Insecure: true}, ""},
		{ServeConfig{Web: "0.0.0.0:8080", Key: &testKeys[0]}, ""},
		{ServeConfig{Web: ":8080"}, ""},
		{ServeConfig{Web: "127.0.0.1:8080"}, ""},
		{ServeConfig{Web: "8080"}, "web address \"8080\" is not host:port"},
	} {
		err := c.cfg.Validate()
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	for _, c := range []struct {
		cfg  PlayConfig
		want string
	}{
		{PlayConfig{Web: "http://127.0.0.1:8080"}, ""},
		{PlayConfig{Web: "wss://example.org"}, ""},
		{PlayConfig{Web: "udp://127.0.0.1:8080"}, "the scheme is not"},
		{PlayConfig{Web: "http://"}, "names no host"},
		{PlayConfig{Web: "http://127.0.0.1:8080", Net: netio.NewLoopback()}, "in-process network"},
	} {
		err := c.cfg.Validate()
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg.Web, err, c.want)
		}
	}
	insecure := ServeConfig{Web: "0.0.0.0:8080", Insecure: true}
	if n := insecure.securityNote(netip.MustParseAddrPort("127.0.0.1:27960")); n != statusInsecure {
		t.Errorf("UDP on loopback, web on every interface, insecure: note %q, want %q", n, statusInsecure)
	}
}

// A server that stops says goodbye to its web players too: the gateway
// sends what they have been sent before it closes their connections.
func TestAServerGoodbyeReachesWebPlayers(t *testing.T) {
	for _, scheme := range []string{"http", "ws"} {
		p := loadArena(t)
		_, web, stop := servedWeb(t, ServeConfig{Project: p})
		ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
		stopped := make(chan struct{})
		var once sync.Once
		rep, err := Play(ctx, PlayConfig{
			Project: p, Web: scheme + "://" + web,
			OnState: func(state, why string) {
				switch state {
				case "playing":
					once.Do(func() {
						go func() { // the server shuts down and says goodbye
							stop()
							close(stopped)
						}()
					})
				case "disconnected":
					cancel()
				}
			},
		})
		<-stopped
		cancel()
		t.Logf("%s: %s %q", scheme, rep.State, rep.LastError)
		if err != nil || rep.State != "disconnected" || !strings.Contains(rep.LastError, "shut down") {
			t.Errorf("%s: %+v, %v; want disconnected by the server's goodbye", scheme, rep, err)
		}
	}
}

// A web player who leaves frees its seat at once, as a UDP one does: its
// goodbye leaves before its connection closes, or the connection's end
// ends the seat, so the server does not wait out the connection timeout
// (10 s).
func TestAWebPlayerWhoLeavesFreesItsSeat(t *testing.T) {
	for _, scheme := range []string{"http", "ws", "wt"} {
		p := loadArena(t)
		seated := make(chan int, 16)
		_, web, stop := servedWeb(t, ServeConfig{Project: p, WebTransport: true, Seated: func(n int) { seated <- n }})
		rep := playWith(t, PlayConfig{Project: p, Web: scheme + "://" + web})
		if rep.State != "playing" {
			t.Fatalf("%s: %+v, want playing", scheme, rep)
		}
		bound := time.After(transport.DefaultTimeout / 2)
		wasSeated := false
	wait:
		for {
			select {
			case n := <-seated: // 0 at the start, 1, then 0 again
				wasSeated = wasSeated || n > 0
				if n == 0 && wasSeated {
					break wait
				}
			case <-bound:
				t.Fatalf("%s: the seat was still taken %v after the player left", scheme, transport.DefaultTimeout/2)
			}
		}
		stop()
	}
}

// Without ServeConfig.WebTransport the web listener opens no WebTransport
// port: /vkm/webtransport answers 404, so the page goes on to WebRTC, and
// the page's security policy names no port for it.
func TestWebTransportIsOffUnlessAsked(t *testing.T) {
	p := loadArena(t)
	_, web, stop := servedWeb(t, ServeConfig{Project: p})
	defer stop()
	resp, err := http.Get("http://" + web + "/vkm/webtransport")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /vkm/webtransport: %d, want 404", resp.StatusCode)
	}
	page, err := http.Get("http://" + web + "/")
	if err != nil {
		t.Fatal(err)
	}
	page.Body.Close()
	if csp := page.Header.Get("Content-Security-Policy"); strings.Contains(csp, "https://") {
		t.Errorf("the page's policy names a WebTransport port: %s", csp)
	}
}

package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/pion/webrtc/v4"

	"vkm/transport/handshake"
)

// testTimeout bounds every wait of these tests: a connection over
// loopback opens in well under a second, so reaching it is a failure,
// not a slow machine.
const testTimeout = 20 * time.Second

// start serves a gateway with cfg on an httptest server on 127.0.0.1,
// with WebTransport on a free UDP port of 127.0.0.1 unless cfg says,
// with its forgotten attempts reported on the returned channel and its
// clock a fake one a test moves.
func start(t *testing.T, cfg Config) (*Gateway, *httptest.Server, chan ended, *fakeClock) {
	t.Helper()
	if cfg.WebTransportAddr == "" {
		cfg.WebTransportAddr = "127.0.0.1:0"
	}
	clock := newFakeClock()
	g, err := newGateway(cfg, clock)
	if err != nil {
		t.Fatal(err)
	}
	forgotten := make(chan ended, 1024)
	g.forgotten = forgotten
	srv := newServer(g)
	t.Cleanup(func() {
		srv.Close()
		g.Close()
	})
	return g, srv, forgotten, clock
}

// newServer serves g's handler over HTTP on 127.0.0.1.
func newServer(g *Gateway) *httptest.Server { return httptest.NewServer(g.Handler()) }

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// receive waits for the gateway's next datagram.
func receive(t *testing.T, g *Gateway) Datagram {
	t.Helper()
	select {
	case d, ok := <-g.Incoming():
		if !ok {
			t.Fatal("Incoming closed")
		}
		return d
	case <-time.After(testTimeout):
		t.Fatal("no datagram reached the gateway")
	}
	return Datagram{}
}

// peerReceive waits for the peer's next datagram.
func peerReceive(t *testing.T, p *Peer) []byte {
	t.Helper()
	select {
	case b, ok := <-p.Incoming():
		if !ok {
			t.Fatal("the peer's Incoming closed")
		}
		return b
	case <-time.After(testTimeout):
		t.Fatal("no datagram reached the peer")
	}
	return nil
}

// roundTrip sends one datagram each way between p and g and returns the
// peer's address at the gateway. A data channel without retransmissions
// may lose a datagram, as UDP may; over loopback it does not, and these
// tests would say so.
func roundTrip(t *testing.T, g *Gateway, p *Peer, kind int) netip.AddrPort {
	t.Helper()
	if err := p.Send([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	d := receive(t, g)
	if string(d.Bytes) != "hello" {
		t.Fatalf("the gateway got %q, want hello", d.Bytes)
	}
	if !Synthetic(d.From.Addr()) || !g.Owns(d.From) {
		t.Fatalf("the peer's address %v: synthetic %v, owned %v", d.From, Synthetic(d.From.Addr()), g.Owns(d.From))
	}
	if k := d.From.Addr().As16()[7]; int(k) != kind {
		t.Errorf("the address %v says kind %d, want %d", d.From, k, kind)
	}
	big := bytes.Repeat([]byte{7}, 1200)
	if err := g.WriteTo(big, d.From); err != nil {
		t.Fatal(err)
	}
	if b := peerReceive(t, p); !bytes.Equal(b, big) {
		t.Fatalf("the peer got %d bytes, want the 1200 sent", len(b))
	}
	return d.From
}

// forgets waits until the gateway has forgotten a, and returns why it
// ended.
func forgets(t *testing.T, g *Gateway, forgotten <-chan ended, a netip.AddrPort) reason {
	t.Helper()
	for {
		select {
		case f := <-forgotten:
			if f.addr != a {
				continue
			}
			if g.Owns(a) {
				t.Fatalf("%v forgotten but still owned", a)
			}
			return f.why
		case <-time.After(testTimeout):
			t.Fatalf("the gateway never forgot %v", a)
		}
	}
}

// welcome sends a the header of a Welcome, as a server would once the
// handshake has seated the peer at a, and takes it off the peer.
func welcome(t *testing.T, g *Gateway, p *Peer, a netip.AddrPort) {
	t.Helper()
	w := handshake.Header{Version: handshake.Version, Kind: handshake.KindWelcome}.Append(nil)
	if err := g.WriteTo(w, a); err != nil {
		t.Fatal(err)
	}
	if b := peerReceive(t, p); !bytes.Equal(b, w) {
		t.Fatalf("the peer got %x, want the welcome %x", b, w)
	}
}

func TestAPeerPlaysOverWebRTCAndIsForgottenOnClose(t *testing.T) {
	g, srv, forgotten, _ := start(t, Config{})
	p, err := Dial(ctxFor(t), srv.URL, DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := roundTrip(t, g, p, kindRTC)
	if st := g.Stats(); st.Connecting["webrtc"] != 1 || st.Peers["webrtc"] != 0 || st.DatagramsIn != 1 || st.DatagramsOut != 1 || st.BytesOut != 1200 {
		t.Errorf("stats %+v", st)
	}
	welcome(t, g, p, a)
	if st := g.Stats(); st.Connecting["webrtc"] != 0 || st.Peers["webrtc"] != 1 || st.Peers["websocket"] != 0 || st.Admitted["webrtc"] != 1 {
		t.Errorf("stats once welcomed %+v", st)
	}
	if err := g.WriteTo(make([]byte, 1201), a); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a 1201-byte datagram: %v, want ErrTooLarge", err)
	}
	p.Close()
	if why := forgets(t, g, forgotten, a); why != reasonClientClosed {
		t.Errorf("the peer that closed ended for %v", why)
	}
	if err := g.WriteTo([]byte("x"), a); !errors.Is(err, ErrNoPeer) {
		t.Errorf("writing to a forgotten peer: %v, want ErrNoPeer", err)
	}
	if st := g.Stats(); st.Peers["webrtc"] != 0 || st.Closed["client_closed"] != 1 {
		t.Errorf("stats after the only peer closed: %+v", st)
	}
}

func TestAPeerPlaysOverWebSocketAndIsForgottenOnClose(t *testing.T) {
	g, srv, forgotten, _ := start(t, Config{})
	p, err := DialWS(ctxFor(t), srv.URL, DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := roundTrip(t, g, p, kindWS)
	welcome(t, g, p, a)
	if st := g.Stats(); st.Peers["websocket"] != 1 || st.Peers["webrtc"] != 0 || st.Connecting["websocket"] != 0 {
		t.Errorf("stats %+v", st)
	}
	p.Close()
	if why := forgets(t, g, forgotten, a); why != reasonClientClosed {
		t.Errorf("the peer that closed ended for %v", why)
	}
}

func TestPeersOfOneHostShareAnAddressAndDifferInPort(t *testing.T) {
	g, srv, _, clock := start(t, Config{})
	ctx := ctxFor(t)
	var addrs []netip.AddrPort
	for range 2 {
		p, err := DialWS(ctx, srv.URL, DialOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		addrs = append(addrs, roundTrip(t, g, p, kindWS))
		clock.Advance(time.Second)
	}
	if addrs[0].Addr() != addrs[1].Addr() || addrs[0].Port() == addrs[1].Port() {
		t.Errorf("two peers from one host at %v and %v: want one IP, two ports", addrs[0], addrs[1])
	}
}

func TestTheGatewayClosesEveryPeerAndIncoming(t *testing.T) {
	g, srv, _, clock := start(t, Config{})
	ctx := ctxFor(t)
	rtc, err := Dial(ctx, srv.URL, DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	ws, err := DialWS(ctx, srv.URL, DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	wt, err := DialWT(ctx, srv.URL, DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, g, rtc, kindRTC)
	roundTrip(t, g, ws, kindWS)
	roundTrip(t, g, wt, kindWT)
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*Peer{rtc, ws, wt} {
		select {
		case <-p.Done():
		case <-time.After(testTimeout):
			t.Fatal("a peer's connection outlived the gateway")
		}
	}
	if _, ok := <-g.Incoming(); ok {
		t.Error("Incoming still open after Close")
	}
}

func TestBadRequestsAreRefused(t *testing.T) {
	g, srv, _, clock := start(t, Config{})
	sdpNoData := "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"
	cases := []struct {
		name, method, path, body, origin string
		status                           int
	}{
		{"not JSON", "POST", "/vkm/offer", "v=0", "", 400},
		{"an answer", "POST", "/vkm/offer", `{"type":"answer","sdp":"v=0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"}`, "", 400},
		{"no data channel", "POST", "/vkm/offer", `{"type":"offer","sdp":"` + strings.ReplaceAll(sdpNoData, "\r\n", `\r\n`) + `"}`, "", 400},
		{"not an SDP", "POST", "/vkm/offer", `{"type":"offer","sdp":"v=0\r\nm=application nonsense\r\n"}`, "", 400},
		{"too large", "POST", "/vkm/offer", `{"type":"offer","sdp":"` + strings.Repeat("a", MaxOfferBytes) + `"}`, "", 413},
		{"another site", "POST", "/vkm/offer", `{}`, "https://elsewhere.example", 403},
		{"GET an offer", "GET", "/vkm/offer", "", "", 405},
		{"not a WebSocket", "GET", "/vkm/ws", "", "", 426},
		{"WebSocket from another site", "GET", "/vkm/ws", "", "https://elsewhere.example", 403},
		{"elsewhere", "GET", "/vkm/other", "", "", 404},
	}
	for _, c := range cases {
		clock.Advance(time.Second)
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		if c.path == "/vkm/ws" && c.origin != "" {
			req.Header.Set("Connection", "Upgrade")
			req.Header.Set("Upgrade", "websocket")
			req.Header.Set("Sec-WebSocket-Version", "13")
			req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.status)
		}
	}
	if st := g.Stats(); st.Refused < 8 || st.Connecting["webrtc"]+st.Connecting["websocket"] != 0 || st.Closed["bad_request"] < 8 {
		t.Errorf("stats after bad requests: %+v", st)
	}
}

func TestAChannelOtherThanVkmEndsThePeer(t *testing.T) {
	for _, c := range []struct {
		label   string
		ordered bool
	}{{"other", false}, {Label, true}} {
		g, srv, forgotten, _ := start(t, Config{})
		p, err := dial(ctxFor(t), srv.URL, DialOptions{}, c.label, c.ordered)
		if err == nil {
			select {
			case <-p.Done():
			case <-time.After(testTimeout):
				t.Fatalf("channel %q ordered %v stayed open", c.label, c.ordered)
			}
			p.Close()
		}
		select {
		case e := <-forgotten:
			if e.why != reasonProtocol {
				t.Errorf("channel %q ordered %v: ended for %v", c.label, c.ordered, e.why)
			}
		case <-time.After(testTimeout):
			t.Fatalf("channel %q ordered %v: the peer was never forgotten", c.label, c.ordered)
		}
		if st := g.Stats(); st.Connecting["webrtc"] != 0 {
			t.Errorf("channel %q ordered %v: %d attempts open", c.label, c.ordered, st.Connecting["webrtc"])
		}
	}
}

func TestPeersPastMaxPeersAreRefused(t *testing.T) {
	g, srv, forgotten, clock := start(t, Config{MaxPeers: 1})
	ctx := ctxFor(t)
	p, err := Dial(ctx, srv.URL, DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := roundTrip(t, g, p, kindRTC)
	clock.Advance(time.Second)
	var refused *RefusedError
	if _, err := Dial(ctx, srv.URL, DialOptions{}); !errors.As(err, &refused) || refused.Status != http.StatusServiceUnavailable {
		t.Fatalf("a second WebRTC peer: %v, want a 503 refusal", err)
	}
	clock.Advance(time.Second)
	if _, err := DialWS(ctx, srv.URL, DialOptions{}); !errors.As(err, &refused) || refused.Status != http.StatusServiceUnavailable {
		t.Fatalf("a second WebSocket peer: %v, want a 503 refusal", err)
	}
	p.Close()
	forgets(t, g, forgotten, a)
	clock.Advance(time.Second)
	q, err := DialWS(ctx, srv.URL, DialOptions{})
	if err != nil {
		t.Fatalf("a peer once the first has gone: %v", err)
	}
	q.Close()
}

func TestOffersPastTheRateAreRefused(t *testing.T) {
	g, srv, _, clock := start(t, Config{OffersPerIPPerSecond: 2})
	post := func() int {
		resp, err := http.Post(srv.URL+"/vkm/offer", "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i, want := range []int{400, 400, 400, 400, 400, 400, 400, 400, 429} {
		if got := post(); got != want {
			t.Fatalf("offer %d in the same instant: status %d, want %d", i+1, got, want)
		}
	}
	var refused *RefusedError
	if _, err := DialWS(ctxFor(t), srv.URL, DialOptions{}); !errors.As(err, &refused) || refused.Status != http.StatusTooManyRequests {
		t.Fatalf("an upgrade over the rate: %v, want a 429 refusal", err)
	}
	clock.Advance(time.Second / 2)
	if got := post(); got != 400 {
		t.Fatalf("an offer half a second later: status %d, want 400 (one allowed again)", got)
	}
	if got := post(); got != 429 {
		t.Fatalf("the next: status %d, want 429", got)
	}
	_ = g
}

func TestSyntheticAddressesAreTheirOwnRange(t *testing.T) {
	for _, c := range []struct {
		a    string
		want bool
	}{
		{"fd76:6b6d:0:1:1:2:3:4", true},
		{"fd76:6b6e::1", false},
		{"127.0.0.1", false},
		{"::ffff:127.0.0.1", false},
		{"::1", false},
		{"fd00::1", false},
	} {
		if got := Synthetic(netip.MustParseAddr(c.a)); got != c.want {
			t.Errorf("Synthetic(%s) = %v, want %v", c.a, got, c.want)
		}
	}
}

// A gateway listening on every interface (as a server with a key does)
// still answers with a loopback candidate a local peer reaches.
func TestAGatewayOnEveryInterfaceIsReachedOverLoopback(t *testing.T) {
	g, srv, _, _ := start(t, Config{ICEAddr: ":0"})
	p, err := Dial(ctxFor(t), srv.URL, DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	roundTrip(t, g, p, kindRTC)
}

// A WebSocket peer that sends a text message, or a binary one over the
// largest datagram, is not a vkm client: the gateway ends it.
func TestAWebSocketPeerBreakingTheRulesIsEnded(t *testing.T) {
	for _, c := range []struct {
		name string
		typ  websocket.MessageType
		size int
	}{{"text", websocket.MessageText, 10}, {"1201 bytes", websocket.MessageBinary, 1201}} {
		g, srv, forgotten, _ := start(t, Config{})
		ctx := ctxFor(t)
		ws, _, err := websocket.Dial(ctx, srv.URL+"/vkm/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := ws.Write(ctx, websocket.MessageBinary, []byte("hello")); err != nil {
			t.Fatal(err)
		}
		a := receive(t, g).From
		if err := ws.Write(ctx, c.typ, make([]byte, c.size)); err != nil {
			t.Fatal(err)
		}
		if why := forgets(t, g, forgotten, a); why != reasonProtocol {
			t.Errorf("%s: ended for %v", c.name, why)
		}
		if _, _, err := ws.Read(ctx); err == nil {
			t.Errorf("%s: the connection is still open", c.name)
		}
		ws.CloseNow()
	}
}

// The answer names the ICE port on loopback and on every public address
// given (a host behind a 1:1 NAT), beside the local ones.
func TestTheAnswerAnnouncesThePublicAddresses(t *testing.T) {
	public := netip.MustParseAddr("203.0.113.7")
	g, srv, _, _ := start(t, Config{Public: []netip.Addr{public}})
	pc, err := webrtc.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	ordered, none := false, uint16(0)
	if _, err := pc.CreateDataChannel(Label, &webrtc.DataChannelInit{Ordered: &ordered, MaxRetransmits: &none}); err != nil {
		t.Fatal(err)
	}
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	answer, err := postOffer(ctxFor(t), nil, srv.URL, Description{Type: "offer", SDP: offer.SDP})
	if err != nil {
		t.Fatal(err)
	}
	port := g.ICEAddr().Port()
	for _, ip := range []string{"127.0.0.1", public.String()} {
		if want := fmt.Sprintf(" %s %d typ host", ip, port); !strings.Contains(answer.SDP, want) {
			t.Errorf("the answer has no candidate %q:\n%s", want, answer.SDP)
		}
	}
	if !strings.Contains(answer.SDP, "a=max-message-size:1200") {
		t.Errorf("the answer does not bound messages to 1200 bytes:\n%s", answer.SDP)
	}
}

// A WebRTC peer's text message is dropped and counted, and the peer
// plays on; a binary one over the largest datagram (sent by a peer that
// ignores the answer's max-message-size) ends it.
func TestAWebRTCPeerBreakingTheRules(t *testing.T) {
	g, srv, forgotten, _ := start(t, Config{})
	ctx := ctxFor(t)
	pc, err := webrtc.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	ordered, none := false, uint16(0)
	dc, err := pc.CreateDataChannel(Label, &webrtc.DataChannelInit{Ordered: &ordered, MaxRetransmits: &none})
	if err != nil {
		t.Fatal(err)
	}
	opened := make(chan struct{})
	dc.OnOpen(func() { close(opened) })
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(offer); err != nil {
		t.Fatal(err)
	}
	<-gathered
	answer, err := postOffer(ctx, nil, srv.URL, Description{Type: "offer", SDP: pc.LocalDescription().SDP})
	if err != nil {
		t.Fatal(err)
	}
	// Without the bound, pion lets this end send up to 64 KiB.
	sdp := strings.ReplaceAll(answer.SDP, "a=max-message-size:1200\r\n", "")
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: sdp}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-opened:
	case <-ctx.Done():
		t.Fatal("the channel did not open")
	}
	if err := dc.Send([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	a := receive(t, g).From
	if err := dc.SendText("text"); err != nil {
		t.Fatal(err)
	}
	if err := dc.Send([]byte("after")); err != nil {
		t.Fatal(err)
	}
	if d := receive(t, g); string(d.Bytes) != "after" || d.From != a {
		t.Fatalf("after a text message: %q from %v", d.Bytes, d.From)
	}
	if st := g.Stats(); st.Drops != 1 {
		t.Errorf("drops after a text message: %d, want 1", st.Drops)
	}
	if err := dc.Send(make([]byte, 1201)); err != nil {
		t.Fatal(err)
	}
	if why := forgets(t, g, forgotten, a); why != reasonProtocol {
		t.Errorf("after 1201 bytes: ended for %v", why)
	}
}

package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"

	"vkm/transport"
)

// DialOptions tunes a native peer; the zero value is fine.
type DialOptions struct {
	// HTTP makes the signalling request; nil means http.DefaultClient.
	HTTP   *http.Client
	Logger *slog.Logger
}

// Peer is a native client's end of a gateway connection: what a browser
// does, in Go, for tests, bots and measurement.
type Peer struct {
	in   chan []byte
	send func([]byte) error
	stop func()
	done chan struct{} // closed once the connection has ended

	once sync.Once
}

// peerDepth is how many received datagrams may wait for the reader.
const peerDepth = 256

// Dial connects to the gateway at baseURL ("http://host:port") over a
// WebRTC data channel, as a browser does: it makes the offer with its
// candidates gathered, POSTs it to /vkm/offer, and waits for the channel
// to open (or ctx to end).
func Dial(ctx context.Context, baseURL string, opts DialOptions) (*Peer, error) {
	return dial(ctx, baseURL, opts, Label, false)
}

// dial is Dial with the channel's label and ordering given, for tests of
// the gateway's refusals.
func dial(ctx context.Context, baseURL string, opts DialOptions, label string, ordered bool) (*Peer, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	se := webrtc.SettingEngine{LoggerFactory: pionLogs{log}}
	se.SetIncludeLoopbackCandidate(true)
	// With DTLS beneath, SCTP's own checksum is redundant (RFC 9653); used
	// only when the other end says it takes it.
	se.EnableSCTPZeroChecksum(true)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4, webrtc.NetworkTypeUDP6})
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	pc, err := webrtc.NewAPI(webrtc.WithSettingEngine(se)).NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			pc.Close()
		}
	}()
	none := uint16(0)
	dc, err := pc.CreateDataChannel(label, &webrtc.DataChannelInit{Ordered: &ordered, MaxRetransmits: &none})
	if err != nil {
		return nil, err
	}
	p := &Peer{in: make(chan []byte, peerDepth), done: make(chan struct{})}
	opened := make(chan struct{})
	var endOnce sync.Once
	end := func() { endOnce.Do(func() { close(p.done) }) }
	dc.OnOpen(func() { close(opened) })
	// inMu keeps a late message from racing Incoming's closing.
	var inMu sync.Mutex
	inClosed := false
	dc.OnMessage(func(m webrtc.DataChannelMessage) {
		if m.IsString {
			return
		}
		inMu.Lock()
		defer inMu.Unlock()
		if inClosed {
			return
		}
		select {
		case p.in <- m.Data:
		default:
		}
	})
	dc.OnClose(end)
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		if s == webrtc.PeerConnectionStateFailed || s == webrtc.PeerConnectionStateClosed {
			end()
		}
	})
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		return nil, err
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(offer); err != nil {
		return nil, err
	}
	select {
	case <-gathered:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	answer, err := postOffer(ctx, opts.HTTP, baseURL, Description{Type: "offer", SDP: pc.LocalDescription().SDP})
	if err != nil {
		return nil, err
	}
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer.SDP}); err != nil {
		return nil, fmt.Errorf("web: the answer from %s: %w", baseURL, err)
	}
	select {
	case <-opened:
	case <-p.done:
		return nil, fmt.Errorf("web: %s: the connection failed before the channel opened", baseURL)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	ok = true
	p.send = func(b []byte) error {
		if dc.BufferedAmount() > maxBuffered {
			return errFull
		}
		return dc.Send(b)
	}
	p.stop = func() {
		// What was sent last (a player's goodbye) leaves first, for at
		// most closeFlush.
		drain(func() bool { return dc.BufferedAmount() == 0 })
		pc.Close()
		end()
	}
	go func() { // the channel's end closes Incoming
		<-p.done
		inMu.Lock()
		inClosed = true
		close(p.in)
		inMu.Unlock()
	}()
	return p, nil
}

// postOffer sends an offer to baseURL's /vkm/offer and reads the answer.
func postOffer(ctx context.Context, hc *http.Client, baseURL string, offer Description) (Description, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	body, _ := json.Marshal(offer)
	u := strings.TrimSuffix(baseURL, "/") + "/vkm/offer"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return Description{}, fmt.Errorf("web: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return Description{}, fmt.Errorf("web: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxOfferBytes))
	if err != nil {
		return Description{}, fmt.Errorf("web: %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return Description{}, refusedBy(resp, b)
	}
	var a Description
	if err := json.Unmarshal(b, &a); err != nil || a.Type != "answer" {
		return Description{}, fmt.Errorf("web: %s: not an answer: %.80q", u, b)
	}
	return a, nil
}

// RefusedError is a gateway's refusal of an offer or upgrade: its HTTP
// status and the reason it gave, and when it said trying again may
// succeed (its Retry-After; 0 when it did not say).
type RefusedError struct {
	Status     int
	Reason     string
	RetryAfter time.Duration
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("web: the gateway refused: %d %s: %s", e.Status, http.StatusText(e.Status), e.Reason)
}

// refusedBy is the refusal resp says, with body b.
func refusedBy(resp *http.Response, b []byte) *RefusedError {
	return &RefusedError{Status: resp.StatusCode, Reason: strings.TrimSpace(string(b)), RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"))}
}

// maxRetryAfter bounds the wait a Retry-After may ask for: a gateway asks
// for seconds, and a longer wait is no use to a player.
const maxRetryAfter = time.Minute

// parseRetryAfter reads a Retry-After header of delay-seconds (the form
// the gateway sends; RFC 9110 §10.2.3), at most maxRetryAfter; 0 for
// anything else, an HTTP date included.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 6 {
		return 0
	}
	n := 0
	for _, c := range []byte(v) {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return min(time.Duration(n)*time.Second, maxRetryAfter)
}

// DialWS connects to the gateway at baseURL ("http://host:port" or
// "ws://host:port") over its WebSocket fall-back, /vkm/ws.
func DialWS(ctx context.Context, baseURL string, opts DialOptions) (*Peer, error) {
	u := strings.TrimSuffix(baseURL, "/") + "/vkm/ws"
	ws, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: opts.HTTP})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
			return nil, refusedBy(resp, b)
		}
		return nil, fmt.Errorf("web: %w", err)
	}
	ws.SetReadLimit(transport.MaxDatagram)
	connCtx, cancel := context.WithCancel(context.Background())
	p := &Peer{in: make(chan []byte, peerDepth), done: make(chan struct{})}
	q := make(chan []byte, wsQueue)
	var unsent atomic.Int32 // queued or being written
	p.send = func(b []byte) error {
		unsent.Add(1)
		select {
		case <-p.done:
			unsent.Add(-1)
			return ErrClosed
		case q <- append([]byte(nil), b...):
			return nil
		default:
			unsent.Add(-1)
			return errFull
		}
	}
	p.stop = func() {
		drain(func() bool { return unsent.Load() == 0 || connCtx.Err() != nil })
		cancel()
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // writer
		defer wg.Done()
		defer cancel()
		for {
			select {
			case <-connCtx.Done():
				return
			case b := <-q:
				err := ws.Write(connCtx, websocket.MessageBinary, b)
				unsent.Add(-1)
				if err != nil {
					return
				}
			}
		}
	}()
	go func() { // reader
		defer wg.Done()
		defer cancel()
		for {
			typ, b, err := ws.Read(connCtx)
			if err != nil {
				return
			}
			if typ != websocket.MessageBinary {
				continue
			}
			select {
			case p.in <- b:
			default:
			}
		}
	}()
	go func() {
		wg.Wait()
		ws.CloseNow()
		close(p.done)
		close(p.in)
	}()
	return p, nil
}

// drain waits until sent says what was sent has left, for at most
// closeFlush.
func drain(sent func() bool) {
	deadline := time.Now().Add(closeFlush)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !sent() && time.Now().Before(deadline) {
		<-tick.C
	}
}

// Send sends b as one datagram, without blocking: one the connection
// cannot take now is dropped, with an error.
func (p *Peer) Send(b []byte) error {
	if len(b) > transport.MaxDatagram {
		return ErrTooLarge
	}
	select {
	case <-p.done:
		return ErrClosed
	default:
	}
	return p.send(b)
}

// Incoming delivers the gateway's datagrams; it closes once the
// connection has ended.
func (p *Peer) Incoming() <-chan []byte { return p.in }

// Done is closed once the connection has ended.
func (p *Peer) Done() <-chan struct{} { return p.done }

// Close ends the connection and waits until it has.
func (p *Peer) Close() error {
	p.once.Do(p.stop)
	<-p.done
	return nil
}

// Package web carries vkm's datagrams to and from browsers: over
// WebTransport datagrams (HTTP/3) where the browser has them (wt.go), over
// WebRTC data channels, and over WebSocket where neither connects. Nothing
// above it changes: a browser's datagrams are the same handshake, tokens
// and sealed packets a UDP client sends, and the serving loop sees each
// browser as one more peer address.
//
// Signalling is one HTTP exchange: the browser gathers its candidates,
// POSTs its offer to /vkm/offer, and reads back an answer the gateway
// has finished gathering for. The browser opens the one data channel,
// labelled "vkm", unordered with no retransmissions, so a message is
// a datagram: delivered once or lost. ICE listens on one UDP port for
// every peer.
//
// Each peer is given a synthetic address the serving loop keys it by:
// fd76:6b6d:0:K:H:H:H:H, port N. fd76:6b6d::/32 is in the IPv6
// unique-local range (fd00::/8), which is never routed across the
// internet, and "vkm" in its second to fourth bytes makes a web peer easy
// to spot in a log. K is 1 for WebRTC, 2 for WebSocket and 3 for
// WebTransport; the 64 bits H
// are a keyed hash of the peer's source IP, so the transport's per-address
// limits (hellos a second) fall on one browser host's peers together, as
// they do on one UDP host's ports; N tells the peers of one host apart.
// The host drops UDP datagrams that claim an address in the range
// (Synthetic), so a real UDP peer never shares one with a web peer.
//
// With Config.Voice, the players' voices ride on the same peer connection
// as WebRTC audio, relayed by the gateway as the serving loop's plan says
// (voice.go).
//
// Nothing in front of the vkm handshake is authenticated, so the gateway
// keeps its door narrow (door.go): an offer's body is read, under a
// deadline, before the offer takes a slot; a source (an IPv4 address, an
// IPv6 /64) may have only a few attempts connecting and a bounded number
// of peers at once; and a peer the handshake has not welcomed within
// WelcomeTimeout, or that has sent nothing for IdleTimeout, is closed.
// The gateway learns of the welcome from the datagrams the serving loop
// sends the peer (welcomes), and tells the loop of each peer whose
// connection has ended (TakeGone), so that its seat ends then rather than
// when it times out. The limits are per source as the HTTP
// connection shows it: behind a reverse proxy every browser would share
// the proxy's, so the listener is meant to be reached directly.
package web

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/webrtc/v4"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/webtransport-go"

	"vkm/transport"
	"vkm/transport/handshake"
	"vkm/transport/udp"
)

// Datagram is one message a peer sent, with the peer's synthetic address.
// Bytes is the receiver's own copy.
type Datagram struct {
	From  netip.AddrPort
	Bytes []byte
}

// Config says how a Gateway listens and what it admits.
type Config struct {
	// ICEAddr is the UDP address ("host:port") ICE listens on: one port
	// for every peer. Empty means 127.0.0.1 and a free port; the host
	// passes its HTTP address's host.
	ICEAddr string
	// Public are addresses announced to browsers besides the local ones,
	// with the ICE port (a host behind a 1:1 NAT); optional.
	Public []netip.Addr
	// MaxPeers bounds the peers admitted at once, welcomed or still
	// connecting, over every transport together; 0 means
	// DefaultMaxPeers.
	MaxPeers int
	// MaxPeersPerAddress bounds the peers one source (an IPv4 address,
	// an IPv6 /64) may have admitted at once; 0 means
	// DefaultMaxPeersPerAddress.
	MaxPeersPerAddress int
	// MaxConnectingPerAddress bounds one source's attempts the vkm
	// handshake has not welcomed yet, offers whose body is still being
	// read included; 0 means DefaultMaxConnectingPerAddress.
	MaxConnectingPerAddress int
	// OffersPerIPPerSecond bounds the offers and WebSocket upgrades one
	// source may make, after a burst of OfferBurst times as many (the
	// players of a household or a LAN opening the page at once); 0 means
	// DefaultOffersPerIPPerSecond.
	OffersPerIPPerSecond int
	// OfferTimeout bounds the reading of an offer's body, from the
	// handler's start; 0 means DefaultOfferTimeout.
	OfferTimeout time.Duration
	// WelcomeTimeout is how long an admitted peer has until the vkm
	// handshake welcomes it; 0 means DefaultWelcomeTimeout.
	WelcomeTimeout time.Duration
	// IdleTimeout closes a peer that has sent nothing for this long; 0
	// means transport.DefaultTimeout.
	IdleTimeout time.Duration
	// WebTransportAddr is the UDP address ("host:port") WebTransport
	// sessions over HTTP/3 are served on (wt.go); empty means none, and
	// pages use WebRTC.
	WebTransportAddr string
	// Voice relays the players' voices (voice.go): a page's offer with
	// audio lines is answered with the gateway's tracks. Off, audio lines
	// are refused and only the data channel is answered.
	Voice  bool
	Logger *slog.Logger
}

// Defaults for the zero Config.
const (
	// DefaultMaxPeers bounds a gateway's peers: far more than a match's
	// seats, so that players refused a seat, or rejoining, are not kept
	// from being told why.
	DefaultMaxPeers = 256
	// DefaultMaxPeersPerAddress is 16: a vkmd serves one match, and a
	// household, a LAN party or a café behind one NAT rarely brings more
	// of its players; one address then holds at most 1/16 of the slots.
	DefaultMaxPeersPerAddress = 16
	// DefaultMaxConnectingPerAddress is 4: a real player is welcomed
	// within a second or two of its admission, so four at once from one
	// address covers a household opening the page together (the Go
	// client retries after the Retry-After of a 429). At 4, filling the
	// DefaultMaxPeers slots with attempts that never finish the
	// handshake takes 64 addresses, and each is gone within
	// WelcomeTimeout.
	DefaultMaxConnectingPerAddress = 4
	// DefaultOffersPerIPPerSecond is 2 a second, after a burst of
	// OfferBurst seconds' worth: a page makes one offer, and one
	// upgrade when WebRTC fails.
	DefaultOffersPerIPPerSecond = 2
	// DefaultOfferTimeout is 3 s: a browser's offer (1 to 3 KB) arrives
	// with its headers, in one round trip; 3 s leaves room for a segment
	// lost twice (TCP's first retransmission timeout is 1 s, then 2 s).
	DefaultOfferTimeout = 3 * time.Second
	// DefaultWelcomeTimeout is 5 s: from its admission a WebRTC peer
	// needs ICE, DTLS and SCTP (a few round trips), then the vkm join
	// (Hello, Challenge, Hello, Welcome: two), under a second on most
	// links and about two at a 300 ms round trip; 5 s leaves room for a
	// slow device starting its client, and is half the time a client
	// waits before it gives up a join.
	DefaultWelcomeTimeout = 5 * time.Second
)

// Limits of the signalling exchange.
const (
	// connectingRetry is when a source at its cap of attempts connecting
	// is told to try again (Retry-After): the shortest a header says, and
	// about as long as a welcome takes. Told WelcomeTimeout, sixteen
	// players of one household opening the page at once came in four at
	// a time five seconds apart, and the Go client's join gave up on the
	// last of them.
	connectingRetry = time.Second
	// OfferBurst is how many seconds' worth of offers a source may make
	// at once.
	OfferBurst = 4
	// MaxOfferBytes bounds an offer's request body. A browser's offer
	// with a handful of candidates is 1 to 3 KB.
	MaxOfferBytes = 32 << 10
	// GatherTimeout bounds the gateway's own candidate gathering before
	// it answers (host candidates only: it is quick).
	GatherTimeout = 5 * time.Second
	// maxBuffered is how much a peer's data channel may hold unsent
	// before the gateway drops what it is given: a peer that is not
	// reading gains nothing from a queue of stale snapshots.
	maxBuffered = 256 << 10
)

// Limits of the HTTP server a gateway is served by (the host sets them).
// There is no write timeout: the same server sends the browser client
// (megabytes, to links of any speed; a dev server builds it on the first
// request), and a WebSocket's writes have their own.
const (
	// ReadHeaderTimeout bounds a request's headers: a browser sends them
	// at once.
	ReadHeaderTimeout = 5 * time.Second
	// ReadTimeout bounds a whole request, body included: a backstop
	// behind the offer's own OfferTimeout. It does not bound a
	// WebSocket: net/http clears it on the connection it hands over.
	ReadTimeout = 10 * time.Second
	// IdleTimeout closes a kept-alive connection with no request: a page
	// makes its few requests within seconds of each other.
	IdleTimeout = 30 * time.Second
)

// Stats counts what a Gateway has carried since it started, and the
// peers and attempts it has now. Its maps are the caller's; transports
// are "webrtc", "websocket" and "webtransport", and Closed has every
// reason.
type Stats struct {
	// Peers are the open peers the vkm handshake has welcomed, by
	// transport.
	Peers map[string]int
	// Connecting are the attempts it has not welcomed yet, by transport:
	// offers being read or answered, channels opening, and channels and
	// sockets that have not finished the handshake.
	Connecting map[string]int
	// Admitted counts the peers the handshake welcomed, by transport.
	Admitted map[string]uint64
	// Closed counts every offer and upgrade that ended, turned away at the
	// door or closed after it, by reason: rate, address_cap, full,
	// bad_request, offer_timeout, handshake_deadline, idle, client_closed,
	// protocol, failed, shutdown.
	Closed                    map[string]uint64
	DatagramsIn, DatagramsOut uint64
	BytesIn, BytesOut         uint64
	// Drops are datagrams lost at the gateway: too large, not binary,
	// the reader too far behind, a peer's queue full.
	Drops uint64
	// Refused are offers and upgrades answered with an error status:
	// malformed, from another site, over a limit, too slow, failed.
	Refused uint64
}

// kinds of peer, the K of a synthetic address; numKinds sizes a table
// indexed by kind.
const (
	kindRTC  = 1
	kindWS   = 2
	kindWT   = 3
	numKinds = 4
)

// prefix is the synthetic addresses' first 32 bits.
var prefix = [4]byte{0xfd, 0x76, 0x6b, 0x6d}

// Synthetic reports whether a is in the range the gateway gives its peers
// (fd76:6b6d::/32). The host drops UDP datagrams from it: they are
// forged or misrouted, and would otherwise pass for a web peer.
func Synthetic(a netip.Addr) bool {
	if !a.Is6() || a.Is4In6() {
		return false
	}
	b := a.As16()
	return [4]byte(b[:4]) == prefix
}

// peer is one attempt of a browser to connect, from its request's
// arrival to its end: entered (counted at the door), admitted (a slot and
// an address), open (in the table WriteTo and Owns read), welcomed.
type peer struct {
	kind int
	// source is what the door counts it under (sourceKey).
	source netip.Addr
	// addr is set as it is admitted and not changed after.
	addr netip.AddrPort
	// ctx ends with the peer's connection; cancel ends it (any number of
	// times; the gateway's Close ends every peer's). end ends it for a
	// reason.
	ctx    context.Context
	cancel context.CancelFunc
	// why is the reason it ended, set by the first end.
	why atomic.Uint32
	// admitted, open and gone are under the gateway's mu; welcomed is
	// set under it too, and read without it by WriteTo.
	admitted, open, gone bool
	welcomed             atomic.Bool
	// admittedAt is when it was admitted and heard when it last sent a
	// datagram, as Gateway.since; timer is its deadlines' (watch.go).
	admittedAt time.Duration
	heard      atomic.Int64
	timerMu    sync.Mutex
	timer      timer
	// dc is a WebRTC peer's channel, set before the peer opens; q a
	// WebSocket or WebTransport peer's queue to its writer.
	dc atomic.Pointer[webrtc.DataChannel]
	q  chan []byte
	// voice is a WebRTC peer's voice, set before its offer is answered
	// when it offers audio (voice.go).
	voice atomic.Pointer[peerVoice]
	// unsent counts the datagrams queued for a WebSocket or
	// WebTransport peer and not yet written.
	unsent atomic.Int32
}

// end ends the peer's connection for r, unless it has ended already: for
// another reason, or with the gateway (forget counts that as shutdown,
// whatever its connection's closing then calls end with).
func (p *peer) end(r reason) {
	if p.ctx.Err() == nil {
		p.why.CompareAndSwap(uint32(reasonNone), uint32(r))
	}
	p.cancel()
}

// send queues b for the peer without blocking.
func (p *peer) send(b []byte) error {
	switch p.kind {
	case kindWS, kindWT:
		p.unsent.Add(1)
		c := getDatagram(b)
		select {
		case p.q <- c:
			return nil
		default:
			putDatagram(c)
			p.unsent.Add(-1)
			return errFull
		}
	}
	dc := p.dc.Load()
	if dc == nil {
		return ErrNoPeer
	}
	if dc.BufferedAmount() > maxBuffered {
		return errFull
	}
	return dc.Send(b) // it copies b
}

// Gateway serves the signalling endpoints and carries every peer's
// datagrams.
type Gateway struct {
	cfg Config
	log *slog.Logger
	// api makes the peer connections of the peers that offer voice;
	// dataAPI those of the rest.
	api     *webrtc.API
	dataAPI *webrtc.API
	conn    net.PacketConn
	mux     ice.UDPMux
	seed    maphash.Seed
	ctx     context.Context // ends at Close
	stop    context.CancelFunc

	// inMu guards sending on in against its closing.
	inMu   sync.RWMutex
	in     chan Datagram
	closed bool

	// clock is what the limits and deadlines run on, epoch its time at
	// the start.
	clock clock
	epoch time.Time

	mu    sync.RWMutex
	door  *door
	peers map[netip.AddrPort]*peer // open ones
	ports map[netip.Addr]uint16    // the last port given, by synthetic IP
	taken map[netip.AddrPort]bool  // given to an admitted peer
	// connecting counts the attempts not welcomed yet, by kind.
	connecting [numKinds]int
	wg         sync.WaitGroup // every attempt entered and not forgotten

	// gone are the open peers whose connections have ended since the
	// reader last took them (TakeGone), at most maxGone; goneCount is
	// its length, read without mu by a reader with nothing to take.
	gone      []Gone
	goneCount atomic.Int32

	// forgotten, if set, hears every attempt forgotten (tests).
	forgotten chan<- ended

	datagramsIn, datagramsOut, bytesIn, bytesOut, drops, refused atomic.Uint64
	// admittedTotal counts the peers welcomed, by kind; ends the attempts
	// ended, by reason.
	admittedTotal [numKinds]atomic.Uint64
	ends          [numReasons]atomic.Uint64

	voice voiceState // voice.go

	// wt serves WebTransport sessions on wtConn, with wtCert's
	// certificate (wt.go); nil without Config.WebTransportAddr.
	wt        *webtransport.Server
	wtConn    *net.UDPConn
	wtLn      *quic.EarlyListener
	wtServing sync.WaitGroup // the accepting goroutine and each connection's
	wtCert    wtCert
}

// ended is an attempt the gateway has forgotten: its address (zero if it
// was never admitted) and why it ended.
type ended struct {
	addr netip.AddrPort
	why  reason
}

// incomingDepth is how many datagrams may wait for the reader before the
// gateway drops, as a UDP socket's buffer would.
const incomingDepth = 1024

// NewGateway opens the ICE port and returns a gateway ready to serve.
func NewGateway(cfg Config) (*Gateway, error) { return newGateway(cfg, wallClock{}) }

// withDefaults is cfg with every zero field given its default.
func (cfg Config) withDefaults() Config {
	if cfg.ICEAddr == "" {
		cfg.ICEAddr = "127.0.0.1:0"
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&cfg.MaxPeers, DefaultMaxPeers)
	def(&cfg.MaxPeersPerAddress, DefaultMaxPeersPerAddress)
	def(&cfg.MaxConnectingPerAddress, DefaultMaxConnectingPerAddress)
	def(&cfg.OffersPerIPPerSecond, DefaultOffersPerIPPerSecond)
	dur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	dur(&cfg.OfferTimeout, DefaultOfferTimeout)
	dur(&cfg.WelcomeTimeout, DefaultWelcomeTimeout)
	dur(&cfg.IdleTimeout, transport.DefaultTimeout)
	return cfg
}

// newGateway is NewGateway on clk.
func newGateway(cfg Config, clk clock) (*Gateway, error) {
	cfg = cfg.withDefaults()
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	conn, err := net.ListenPacket("udp", cfg.ICEAddr)
	if err != nil {
		return nil, fmt.Errorf("web: ICE address %s: %w", cfg.ICEAddr, err)
	}
	lf := pionLogs{log}
	var muxed net.PacketConn = conn
	if u, ok := conn.(*net.UDPConn); ok {
		muxed = udp.PollerPacketConn(u)
	}
	mux := ice.NewUDPMuxDefault(ice.UDPMuxParams{UDPConn: muxed, Logger: lf.NewLogger("mux")})
	se := webrtc.SettingEngine{LoggerFactory: lf}
	se.SetICEUDPMux(mux)
	se.SetIncludeLoopbackCandidate(true)
	// With DTLS beneath, SCTP's own checksum is redundant (RFC 9653); used
	// only when the other end says it takes it.
	se.EnableSCTPZeroChecksum(true)
	// Announced in the answer: a browser refuses to send a message over
	// the largest datagram.
	se.SetSCTPMaxMessageSize(transport.MaxDatagram)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4, webrtc.NetworkTypeUDP6})
	// No mDNS: it would open a socket on port 5353 per peer, and a
	// browser's .local candidates are not needed: its checks reach the
	// gateway's port and teach it the browser's address.
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	// A peer's channel is read by one goroutine of the gateway's
	// (readChannel) rather than through a callback.
	se.DetachDataChannels()
	if len(cfg.Public) > 0 {
		ext := make([]string, len(cfg.Public))
		for i, a := range cfg.Public {
			ext[i] = a.String()
		}
		if err := se.SetICEAddressRewriteRules(webrtc.ICEAddressRewriteRule{External: ext, AsCandidateType: webrtc.ICECandidateTypeHost, Mode: webrtc.ICEAddressRewriteAppend}); err != nil {
			mux.Close()
			return nil, fmt.Errorf("web: public addresses %v: %w", cfg.Public, err)
		}
	}
	ctx, stop := context.WithCancel(context.Background())
	g := &Gateway{
		cfg: cfg, log: log, conn: conn, mux: mux,
		api: webrtc.NewAPI(webrtc.WithSettingEngine(se)),
		// No interceptors: they act on RTP and RTCP, which a peer
		// without voice has none of, and each starts goroutines on
		// tickers (NACKs and congestion feedback ten times a second,
		// reports once) for every peer connection.
		dataAPI: webrtc.NewAPI(webrtc.WithSettingEngine(se), webrtc.WithInterceptorRegistry(&interceptor.Registry{})),
		seed:    maphash.MakeSeed(), ctx: ctx, stop: stop, in: make(chan Datagram, incomingDepth),
		clock: clk, epoch: clk.Now(), door: newDoor(cfg),
		peers: map[netip.AddrPort]*peer{}, ports: map[netip.Addr]uint16{}, taken: map[netip.AddrPort]bool{},
	}
	if err := g.listenWT(); err != nil {
		mux.Close()
		stop()
		return nil, err
	}
	return g, nil
}

// ICEAddr returns the UDP address ICE listens on.
func (g *Gateway) ICEAddr() netip.AddrPort {
	a, _ := netip.ParseAddrPort(g.conn.LocalAddr().String())
	return a
}

// Handler serves POST /vkm/offer, GET /vkm/ws and GET /vkm/webtransport
// (the WebTransport port and certificate hash); anything else is 404.
func (g *Gateway) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /vkm/offer", g.serveOffer)
	mux.HandleFunc("GET /vkm/ws", g.serveWS)
	mux.HandleFunc("GET /vkm/webtransport", g.serveWTInfo)
	return mux
}

// Incoming delivers every peer's datagrams; it closes once the gateway
// has.
func (g *Gateway) Incoming() <-chan Datagram { return g.in }

// ErrNoPeer is returned by WriteTo for an address that is not an open
// peer's; ErrTooLarge for a datagram over transport.MaxDatagram.
var (
	ErrNoPeer   = errors.New("web: no such peer")
	ErrTooLarge = errors.New("web: datagram too large")
	ErrClosed   = errors.New("web: closed")
	errFull     = errors.New("web: the peer's queue is full")
)

// WriteTo sends b to the peer at to, as one message. It does not block:
// a datagram the peer's connection cannot take now is dropped, as UDP
// would. The first Welcome or Data datagram sent to a peer marks it
// welcomed (see welcomes).
func (g *Gateway) WriteTo(b []byte, to netip.AddrPort) error {
	if len(b) > transport.MaxDatagram {
		g.drops.Add(1)
		return ErrTooLarge
	}
	g.mu.RLock()
	p := g.peers[to]
	g.mu.RUnlock()
	if p == nil {
		return ErrNoPeer
	}
	if !p.welcomed.Load() && welcomes(b) {
		g.welcome(p)
	}
	if err := p.send(b); err != nil {
		g.drops.Add(1)
		return err
	}
	g.datagramsOut.Add(1)
	g.bytesOut.Add(uint64(len(b)))
	return nil
}

// Gone is an open peer whose connection has ended: its address, and what
// the server is to take the end for (transport.Server.LinkGone):
// handshake.GoodbyeQuit when the client closed it (a tab closing, whose
// own Goodbye may not have got out), GoodbyeProtocol when it broke the
// gateway's rules, GoodbyeTimeout when it failed or went idle.
type Gone struct {
	Addr   netip.AddrPort
	Reason handshake.GoodbyeReason
}

// GoneFunc is what a reader of the gateway is told of a Gone by.
type GoneFunc = func(addr netip.AddrPort, reason handshake.GoodbyeReason)

// maxGone bounds the ends the gateway keeps for a reader that has not
// taken them: far more than a reader waking every tick ever finds. A
// peer's end not kept leaves its seat to time out, as before.
const maxGone = 4096

// TakeGone appends to dst the open peers whose connections have ended
// since the last call, oldest first, and forgets them. Every address is
// one of the gateway's own (Synthetic), and is told once. Called with
// nothing to take, it costs one atomic load.
func (g *Gateway) TakeGone(dst []Gone) []Gone {
	if g.goneCount.Load() == 0 {
		return dst
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	dst = append(dst, g.gone...)
	clear(g.gone)
	g.gone = g.gone[:0]
	g.goneCount.Store(0)
	return dst
}

// goodbye is the Goodbye reason a peer's end is taken for (Gone).
func (r reason) goodbye() handshake.GoodbyeReason {
	switch r {
	case reasonClientClosed:
		return handshake.GoodbyeQuit
	case reasonProtocol:
		return handshake.GoodbyeProtocol
	}
	return handshake.GoodbyeTimeout
}

// Owns reports whether a is one of this gateway's open peers.
func (g *Gateway) Owns(a netip.AddrPort) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.peers[a] != nil
}

// Stats returns the gateway's counts so far: the one place its figures
// are gathered, for the report, the status line and /metrics.
func (g *Gateway) Stats() Stats {
	s := Stats{
		Peers: map[string]int{}, Connecting: map[string]int{}, Admitted: map[string]uint64{}, Closed: map[string]uint64{},
		DatagramsIn: g.datagramsIn.Load(), DatagramsOut: g.datagramsOut.Load(),
		BytesIn: g.bytesIn.Load(), BytesOut: g.bytesOut.Load(),
		Drops: g.drops.Load(), Refused: g.refused.Load(),
	}
	for r := reasonNone + 1; r < numReasons; r++ {
		s.Closed[r.String()] = g.ends[r].Load()
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, k := range []int{kindRTC, kindWS, kindWT} {
		s.Peers[kindName(k)] = 0
		s.Connecting[kindName(k)] = g.connecting[k]
		s.Admitted[kindName(k)] = g.admittedTotal[k].Load()
	}
	for _, p := range g.peers {
		if p.welcomed.Load() {
			s.Peers[kindName(p.kind)]++
		}
	}
	return s
}

// closeFlush is how long Close waits for what the peers have been sent
// (a server's goodbye) to leave before it ends their connections.
const closeFlush = 250 * time.Millisecond

// Close drops every peer, once what they have been sent has left (for at
// most closeFlush), closes the ICE port and then Incoming.
func (g *Gateway) Close() error {
	if g.ctx.Err() != nil {
		return nil
	}
	g.flush()
	g.mu.Lock()
	done := g.ctx.Err() != nil
	g.stop() // every peer's context is a child of g.ctx
	g.mu.Unlock()
	if done {
		return nil
	}
	g.wg.Wait()
	err := errors.Join(g.mux.Close(), g.closeWT())
	g.inMu.Lock()
	g.closed = true
	close(g.in)
	g.inMu.Unlock()
	return err
}

// flush waits until every open peer's queue is empty, for at most
// closeFlush.
func (g *Gateway) flush() {
	drain(func() bool {
		g.mu.RLock()
		defer g.mu.RUnlock()
		for _, p := range g.peers {
			if p.q != nil && p.unsent.Load() > 0 {
				return false
			}
			if dc := p.dc.Load(); dc != nil && dc.BufferedAmount() > 0 {
				return false
			}
		}
		return true
	})
}

// deliver hands a peer's message to the reader, or drops it; either way
// the peer has been heard from.
func (g *Gateway) deliver(p *peer, b []byte) {
	p.heard.Store(int64(g.since()))
	if len(b) > transport.MaxDatagram {
		g.drops.Add(1)
		return
	}
	g.inMu.RLock()
	defer g.inMu.RUnlock()
	if g.closed {
		return
	}
	// Counted before the send, so whoever reads the datagram reads stats
	// that hold it; taken back if the queue is full.
	g.datagramsIn.Add(1)
	g.bytesIn.Add(uint64(len(b)))
	select {
	case g.in <- Datagram{From: p.addr, Bytes: b}:
	default:
		g.datagramsIn.Add(^uint64(0))
		g.bytesIn.Add(-uint64(len(b)))
		g.drops.Add(1)
	}
}

// refusal is why a request is turned away: its answer, and the reason it
// is counted under.
type refusal struct {
	status int
	why    string
	reason reason
	// retry, if set, is sent as Retry-After: when trying again may
	// succeed.
	retry time.Duration
}

// closing is the refusal of every request once the gateway is closing.
var closing = refusal{http.StatusServiceUnavailable, "the gateway is closing", reasonShutdown, 0}

// enter counts a new attempt of kind from source at the door, or says why
// it may not come in: the gateway is closing, the source is over its
// offer rate, or it has as many attempts connecting or peers admitted as
// one source may. The attempt holds no slot yet.
func (g *Gateway) enter(source netip.Addr, kind int) (*peer, *refusal) {
	src := sourceKey(source)
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ctx.Err() != nil {
		return nil, &closing
	}
	switch g.door.enter(src, now) {
	case reasonRate:
		return nil, &refusal{http.StatusTooManyRequests, fmt.Sprintf("more than %d offers a second from one address", g.cfg.OffersPerIPPerSecond), reasonRate, time.Second}
	case reasonAddressCap:
		why := fmt.Sprintf("one address may have %d connections connecting and %d peers at once", g.cfg.MaxConnectingPerAddress, g.cfg.MaxPeersPerAddress)
		// An attempt connecting is welcomed within a second on most
		// links, so a household's players opening the page together are
		// told to try again then; the WelcomeTimeout that bounds a slot
		// held by an attempt that never finishes is the answer only when
		// the source's peers, not its attempts, are what is full.
		retry := connectingRetry
		if g.door.peersFull(src) {
			retry = g.cfg.WelcomeTimeout
		}
		return nil, &refusal{http.StatusTooManyRequests, why, reasonAddressCap, retry}
	}
	p := &peer{kind: kind, source: src}
	p.ctx, p.cancel = context.WithCancel(g.ctx)
	g.connecting[kind]++
	g.wg.Add(1) // done by forget
	return p, nil
}

// admit gives an entered attempt a slot and a synthetic address, and arms
// its deadlines, or says why not: the gateway has its peers, or the
// source has as many as one source may.
func (g *Gateway) admit(p *peer) *refusal {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ctx.Err() != nil {
		return &closing
	}
	ip := g.syntheticIP(p.source, p.kind)
	if len(g.ports) >= maxTracked && g.ports[ip] == 0 {
		// The ports given are remembered so that a host's next peer
		// does not take an address its last one left moments ago;
		// starting over for every host now and then costs little.
		clear(g.ports)
	}
	port := g.ports[ip]
	for range 1 << 16 {
		port++
		if port == 0 {
			port = 1
		}
		if !g.taken[netip.AddrPortFrom(ip, port)] {
			break
		}
	}
	a := netip.AddrPortFrom(ip, port)
	if g.taken[a] {
		return &refusal{http.StatusServiceUnavailable, "no free address for this host", reasonFull, 0}
	}
	switch g.door.admit(p.source) {
	case reasonFull:
		// A slot held by an attempt that never finishes the handshake
		// is free within WelcomeTimeout.
		return &refusal{http.StatusServiceUnavailable, fmt.Sprintf("the gateway has its %d peers", g.cfg.MaxPeers), reasonFull, g.cfg.WelcomeTimeout}
	case reasonAddressCap:
		return &refusal{http.StatusTooManyRequests, fmt.Sprintf("one address may have %d peers at once", g.cfg.MaxPeersPerAddress), reasonAddressCap, g.cfg.WelcomeTimeout}
	}
	g.ports[ip], g.taken[a] = port, true
	p.addr, p.admitted = a, true
	g.startWatch(p)
	return nil
}

// open moves an admitted peer into the table WriteTo and Owns read; it
// reports false once the peer or the gateway has ended.
func (g *Gateway) open(p *peer) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !p.admitted || p.gone || p.ctx.Err() != nil {
		return false
	}
	p.open = true
	g.peers[p.addr] = p
	g.log.Debug("web peer open", "addr", p.addr.String(), "kind", kindName(p.kind))
	return true
}

// welcome marks an open peer welcomed by the vkm handshake: it is no
// longer connecting, and its handshake deadline is lifted.
func (g *Gateway) welcome(p *peer) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if p.gone || p.welcomed.Load() {
		return
	}
	p.welcomed.Store(true)
	g.door.welcome(p.source)
	g.connecting[p.kind]--
	g.admittedTotal[p.kind].Add(1)
	g.log.Info("web peer welcomed", "addr", p.addr.String(), "kind", kindName(p.kind))
}

// forget drops an attempt at whatever point it ended, ends its connection,
// frees what it held and counts why it ended. It is called once for every
// peer enter returned.
func (g *Gateway) forget(p *peer) {
	p.cancel()
	p.stopWatch()
	why := reason(p.why.Load())
	if why == reasonNone {
		// Ended by the gateway's Close (a peer's own end records why);
		// or by the handler's return, which no path takes without one.
		why = reasonShutdown
	}
	g.mu.Lock()
	p.gone = true
	if p.open && g.peers[p.addr] == p {
		delete(g.peers, p.addr)
		// Told before the address is free for another peer, so a
		// reader hears of this end before anything of the next.
		if why != reasonShutdown && len(g.gone) < maxGone {
			g.gone = append(g.gone, Gone{Addr: p.addr, Reason: why.goodbye()})
			g.goneCount.Store(int32(len(g.gone)))
		}
	}
	if p.admitted {
		delete(g.taken, p.addr)
	}
	welcomed := p.welcomed.Load()
	g.door.leave(p.source, p.admitted, welcomed)
	if !welcomed {
		g.connecting[p.kind]--
	}
	g.mu.Unlock()
	g.ends[why].Add(1)
	if welcomed {
		g.log.Info("web peer gone", "addr", p.addr.String(), "kind", kindName(p.kind), "why", why.String())
	} else {
		g.log.Debug("web attempt ended", "addr", p.addr.String(), "kind", kindName(p.kind), "why", why.String())
	}
	if g.forgotten != nil {
		g.forgotten <- ended{p.addr, why}
	}
	g.wg.Done()
}

func kindName(k int) string {
	switch k {
	case kindRTC:
		return "webrtc"
	case kindWT:
		return "webtransport"
	}
	return "websocket"
}

// syntheticIP is the address of a source's peers of kind: the prefix, the
// kind, and a keyed hash of the source (an IPv4 address, an IPv6 /64).
func (g *Gateway) syntheticIP(source netip.Addr, kind int) netip.Addr {
	src := source.Unmap().As16()
	var b [16]byte
	copy(b[:4], prefix[:])
	binary.BigEndian.PutUint32(b[4:8], uint32(kind))
	binary.BigEndian.PutUint64(b[8:], maphash.Bytes(g.seed, src[:]))
	return netip.AddrFrom16(b)
}

// refuse answers a refused request and counts it, and ends p for f's
// reason; an attempt never let in (p nil) is counted as ended here.
func (g *Gateway) refuse(w http.ResponseWriter, r *http.Request, p *peer, f refusal) {
	g.refused.Add(1)
	if p != nil {
		p.end(f.reason)
	} else {
		g.ends[f.reason].Add(1)
	}
	g.log.Debug("web request refused", "remote", r.RemoteAddr, "path", r.URL.Path, "status", f.status, "why", f.why)
	if f.retry > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(f.retry.Seconds()))))
	}
	http.Error(w, f.why, f.status)
}

// sourceOf is the request's source IP.
func sourceOf(r *http.Request) netip.Addr {
	a, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.IPv6Unspecified()
	}
	return a.Addr().Unmap()
}

// Package web carries vkm's datagrams to and from browsers: over WebRTC
// data channels, and over WebSocket where WebRTC cannot connect. Nothing
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
// to spot in a log. K is 1 for WebRTC and 2 for WebSocket; the 64 bits H
// are a keyed hash of the peer's source IP, so the transport's per-address
// limits (hellos a second) fall on one browser host's peers together, as
// they do on one UDP host's ports; N tells the peers of one host apart.
// The host drops UDP datagrams that claim an address in the range
// (Synthetic), so a real UDP peer never shares one with a web peer.
//
// The limits on offers are per source IP, the HTTP connection's: behind a
// reverse proxy every browser would share the proxy's, so the listener is
// meant to be reached directly.
package web

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"

	"vkm/transport"
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
	// MaxPeers bounds the peers connected or connecting at once, over
	// WebRTC and WebSocket together; 0 means DefaultMaxPeers.
	MaxPeers int
	// OffersPerIPPerSecond bounds the offers and WebSocket upgrades one
	// source IP may make, after a burst of OfferBurst times as many (the
	// players of a household or a LAN opening the page at once); 0 means
	// DefaultOffersPerIPPerSecond.
	OffersPerIPPerSecond int
	Logger               *slog.Logger
}

// Defaults for the zero Config.
const (
	DefaultMaxPeers             = 256
	DefaultOffersPerIPPerSecond = 2
)

// Limits of the signalling exchange.
const (
	// OfferBurst is how many seconds' worth of offers a source may make
	// at once.
	OfferBurst = 4
	// MaxOfferBytes bounds an offer's request body. A browser's offer
	// with a handful of candidates is 1 to 3 KB.
	MaxOfferBytes = 32 << 10
	// GatherTimeout bounds the gateway's own candidate gathering before
	// it answers (host candidates only: it is quick).
	GatherTimeout = 5 * time.Second
	// ConnectTimeout is how long an answered offer has to open its data
	// channel before the gateway drops it and frees its slot.
	ConnectTimeout = 20 * time.Second
	// maxBuffered is how much a peer's data channel may hold unsent
	// before the gateway drops what it is given: a peer that is not
	// reading gains nothing from a queue of stale snapshots.
	maxBuffered = 256 << 10
)

// Stats counts what a Gateway has carried since it started, and the
// peers open now.
type Stats struct {
	PeersRTC, PeersWS         int
	DatagramsIn, DatagramsOut uint64
	BytesIn, BytesOut         uint64
	// Drops are datagrams lost at the gateway: too large, not binary,
	// the reader too far behind, a peer's queue full.
	Drops uint64
	// Refused are offers and upgrades turned away: malformed, from
	// another site, over a limit, failed.
	Refused uint64
}

// kinds of peer, the K of a synthetic address.
const (
	kindRTC = 1
	kindWS  = 2
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

// peer is one connected (or connecting) browser.
type peer struct {
	addr netip.AddrPort
	kind int
	// ctx ends with the peer's connection; close ends it (any number of
	// times; the gateway's Close ends every peer's).
	ctx   context.Context
	close context.CancelFunc
	// dc is a WebRTC peer's channel, set before the peer opens; wsq a
	// WebSocket peer's queue to its writer.
	dc  atomic.Pointer[webrtc.DataChannel]
	wsq chan []byte
	// wsUnsent counts the datagrams queued for a WebSocket peer and not
	// yet written.
	wsUnsent atomic.Int32
}

// send queues b for the peer without blocking.
func (p *peer) send(b []byte) error {
	if p.kind == kindWS {
		p.wsUnsent.Add(1)
		select {
		case p.wsq <- append([]byte(nil), b...):
			return nil
		default:
			p.wsUnsent.Add(-1)
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
	cfg  Config
	log  *slog.Logger
	api  *webrtc.API
	conn net.PacketConn
	mux  ice.UDPMux
	seed maphash.Seed
	ctx  context.Context // ends at Close
	stop context.CancelFunc

	// inMu guards sending on in against its closing.
	inMu   sync.RWMutex
	in     chan Datagram
	closed bool

	mu      sync.RWMutex
	peers   map[netip.AddrPort]*peer // open ones
	slots   int                      // open and connecting
	ports   map[netip.Addr]uint16    // the last port given, by synthetic IP
	taken   map[netip.AddrPort]bool  // given to a peer, open or connecting
	offers  map[netip.Addr]*bucket
	pending map[*peer]bool // connecting: closed by Close too
	wg      sync.WaitGroup

	// now is the clock of the offer limit; forgotten, if set, hears
	// every peer forgotten (tests).
	now       func() time.Time
	forgotten chan<- netip.AddrPort

	datagramsIn, datagramsOut, bytesIn, bytesOut, drops, refused atomic.Uint64
}

// incomingDepth is how many datagrams may wait for the reader before the
// gateway drops, as a UDP socket's buffer would.
const incomingDepth = 1024

// NewGateway opens the ICE port and returns a gateway ready to serve.
func NewGateway(cfg Config) (*Gateway, error) {
	if cfg.ICEAddr == "" {
		cfg.ICEAddr = "127.0.0.1:0"
	}
	if cfg.MaxPeers <= 0 {
		cfg.MaxPeers = DefaultMaxPeers
	}
	if cfg.OffersPerIPPerSecond <= 0 {
		cfg.OffersPerIPPerSecond = DefaultOffersPerIPPerSecond
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	conn, err := net.ListenPacket("udp", cfg.ICEAddr)
	if err != nil {
		return nil, fmt.Errorf("web: ICE address %s: %w", cfg.ICEAddr, err)
	}
	lf := pionLogs{log}
	mux := ice.NewUDPMuxDefault(ice.UDPMuxParams{UDPConn: conn, Logger: lf.NewLogger("mux")})
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
		cfg: cfg, log: log, api: webrtc.NewAPI(webrtc.WithSettingEngine(se)), conn: conn, mux: mux,
		seed: maphash.MakeSeed(), ctx: ctx, stop: stop, in: make(chan Datagram, incomingDepth),
		peers: map[netip.AddrPort]*peer{}, ports: map[netip.Addr]uint16{}, taken: map[netip.AddrPort]bool{},
		offers: map[netip.Addr]*bucket{}, pending: map[*peer]bool{}, now: time.Now,
	}
	return g, nil
}

// ICEAddr returns the UDP address ICE listens on.
func (g *Gateway) ICEAddr() netip.AddrPort {
	a, _ := netip.ParseAddrPort(g.conn.LocalAddr().String())
	return a
}

// Handler serves POST /vkm/offer and GET /vkm/ws; anything else is 404.
func (g *Gateway) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /vkm/offer", g.serveOffer)
	mux.HandleFunc("GET /vkm/ws", g.serveWS)
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
// would.
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
	if err := p.send(b); err != nil {
		g.drops.Add(1)
		return err
	}
	g.datagramsOut.Add(1)
	g.bytesOut.Add(uint64(len(b)))
	return nil
}

// Owns reports whether a is one of this gateway's open peers.
func (g *Gateway) Owns(a netip.AddrPort) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.peers[a] != nil
}

// Stats returns the gateway's counts so far.
func (g *Gateway) Stats() Stats {
	s := Stats{
		DatagramsIn: g.datagramsIn.Load(), DatagramsOut: g.datagramsOut.Load(),
		BytesIn: g.bytesIn.Load(), BytesOut: g.bytesOut.Load(),
		Drops: g.drops.Load(), Refused: g.refused.Load(),
	}
	g.mu.RLock()
	for _, p := range g.peers {
		if p.kind == kindRTC {
			s.PeersRTC++
		} else {
			s.PeersWS++
		}
	}
	g.mu.RUnlock()
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
	err := g.mux.Close()
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
			if p.kind == kindWS && p.wsUnsent.Load() > 0 {
				return false
			}
			if dc := p.dc.Load(); dc != nil && dc.BufferedAmount() > 0 {
				return false
			}
		}
		return true
	})
}

// deliver hands a peer's message to the reader, or drops it.
func (g *Gateway) deliver(from netip.AddrPort, b []byte) {
	if len(b) > transport.MaxDatagram {
		g.drops.Add(1)
		return
	}
	g.inMu.RLock()
	defer g.inMu.RUnlock()
	if g.closed {
		return
	}
	select {
	case g.in <- Datagram{From: from, Bytes: b}:
		g.datagramsIn.Add(1)
		g.bytesIn.Add(uint64(len(b)))
	default:
		g.drops.Add(1)
	}
}

// admit takes a slot and a synthetic address for a peer of kind from
// source, or says why not (an HTTP status and a reason).
func (g *Gateway) admit(source netip.Addr, kind int, now time.Time) (*peer, int, string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ctx.Err() != nil {
		return nil, http.StatusServiceUnavailable, "the gateway is closing"
	}
	if !g.allowOffer(source, now) {
		return nil, http.StatusTooManyRequests, fmt.Sprintf("more than %d offers a second from one address", g.cfg.OffersPerIPPerSecond)
	}
	if g.slots >= g.cfg.MaxPeers {
		return nil, http.StatusServiceUnavailable, fmt.Sprintf("the gateway has its %d peers", g.cfg.MaxPeers)
	}
	ip := g.syntheticIP(source, kind)
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
		return nil, http.StatusServiceUnavailable, "no free address for this host"
	}
	g.ports[ip], g.taken[a] = port, true
	g.slots++
	p := &peer{addr: a, kind: kind}
	p.ctx, p.close = context.WithCancel(g.ctx)
	g.pending[p] = true
	g.wg.Add(1) // done by whoever forgets p
	return p, 0, ""
}

// open moves a connecting peer into the table WriteTo and Owns read; it
// reports false once the gateway is closing.
func (g *Gateway) open(p *peer) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.pending[p] || g.ctx.Err() != nil {
		return false
	}
	delete(g.pending, p)
	g.peers[p.addr] = p
	g.log.Info("web peer open", "addr", p.addr.String(), "kind", kindName(p.kind))
	return true
}

// forget drops a peer, open or connecting, ends its connection and frees
// its slot. It is called once for every peer admit returned.
func (g *Gateway) forget(p *peer) {
	p.close()
	g.mu.Lock()
	if g.peers[p.addr] == p {
		delete(g.peers, p.addr)
		g.log.Info("web peer gone", "addr", p.addr.String(), "kind", kindName(p.kind))
	}
	delete(g.pending, p)
	delete(g.taken, p.addr)
	g.slots--
	g.mu.Unlock()
	if g.forgotten != nil {
		g.forgotten <- p.addr
	}
	g.wg.Done()
}

func kindName(k int) string {
	if k == kindRTC {
		return "webrtc"
	}
	return "websocket"
}

// syntheticIP is the address of a source's peers of kind: the prefix, the
// kind, and a keyed hash of the source.
func (g *Gateway) syntheticIP(source netip.Addr, kind int) netip.Addr {
	src := source.Unmap().As16()
	var b [16]byte
	copy(b[:4], prefix[:])
	binary.BigEndian.PutUint32(b[4:8], uint32(kind))
	binary.BigEndian.PutUint64(b[8:], maphash.Bytes(g.seed, src[:]))
	return netip.AddrFrom16(b)
}

// bucket is one source's offer allowance: a token bucket.
type bucket struct {
	tokens float64
	at     time.Time
}

// maxTracked bounds the sources the offer limit remembers; past it, the
// ones whose allowance has refilled are forgotten.
const maxTracked = 4096

// allowOffer takes one offer from source's allowance at now. g.mu is held.
func (g *Gateway) allowOffer(source netip.Addr, now time.Time) bool {
	rate := float64(g.cfg.OffersPerIPPerSecond)
	burst := rate * OfferBurst
	if len(g.offers) >= maxTracked {
		for a, b := range g.offers {
			if b.tokens+now.Sub(b.at).Seconds()*rate >= burst {
				delete(g.offers, a)
			}
		}
	}
	b := g.offers[source]
	if b == nil {
		if len(g.offers) >= maxTracked {
			return false // every tracked source is busy: an attack
		}
		b = &bucket{tokens: burst, at: now}
		g.offers[source] = b
	}
	b.tokens = min(burst, b.tokens+now.Sub(b.at).Seconds()*rate)
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// refuse answers a refused request and counts it.
func (g *Gateway) refuse(w http.ResponseWriter, r *http.Request, status int, why string) {
	g.refused.Add(1)
	g.log.Debug("web request refused", "remote", r.RemoteAddr, "path", r.URL.Path, "status", status, "why", why)
	http.Error(w, why, status)
}

// sourceOf is the request's source IP.
func sourceOf(r *http.Request) netip.Addr {
	a, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.IPv6Unspecified()
	}
	return a.Addr().Unmap()
}

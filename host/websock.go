//go:build !js

package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"vkm/host/figures"
	"vkm/host/netio"
	"vkm/host/web"
)

// webSocket is the server's socket with browsers beside its UDP peers:
// the UDP socket and a web gateway, read and written as one. The serving
// loop reads it in batches (netio.Direct) whatever the UDP socket is: the
// gateway's datagrams wait on its channel until the loop drains them at
// its next wake-up, as UDP datagrams wait in the kernel.
type webSocket struct {
	udp netio.Socket
	g   *web.Gateway
	// http serves the gateway's signalling and the browser's page.
	http *http.Server
	// udpOnly passes on a UDP datagram unless it claims a web peer's
	// address; fn is the loop's receiver it wraps, bound once.
	udpOnly func(netip.AddrPort, []byte)
	fn      func(netip.AddrPort, []byte)
}

var _ netio.Direct = (*webSocket)(nil)

// listenWeb starts the web listener of cfg.Web beside the server's UDP
// socket u: a gateway whose ICE port is the web address's host and port
// number, over UDP (a free one when that is taken and the web port was
// left to the system), and an HTTP server of the gateway and the page.
// It calls cfg.WebReady and logs the address it listens on.
func listenWeb(cfg ServeConfig, u netio.Socket, log *slog.Logger) (*webSocket, error) {
	addr := cfg.webAddr()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("host: the web listener: %w", err)
	}
	bound := ln.Addr().(*net.TCPAddr)
	host, port, _ := net.SplitHostPort(addr)
	gc := web.Config{ICEAddr: net.JoinHostPort(host, strconv.Itoa(bound.Port)), Logger: log}
	seen := map[netip.Addr]bool{}
	for _, p := range cfg.Public {
		if a := p.Addr().Unmap(); !a.IsUnspecified() && !seen[a] {
			seen[a] = true
			gc.Public = append(gc.Public, a)
		}
	}
	g, err := web.NewGateway(gc)
	if err != nil && port == "0" {
		gc.ICEAddr = net.JoinHostPort(host, "0")
		g, err = web.NewGateway(gc)
	}
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("host: the web listener's ICE port: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/vkm/", g.Handler())
	if err := registerWebPage(mux, cfg); err != nil {
		g.Close()
		ln.Close()
		return nil, err
	}
	s := &webSocket{udp: u, g: g, http: &http.Server{Handler: mux,
		ReadHeaderTimeout: web.ReadHeaderTimeout, ReadTimeout: web.ReadTimeout, IdleTimeout: web.IdleTimeout}}
	s.udpOnly = func(from netip.AddrPort, b []byte) {
		if !web.Synthetic(from.Addr()) {
			s.fn(from, b)
		}
	}
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("web listener failed", "err", err)
		}
	}()
	if cfg.WebReady != nil {
		cfg.WebReady(ln.Addr())
	}
	log.Info("web listening", "addr", ln.Addr().String(), "ice", g.ICEAddr().String())
	return s, nil
}

func (s *webSocket) Incoming() <-chan netio.Datagram { return nil }
func (s *webSocket) LocalAddr() netip.AddrPort       { return s.udp.LocalAddr() }
func (s *webSocket) Err() error                      { return s.udp.Err() }

// WriteTo sends b to a web peer through the gateway, and to anyone else
// over UDP.
func (s *webSocket) WriteTo(b []byte, to netip.AddrPort) error {
	if s.g.Owns(to) {
		return s.g.WriteTo(b, to)
	}
	return s.udp.WriteTo(b, to)
}

// ReadWaiting calls fn with every datagram waiting on the UDP socket
// (none that claims a web peer's address) and then the gateway's.
func (s *webSocket) ReadWaiting(fn func(from netip.AddrPort, b []byte)) error {
	s.fn = fn
	if d, ok := s.udp.(netio.Direct); ok {
		if err := d.ReadWaiting(s.udpOnly); err != nil {
			return err
		}
	} else {
		in := s.udp.Incoming()
	udp:
		for {
			select {
			case d, ok := <-in:
				if !ok {
					return fmt.Errorf("the UDP socket closed: %v", s.udp.Err())
				}
				s.udpOnly(d.From, d.Bytes)
			default:
				break udp
			}
		}
	}
	in := s.g.Incoming()
	for {
		select {
		case d, ok := <-in:
			if !ok {
				return errors.New("the web gateway closed")
			}
			fn(d.From, d.Bytes)
		default:
			return nil
		}
	}
}

// Queue sends b to a web peer at once (the gateway copies it) and queues
// it on the UDP socket otherwise.
func (s *webSocket) Queue(b []byte, to netip.AddrPort) error {
	if s.g.Owns(to) {
		return s.g.WriteTo(b, to)
	}
	if d, ok := s.udp.(netio.Direct); ok {
		return d.Queue(b, to)
	}
	return s.udp.WriteTo(b, to)
}

// Flush sends what the UDP socket has queued.
func (s *webSocket) Flush() error {
	if d, ok := s.udp.(netio.Direct); ok {
		return d.Flush()
	}
	return nil
}

// AddFigures adds the web listener's figures to set (package figures),
// read from its gateway's counts once a read: the report's "web" object,
// /metrics's vkm_web_*, and on the status line its peers by transport and
// the attempts connecting.
func (s *webSocket) AddFigures(set *figures.Set) {
	var st web.Stats
	set.Prepare(func() { st = s.g.Stats() })
	uint := func(n *uint64) func() uint64 { return func() uint64 { return *n } }
	ints := func(m *map[string]int) func(func(string, uint64)) {
		return func(each func(string, uint64)) {
			for l, n := range *m {
				each(l, uint64(n))
			}
		}
	}
	counts := func(m *map[string]uint64) func(func(string, uint64)) {
		return func(each func(string, uint64)) {
			for l, n := range *m {
				each(l, n)
			}
		}
	}
	set.Add([]figures.Figure{
		{Status: "web webrtc %d", Uint: func() uint64 { return uint64(st.Peers["webrtc"]) }},
		{Status: "websocket %d", Uint: func() uint64 { return uint64(st.Peers["websocket"]) }},
		{Status: "connecting %d", Uint: func() uint64 { return uint64(st.Connecting["webrtc"] + st.Connecting["websocket"]) }},
		{Key: "web.peers", Metric: "vkm_web_peers", Kind: figures.Gauge, Label: "transport", Uints: ints(&st.Peers),
			Help: "Browser peers open on the web listener now that the vkm handshake has welcomed, by transport (webrtc, websocket)."},
		{Key: "web.connecting", Metric: "vkm_web_connecting", Kind: figures.Gauge, Label: "transport", Uints: ints(&st.Connecting),
			Help: "Offers and WebSocket upgrades on the web listener the vkm handshake has not welcomed yet, by transport."},
		{Key: "web.admitted", Metric: "vkm_web_admitted_total", Label: "transport", Uints: counts(&st.Admitted),
			Help: "Browser peers the vkm handshake welcomed, by transport."},
		{Key: "web.closed", Metric: "vkm_web_closed_total", Label: "reason", Uints: counts(&st.Closed),
			Help: "Offers and WebSocket upgrades that ended, turned away or closed, by reason (rate, address_cap, full, bad_request, offer_timeout, handshake_deadline, idle, client_closed, protocol, failed, shutdown)."},
		{Key: "web.drops", Metric: "vkm_web_dropped_datagrams_total", Uint: uint(&st.Drops),
			Help: "Datagrams the web listener dropped: too large, or a reader or a peer's queue too far behind."},
		{Key: "web.refused", Metric: "vkm_web_refused_total", Uint: uint(&st.Refused),
			Help: "Offers and WebSocket upgrades the web listener answered with an error status."},
		{Key: "web.datagrams_in", Uint: uint(&st.DatagramsIn)},
		{Key: "web.datagrams_out", Uint: uint(&st.DatagramsOut)},
		{Key: "web.bytes_in", Uint: uint(&st.BytesIn)},
		{Key: "web.bytes_out", Uint: uint(&st.BytesOut)},
	}...)
}

// Close stops the web listener, then every web peer, then the UDP
// socket.
func (s *webSocket) Close() error {
	err := s.http.Close()
	err = errors.Join(err, s.g.Close())
	return errors.Join(err, s.udp.Close())
}

// peerSocket is a client's socket to its server through the server's web
// listener: a WebRTC data channel, or the WebSocket fall-back.
type peerSocket struct {
	p      *web.Peer
	in     chan netio.Datagram
	remote netip.AddrPort
}

// webDialTimeout bounds connecting to a web listener: signalling, ICE and
// the channel's opening.
const webDialTimeout = 15 * time.Second

// webDialRetry is how often a client tries a web listener that did not
// answer.
const webDialRetry = 250 * time.Millisecond

// dialWeb connects to the web listener at base: over its WebSocket
// fall-back for a ws:// or wss:// URL (as http:// or https://), over
// WebRTC otherwise.
func dialWeb(ctx context.Context, base string) (netio.Socket, error) {
	ctx, cancel := context.WithTimeout(ctx, webDialTimeout)
	defer cancel()
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("host: web URL %q: %w", base, err)
	}
	dialFn, target := web.Dial, base
	if u.Scheme == "ws" || u.Scheme == "wss" {
		u.Scheme = "http" + strings.TrimPrefix(u.Scheme, "ws")
		dialFn, target = web.DialWS, u.String()
	}
	// A listener not up yet (a server still starting) is tried again, as
	// a UDP client says Hello until it is answered; a refusal is final
	// unless it says when to try again (a household's players connecting
	// at once, over the gateway's cap for one address).
	retry := time.NewTimer(webDialRetry)
	defer retry.Stop()
	var p *web.Peer
	for {
		if p, err = dialFn(ctx, target, web.DialOptions{}); err == nil {
			break
		}
		wait := webDialRetry
		var refused *web.RefusedError
		if errors.As(err, &refused) {
			wait = refused.RetryAfter
		}
		if wait == 0 || ctx.Err() != nil {
			return nil, fmt.Errorf("host: joining over the web at %s: %w", base, err)
		}
		retry.Reset(wait)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("host: joining over the web at %s: %w", base, err)
		case <-retry.C:
		}
	}
	s := &peerSocket{p: p, in: make(chan netio.Datagram, netio.IncomingDepth)}
	go func() {
		for b := range p.Incoming() {
			select {
			case s.in <- netio.Datagram{From: s.remote, Bytes: b}:
			default:
			}
		}
	}()
	return s, nil
}

// Incoming delivers the server's datagrams. It stays open when the
// connection ends, as a UDP socket does when its server goes: the session
// reads the goodbye that came before the end, or notices the silence,
// and says which.
func (s *peerSocket) Incoming() <-chan netio.Datagram { return s.in }

func (s *peerSocket) WriteTo(b []byte, _ netip.AddrPort) error { return s.p.Send(b) }
func (s *peerSocket) LocalAddr() netip.AddrPort                { return netip.AddrPort{} }
func (s *peerSocket) Close() error                             { return s.p.Close() }
func (s *peerSocket) Err() error                               { return nil }

//go:build !js

package browser

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"

	"vkm/host/figures"
	"vkm/host/netio"
	"vkm/host/web"
)

// listener is the server's socket with browsers beside its UDP peers:
// the UDP socket and a web gateway, read and written as one. The serving
// loop reads it in batches (netio.Direct) whatever the UDP socket is: the
// gateway's datagrams wait on its channel until the loop drains them at
// its next wake-up, as UDP datagrams wait in the kernel.
type listener struct {
	udp netio.Socket
	g   *web.Gateway
	// http serves the gateway's signalling and the browser's page.
	http *http.Server
	// udpOnly passes on a UDP datagram unless it claims a web peer's
	// address; fn is the loop's receiver it wraps, bound once.
	udpOnly func(netip.AddrPort, []byte)
	fn      func(netip.AddrPort, []byte)
	// gone is told of each web peer whose connection ended (OnLinkGone);
	// ends is the reused list ReadWaiting takes them in.
	gone web.GoneFunc
	ends []web.Gone
}

var _ netio.Direct = (*listener)(nil)

// Listen starts the web listener of cfg beside the server's UDP socket u
// (vkmd --web): a gateway of WebTransport sessions, WebRTC data channels
// and WebSocket (package web), and an HTTP server of the gateway's signalling and the browser
// client's page. It returns the two sockets as one, which the serving
// loop reads itself (netio.Direct) and which adds the gateway's counts to
// the server's figures (AddFigures); closing it closes u. It calls
// cfg.Ready and logs the address it listens on.
func Listen(cfg ListenConfig, u netio.Socket) (netio.Socket, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	addr := cfg.Addr
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("browser: the web listener: %w", err)
	}
	bound := ln.Addr().(*net.TCPAddr)
	host, port, _ := net.SplitHostPort(addr)
	gc := web.Config{ICEAddr: net.JoinHostPort(host, strconv.Itoa(bound.Port)), Logger: log,
		Voice: cfg.Page.Project != nil && cfg.Page.Project.Voice.On()}
	seen := map[netip.Addr]bool{}
	for _, p := range cfg.Public {
		if a := p.Addr().Unmap(); !a.IsUnspecified() && !seen[a] {
			seen[a] = true
			gc.Public = append(gc.Public, a)
		}
	}
	if cfg.WebTransport {
		gc.WebTransportAddr = net.JoinHostPort(host, strconv.Itoa(bound.Port+1))
		if bound.Port == 65535 {
			gc.WebTransportAddr = net.JoinHostPort(host, "0")
		}
	}
	g, err := web.NewGateway(gc)
	if err != nil && port == "0" {
		gc.ICEAddr = net.JoinHostPort(host, "0")
		g, err = web.NewGateway(gc)
	}
	if err != nil && gc.WebTransportAddr != "" && gc.WebTransportAddr != net.JoinHostPort(host, "0") {
		// The next port is someone else's: WebTransport takes any, which
		// the page is told.
		gc.WebTransportAddr = net.JoinHostPort(host, "0")
		g, err = web.NewGateway(gc)
	}
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("browser: the web listener's ICE port: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/vkm/", g.Handler())
	if cfg.Page.Logger == nil {
		cfg.Page.Logger = log
	}
	cfg.Page.WebTransportPort = int(g.WebTransportAddr().Port())
	if err := registerPage(mux, cfg.Page); err != nil {
		g.Close()
		ln.Close()
		return nil, err
	}
	s := &listener{udp: u, g: g, http: &http.Server{Handler: mux,
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
	if cfg.Ready != nil {
		cfg.Ready(ln.Addr())
	}
	log.Info("web listening", "addr", ln.Addr().String(), "ice", g.ICEAddr().String(), "webtransport", g.WebTransportAddr().String())
	return s, nil
}

func (s *listener) Incoming() <-chan netio.Datagram { return nil }

// SetVoicePlan hands the gateway who may speak and who hears whom.
func (s *listener) SetVoicePlan(p web.VoicePlan) { s.g.SetVoicePlan(p) }

// VoiceStats returns the gateway's voice counts.
func (s *listener) VoiceStats() web.VoiceStats { return s.g.VoiceStats() }
func (s *listener) LocalAddr() netip.AddrPort  { return s.udp.LocalAddr() }
func (s *listener) Err() error                 { return s.udp.Err() }

// WriteTo sends b to a web peer through the gateway, and to anyone else
// over UDP. An address in the web peers' range is never a UDP peer's
// (ReadWaiting drops UDP datagrams that claim one), so the range alone
// decides, without a look in the gateway's table for every UDP datagram.
func (s *listener) WriteTo(b []byte, to netip.AddrPort) error {
	if web.Synthetic(to.Addr()) {
		return s.g.WriteTo(b, to)
	}
	return s.udp.WriteTo(b, to)
}

// OnLinkGone has ReadWaiting tell fn of every web peer whose connection
// has ended (web.Gone), on the reader's goroutine, so that the server
// ends the seat at once rather than when it times out: a tab closing over
// WebTransport may not get its Goodbye out. Only the gateway's own peer
// addresses are told, never a UDP one.
func (s *listener) OnLinkGone(fn web.GoneFunc) { s.gone = fn }

// ReadWaiting calls fn with every datagram waiting on the UDP socket
// (none that claims a web peer's address) and then the gateway's, and
// then tells OnLinkGone's function of the web peers that had ended when
// it began: after their last datagrams. (A later peer given the same
// address, which the gateway does only after many others, cannot have
// been seated by datagrams read in the same call.)
func (s *listener) ReadWaiting(fn func(from netip.AddrPort, b []byte)) error {
	s.fn = fn
	s.ends = s.g.TakeGone(s.ends[:0])
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
			s.tellGone()
			return nil
		}
	}
}

// tellGone tells OnLinkGone's function of the ends ReadWaiting took.
func (s *listener) tellGone() {
	for _, e := range s.ends {
		if s.gone != nil && web.Synthetic(e.Addr.Addr()) {
			s.gone(e.Addr, e.Reason)
		}
	}
	clear(s.ends)
}

// Queue sends b to a web peer at once (the gateway copies it) and queues
// it on the UDP socket otherwise.
func (s *listener) Queue(b []byte, to netip.AddrPort) error {
	if web.Synthetic(to.Addr()) {
		return s.g.WriteTo(b, to)
	}
	if d, ok := s.udp.(netio.Direct); ok {
		return d.Queue(b, to)
	}
	return s.udp.WriteTo(b, to)
}

// Flush sends what the UDP socket has queued.
func (s *listener) Flush() error {
	if d, ok := s.udp.(netio.Direct); ok {
		return d.Flush()
	}
	return nil
}

// AddFigures adds the web listener's figures to set (package figures),
// read from its gateway's counts once a read: the report's "web" object,
// /metrics's vkm_web_*, and on the status line its peers by transport and
// the attempts connecting.
func (s *listener) AddFigures(set *figures.Set) {
	var st web.Stats
	var vs web.VoiceStats
	set.Prepare(func() { st, vs = s.g.Stats(), s.g.VoiceStats() })
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
		{Status: "webtransport %d", Uint: func() uint64 { return uint64(st.Peers["webtransport"]) }},
		{Status: "connecting %d", Uint: func() uint64 {
			return uint64(st.Connecting["webrtc"] + st.Connecting["websocket"] + st.Connecting["webtransport"])
		}},
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
		{Key: "web.voice.packets_in", Metric: "vkm_web_voice_packets_in_total", Uint: uint(&vs.PacketsIn),
			Help: "Voice (RTP) packets the web listener heard from speakers, forwarded or not."},
		{Key: "web.voice.packets_out", Metric: "vkm_web_voice_packets_out_total", Uint: uint(&vs.PacketsOut),
			Help: "Voice packets the web listener forwarded to listeners: one for each listener a packet went to."},
		{Key: "web.voice.dropped_over_cap", Metric: "vkm_web_voice_dropped_over_cap_total", Uint: uint(&vs.DroppedOverCap),
			Help: "Voice packets dropped for being over their speaker's cap (60 a second, after a burst of 20)."},
		{Key: "web.voice.dropped_not_speaker", Metric: "vkm_web_voice_dropped_not_speaker_total", Uint: uint(&vs.DroppedNotSpeaker),
			Help: "Voice packets dropped because their peer may not speak: not seated, or muted."},
		{Key: "web.voice.bytes_in", Uint: uint(&vs.BytesIn)},
		{Key: "web.voice.bytes_out", Uint: uint(&vs.BytesOut)},
	}...)
}

// Close stops the web listener, then every web peer, then the UDP
// socket.
func (s *listener) Close() error {
	err := s.http.Close()
	err = errors.Join(err, s.g.Close())
	return errors.Join(err, s.udp.Close())
}

package web

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"

	"vkm/transport"
)

// WebTransport is the third way in, tried first by a page whose browser
// has it: a WebTransport session over HTTP/3 (QUIC) on a UDP port of its
// own, whose unreliable datagrams carry vkm's, one each. It costs the
// server one QUIC connection per peer and no SCTP, no DTLS and no
// signalling round trip beyond the session's CONNECT.
//
// A browser connects to it without a certificate from an authority: the
// gateway makes its own (ECDSA P-256, valid under 14 days, the rule for
// a page's serverCertificateHashes) and hands its SHA-256 hash to the
// page at GET /vkm/webtransport, with the port. The certificate is made
// anew once it is half its life old.
//
// The door's rules are the same as for the other two: the CONNECT request
// is counted at the door (enter), admitted (a slot and an address), and
// the peer then has WelcomeTimeout to be welcomed and IdleTimeout of
// silence at most. A peer that sends a datagram over
// transport.MaxDatagram or opens a stream is not a vkm page and is closed
// for protocol. A session is closed with its reason's number as the
// WebTransport error code and its label as the message.

// wtPath is the path of the WebTransport session's CONNECT request.
const wtPath = "/vkm/wt"

// Certificates of the WebTransport port.
const (
	// wtCertLife is a certificate's whole validity, NotBefore to
	// NotAfter: Chromium takes a certificate by its hash only when that
	// is at most 14 days.
	wtCertLife = 13 * 24 * time.Hour
	// wtCertBackdate is how far before its making a certificate is valid
	// from, for a browser whose clock is a little behind.
	wtCertBackdate = time.Hour
	// wtCertRenew is the age past which a new certificate is made: a page
	// given the old one's hash has long since connected.
	wtCertRenew = wtCertLife / 2
)

// WebTransportInfo is the body of GET /vkm/webtransport: the UDP port of
// the WebTransport listener, on the page's host, and the SHA-256 hash of
// its certificate in standard base64.
type WebTransportInfo struct {
	Port int    `json:"port"`
	Hash string `json:"hash"`
}

// ParseWebTransportInfo decodes and checks the body of GET
// /vkm/webtransport: a port in 1..65535 and a hash of 32 bytes.
func ParseWebTransportInfo(b []byte) (WebTransportInfo, [32]byte, error) {
	var info WebTransportInfo
	var hash [32]byte
	if len(b) > 1024 {
		return info, hash, fmt.Errorf("webtransport info: %d bytes, over 1024", len(b))
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return info, hash, fmt.Errorf("webtransport info: not JSON {\"port\", \"hash\"}: %v", err)
	}
	if info.Port < 1 || info.Port > 65535 {
		return info, hash, fmt.Errorf("webtransport info: port %d", info.Port)
	}
	h, err := base64.StdEncoding.DecodeString(info.Hash)
	if err != nil || len(h) != len(hash) {
		return info, hash, fmt.Errorf("webtransport info: the hash is not 32 bytes of base64")
	}
	copy(hash[:], h)
	return info, hash, nil
}

// wtCert is the WebTransport port's certificate, made anew as it ages.
type wtCert struct {
	mu   sync.Mutex
	cert *tls.Certificate
	hash [32]byte
	made time.Time
}

// current returns the certificate and its hash, making a new one first
// when there is none or it is older than wtCertRenew at now.
func (c *wtCert) current(now time.Time) (*tls.Certificate, [32]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cert == nil || now.Sub(c.made) > wtCertRenew || now.Before(c.made) {
		cert, err := makeWTCert(now)
		if err != nil {
			return nil, [32]byte{}, err
		}
		c.cert, c.hash, c.made = cert, sha256.Sum256(cert.Leaf.Raw), now
	}
	return c.cert, c.hash, nil
}

// makeWTCert makes a self-signed ECDSA P-256 certificate valid from
// wtCertBackdate before now for wtCertLife.
func makeWTCert(now time.Time) (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	from := now.Add(-wtCertBackdate)
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "vkm"},
		NotBefore:    from,
		NotAfter:     from.Add(wtCertLife),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// listenWT opens the WebTransport port of cfg and serves it; it does
// nothing when cfg has none.
func (g *Gateway) listenWT() error {
	if g.cfg.WebTransportAddr == "" {
		return nil
	}
	a, err := net.ResolveUDPAddr("udp", g.cfg.WebTransportAddr)
	if err != nil {
		return fmt.Errorf("web: WebTransport address %s: %w", g.cfg.WebTransportAddr, err)
	}
	conn, err := net.ListenUDP("udp", a)
	if err != nil {
		return fmt.Errorf("web: WebTransport address %s: %w", g.cfg.WebTransportAddr, err)
	}
	if _, _, err := g.wtCert.current(g.clock.Now()); err != nil {
		conn.Close()
		return fmt.Errorf("web: WebTransport certificate: %w", err)
	}
	tlsConf := http3.ConfigureTLSConfig(&tls.Config{
		MinVersion: tls.VersionTLS13,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			c, _, err := g.wtCert.current(g.clock.Now())
			return c, err
		},
	})
	quicConf := &quic.Config{
		EnableDatagrams:                  true,
		EnableStreamResetPartialDelivery: true,
		// The client sends several datagrams a second; a connection
		// silent this long has gone. The peer's own IdleTimeout is
		// judged by the gateway (watch).
		MaxIdleTimeout: g.cfg.IdleTimeout,
	}
	g.wt = &webtransport.Server{
		H3: &http3.Server{
			TLSConfig:  tlsConf,
			Handler:    http.HandlerFunc(g.serveWT),
			QUICConfig: quicConf,
		},
		// The origin is checked by serveWT, before the door.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	// The gateway accepts the QUIC connections itself and hands each to
	// the server, rather than running webtransport.Server.Serve: Serve
	// counts itself in only once it runs, so a Close made before its
	// goroutine started would race with it; here the listener exists and
	// is counted before newGateway returns. quic-go reads and writes the
	// socket through raw calls on the poller (wtSocket), not its own.
	ln, err := quic.ListenEarly(newWTSocket(conn), tlsConf, quicConf)
	if err != nil {
		conn.Close()
		return fmt.Errorf("web: WebTransport address %s: %w", g.cfg.WebTransportAddr, err)
	}
	g.wtConn, g.wtLn = conn, ln
	g.wtServing.Add(1)
	go func() {
		defer g.wtServing.Done()
		for {
			qc, err := ln.Accept(context.Background())
			if err != nil {
				if g.ctx.Err() == nil && !errors.Is(err, quic.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
					g.log.Error("web: WebTransport listener failed", "err", err)
				}
				return
			}
			g.wtServing.Add(1) // while this goroutine's own count holds
			go func() {
				defer g.wtServing.Done()
				g.wt.ServeQUICConn(qc) // ends with the connection
			}()
		}
	}()
	return nil
}

// WebTransportAddr returns the UDP address WebTransport listens on, or
// the zero address when the gateway has no WebTransport.
func (g *Gateway) WebTransportAddr() (a netip.AddrPort) {
	if g.wtConn == nil {
		return a
	}
	return g.wtConn.LocalAddr().(*net.UDPAddr).AddrPort()
}

// CertificateHash returns the SHA-256 hash of the WebTransport port's
// certificate, as a page hands it to the browser.
func (g *Gateway) CertificateHash() ([32]byte, error) {
	_, h, err := g.wtCert.current(g.clock.Now())
	return h, err
}

// serveWTInfo answers GET /vkm/webtransport: the port and the
// certificate's hash (WebTransportInfo), or 404 without WebTransport.
func (g *Gateway) serveWTInfo(w http.ResponseWriter, r *http.Request) {
	if g.wtConn == nil {
		http.NotFound(w, r)
		return
	}
	h, err := g.CertificateHash()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	b, _ := json.Marshal(WebTransportInfo{Port: int(g.WebTransportAddr().Port()), Hash: base64.StdEncoding.EncodeToString(h[:])})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}

// serveWT answers the CONNECT of a WebTransport session at /vkm/wt: it
// counts the attempt at the door, admits it, accepts the session, and
// carries one datagram each way per vkm datagram until the session ends
// or a deadline of the peer's passes (watch).
func (g *Gateway) serveWT(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect || r.URL.Path != wtPath {
		g.refuse(w, r, nil, refusal{http.StatusNotFound, "not a WebTransport session of vkm's", reasonBadRequest, 0})
		return
	}
	if !sameHost(r) {
		g.refuse(w, r, nil, refusal{http.StatusForbidden, "the session comes from another site's page", reasonBadRequest, 0})
		return
	}
	p, no := g.enter(sourceOf(r), kindWT)
	if no != nil {
		g.refuse(w, r, nil, *no)
		return
	}
	defer g.forget(p)
	if no := g.admit(p); no != nil {
		g.refuse(w, r, p, *no)
		return
	}
	s, err := g.wt.Upgrade(w, r)
	if err != nil {
		g.refused.Add(1)
		p.end(reasonBadRequest)
		g.log.Debug("web transport refused", "remote", r.RemoteAddr, "err", err)
		return
	}
	p.q = make(chan []byte, wsQueue)
	if !g.open(p) {
		s.CloseWithError(webtransport.SessionErrorCode(reasonShutdown), reasonShutdown.String())
		return
	}
	// A vkm page opens no stream: one that does is not a vkm page.
	go func() {
		if _, err := s.AcceptStream(p.ctx); err == nil {
			p.end(reasonProtocol)
		}
	}()
	go func() {
		if _, err := s.AcceptUniStream(p.ctx); err == nil {
			p.end(reasonProtocol)
		}
	}()
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		g.writeWT(p, s)
	}()
	p.end(g.readWT(p, s))
	<-wrote
	why := reason(p.why.Load())
	if g.ctx.Err() != nil {
		why = reasonShutdown
	}
	s.CloseWithError(webtransport.SessionErrorCode(why), why.String())
}

// readWT hands on a WebTransport peer's datagrams until its session ends,
// and says why it did.
func (g *Gateway) readWT(p *peer, s *webtransport.Session) reason {
	for {
		b, err := s.ReceiveDatagram(p.ctx)
		if err != nil {
			if p.ctx.Err() != nil {
				return reasonFailed // ended already, whose reason stands
			}
			return wtEnded(err)
		}
		if len(b) > transport.MaxDatagram {
			// No vkm client sends one: the page is told the largest.
			g.drops.Add(1)
			return reasonProtocol
		}
		g.deliver(p, b) // b is the peer's own: quic-go gives a fresh one
	}
}

// wtEnded says why a session's datagrams ended while its peer had not:
// the peer closed it (its close, or its connection's, or the session's
// stream cancelled as the library does on the peer's close), or
// something failed (the connection timed out).
func wtEnded(err error) reason {
	var se *webtransport.SessionError
	var ae *quic.ApplicationError
	var str *quic.StreamError
	switch {
	case errors.Is(err, io.EOF),
		errors.As(err, &se) && se.Remote,
		errors.As(err, &ae) && ae.Remote,
		errors.As(err, &str) && str.ErrorCode == webtransport.WTSessionGoneErrorCode:
		return reasonClientClosed
	}
	return reasonFailed
}

// writeWT sends a WebTransport peer's queue until the peer ends. A send
// can wait on the connection's own queue (QUIC's congestion window), so
// it is done here, not by WriteTo.
func (g *Gateway) writeWT(p *peer, s *webtransport.Session) {
	for {
		select {
		case <-p.ctx.Done():
			return
		case b := <-p.q:
			err := s.SendDatagram(b) // it copies b
			p.unsent.Add(-1)
			putDatagram(b)
			if err == nil {
				continue
			}
			// Declared here, where it is needed: errors.As takes its
			// address, which puts it on the heap, once a datagram if
			// it were declared for every send.
			var tooLarge *quic.DatagramTooLargeError
			if !errors.As(err, &tooLarge) {
				p.end(reasonFailed)
				return
			}
			// The path is narrower than this datagram for now: lost,
			// as on a UDP path of that width.
			g.drops.Add(1)
		}
	}
}

// datagrams holds the buffers a WebTransport peer's queue is given copies
// in: the connection copies again as it sends, so each goes back at once.
var datagrams = sync.Pool{New: func() any { return new([transport.MaxDatagram]byte) }}

// getDatagram returns a copy of b in a pooled buffer.
func getDatagram(b []byte) []byte {
	return append(datagrams.Get().(*[transport.MaxDatagram]byte)[:0], b...)
}

// putDatagram returns a buffer of getDatagram's to the pool.
func putDatagram(b []byte) {
	if cap(b) == transport.MaxDatagram {
		datagrams.Put((*[transport.MaxDatagram]byte)(b[:transport.MaxDatagram]))
	}
}

// sameHost reports whether a WebTransport session comes from a page of
// the host it is sent to, or from no page at all (no Origin: a native
// client). The page is served from the web listener's TCP port and the
// session goes to another (a UDP one), so the ports are not compared.
func sameHost(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.EqualFold(u.Hostname(), strings.Trim(host, "[]"))
}

// closeWT closes the WebTransport listener, once every peer has gone.
func (g *Gateway) closeWT() error {
	if g.wt == nil {
		return nil
	}
	// The server first, so each connection's close still goes out on the
	// open socket; then the listener, whose end ends the accepting
	// goroutine; then the socket.
	err := g.wt.Close()
	err = errors.Join(err, g.wtLn.Close())
	g.wtServing.Wait()
	return errors.Join(err, g.wtConn.Close())
}

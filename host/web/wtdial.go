package web

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"
)

// DialWT connects to the gateway at baseURL ("http://host:port") over a
// WebTransport session, as a page does: it reads the port and the
// certificate's hash from /vkm/webtransport, then opens the session on
// that UDP port of baseURL's host, taking the certificate by its hash.
func DialWT(ctx context.Context, baseURL string, opts DialOptions) (*Peer, error) {
	info, hash, err := getWTInfo(ctx, opts.HTTP, baseURL)
	if err != nil {
		return nil, err
	}
	b, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	target := "https://" + net.JoinHostPort(b.Hostname(), strconv.Itoa(info.Port)) + wtPath
	return dialWT(ctx, target, hash, nil)
}

// getWTInfo reads baseURL's /vkm/webtransport.
func getWTInfo(ctx context.Context, hc *http.Client, baseURL string) (WebTransportInfo, [32]byte, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	u := strings.TrimSuffix(baseURL, "/") + "/vkm/webtransport"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return WebTransportInfo{}, [32]byte{}, fmt.Errorf("web: %w", err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return WebTransportInfo{}, [32]byte{}, fmt.Errorf("web: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		return WebTransportInfo{}, [32]byte{}, fmt.Errorf("web: %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return WebTransportInfo{}, [32]byte{}, refusedBy(resp, body)
	}
	return ParseWebTransportInfo(body)
}

// wtTLS is a client's TLS for a WebTransport server whose certificate
// has hash: it is taken by its hash, as a browser takes a page's
// serverCertificateHashes.
func wtTLS(hash [32]byte) *tls.Config {
	return &tls.Config{
		NextProtos:         []string{http3.NextProtoH3},
		InsecureSkipVerify: true, // checked by VerifyConnection
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 || sha256.Sum256(cs.PeerCertificates[0].Raw) != hash {
				return errors.New("web: the WebTransport certificate is not the one whose hash the gateway gave")
			}
			return nil
		},
	}
}

// dialWT opens a session at target, an https URL, whose server's
// certificate has hash; hdr is the CONNECT request's headers (a test's
// Origin).
func dialWT(ctx context.Context, target string, hash [32]byte, hdr http.Header) (*Peer, error) {
	var sock wtDialSocket
	tr := &webtransport.Transport{
		TLSClientConfig: wtTLS(hash),
		QUICConfig:      &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true},
		DialAddr:        sock.dial,
	}
	resp, s, err := tr.Dial(ctx, target, hdr)
	if err != nil {
		tr.Close()
		sock.close()
		if resp != nil && (resp.StatusCode < 200 || resp.StatusCode > 299) {
			return nil, &RefusedError{Status: resp.StatusCode, Reason: "the WebTransport session was refused", RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"))}
		}
		return nil, fmt.Errorf("web: %w", err)
	}
	p := &Peer{in: make(chan []byte, peerDepth), done: make(chan struct{})}
	var closed atomic.Bool
	p.send = func(b []byte) error {
		if closed.Load() {
			return ErrClosed
		}
		// The client's sends are few and small; quic-go copies b.
		return s.SendDatagram(b)
	}
	var once sync.Once
	end := func() {
		once.Do(func() {
			closed.Store(true)
			s.CloseWithError(0, "")
			tr.Close()
			sock.close()
		})
	}
	p.stop = end
	go func() {
		defer close(p.in)
		defer close(p.done)
		defer end()
		for {
			b, err := s.ReceiveDatagram(context.Background())
			if err != nil {
				return
			}
			select {
			case p.in <- b:
			default:
			}
		}
	}()
	return p, nil
}

// wtDialSocket is a client's QUIC connection's own UDP socket, read and
// written by raw system calls as the gateway's port is (wtSocket): a
// session's datagrams then cost the client no wake-up of the runtime's
// monitor thread either.
type wtDialSocket struct {
	mu   sync.Mutex
	conn *net.UDPConn
	tr   *quic.Transport
	qc   *quic.Conn // the connection dialled, once it is
}

// dial is webtransport.Transport's DialAddr: it opens a socket of addr's
// family and dials addr from it.
func (d *wtDialSocket) dial(ctx context.Context, addr string, tlsConf *tls.Config, conf *quic.Config) (*quic.Conn, error) {
	to, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	network := "udp6"
	if to.IP.To4() != nil {
		network = "udp4"
	}
	c, err := net.ListenUDP(network, nil)
	if err != nil {
		return nil, err
	}
	tr := &quic.Transport{Conn: rawWTSocket(c)}
	d.mu.Lock()
	d.conn, d.tr = c, tr
	d.mu.Unlock()
	qc, err := tr.DialEarly(ctx, to, tlsConf, conf)
	if err == nil {
		d.mu.Lock()
		d.qc = qc
		d.mu.Unlock()
	}
	return qc, err
}

// close closes the connection, the transport and the socket dial opened,
// if it did. The connection is closed first, as the session's end closes
// it (on a goroutine of webtransport-go's own, so maybe not yet): that
// close writes the CONNECTION_CLOSE and whatever was queued before it
// (the session's close capsule) before it returns, where the transport's
// close would end the connection without a word, and the server would
// learn of the end only by its idle timeout.
func (d *wtDialSocket) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.qc != nil {
		d.qc.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "")
		d.qc = nil
	}
	if d.tr != nil {
		d.tr.Close()
		d.conn.Close()
		d.tr, d.conn = nil, nil
	}
}

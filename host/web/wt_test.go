package web

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/quic-go/webtransport-go"
)

// wtTarget is the URL of g's WebTransport sessions on 127.0.0.1, and its
// certificate's hash.
func wtTarget(t *testing.T, g *Gateway) (string, [32]byte) {
	t.Helper()
	h, err := g.CertificateHash()
	if err != nil {
		t.Fatal(err)
	}
	return "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(int(g.WebTransportAddr().Port()))) + wtPath, h
}

// rawWT opens a session to g as a page of origin would (none if empty),
// without the Peer around it, so a test can break the rules.
func rawWT(t *testing.T, g *Gateway, origin string) (*http.Response, *webtransport.Session, error) {
	t.Helper()
	target, hash := wtTarget(t, g)
	tr := &webtransport.Transport{TLSClientConfig: wtTLS(hash)}
	t.Cleanup(func() { tr.Close() })
	hdr := http.Header{}
	if origin != "" {
		hdr.Set("Origin", origin)
	}
	return tr.Dial(ctxFor(t), target, hdr)
}

func TestAPeerPlaysOverWebTransportAndIsForgottenOnClose(t *testing.T) {
	g, srv, forgotten, _ := start(t, Config{})
	p, err := DialWT(ctxFor(t), srv.URL, DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := roundTrip(t, g, p, kindWT)
	if st := g.Stats(); st.Connecting["webtransport"] != 1 || st.Peers["webtransport"] != 0 || st.DatagramsIn != 1 || st.DatagramsOut != 1 || st.BytesOut != 1200 {
		t.Errorf("stats %+v", st)
	}
	welcome(t, g, p, a)
	if st := g.Stats(); st.Connecting["webtransport"] != 0 || st.Peers["webtransport"] != 1 || st.Peers["webrtc"] != 0 || st.Admitted["webtransport"] != 1 {
		t.Errorf("stats once welcomed %+v", st)
	}
	// A match's worth of snapshots and commands, each way.
	for i := range 200 {
		b := bytes.Repeat([]byte{byte(i)}, 40+i)
		if err := g.WriteTo(b, a); err != nil {
			t.Fatal(err)
		}
		if got := peerReceive(t, p); !bytes.Equal(got, b) {
			t.Fatalf("snapshot %d: the peer got %d bytes, want %d", i, len(got), len(b))
		}
		if err := p.Send(b[:8]); err != nil {
			t.Fatal(err)
		}
		if d := receive(t, g); d.From != a || !bytes.Equal(d.Bytes, b[:8]) {
			t.Fatalf("command %d: the gateway got %x from %v", i, d.Bytes, d.From)
		}
	}
	p.Close()
	if why := forgets(t, g, forgotten, a); why != reasonClientClosed {
		t.Errorf("the peer that closed ended for %v", why)
	}
	if err := g.WriteTo([]byte("x"), a); !errors.Is(err, ErrNoPeer) {
		t.Errorf("writing to a forgotten peer: %v, want ErrNoPeer", err)
	}
	if st := g.Stats(); st.Peers["webtransport"] != 0 || st.Closed["client_closed"] != 1 {
		t.Errorf("stats after the only peer closed: %+v", st)
	}
}

// A session that sends a datagram over transport.MaxDatagram, or opens a
// stream, is closed for protocol, and the close tells it so.
func TestAWebTransportPeerBreakingTheRulesIsEnded(t *testing.T) {
	for _, c := range []struct {
		name   string
		break_ func(*webtransport.Session) error
	}{
		{"1201 bytes", func(s *webtransport.Session) error { return s.SendDatagram(make([]byte, 1201)) }},
		{"a stream", func(s *webtransport.Session) error {
			str, err := s.OpenStream()
			if err != nil {
				return err
			}
			_, err = str.Write([]byte("x"))
			return err
		}},
		{"a one-way stream", func(s *webtransport.Session) error {
			str, err := s.OpenUniStream()
			if err != nil {
				return err
			}
			_, err = str.Write([]byte("x"))
			return err
		}},
	} {
		g, _, forgotten, _ := start(t, Config{})
		_, s, err := rawWT(t, g, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SendDatagram([]byte("hello")); err != nil {
			t.Fatal(err)
		}
		a := receive(t, g).From
		// Opening a stream sends its header at once, so the gateway may
		// end the session before the write: a session error is the
		// outcome wanted, and is checked below.
		var early *webtransport.SessionError
		if err := c.break_(s); err != nil && !errors.As(err, &early) {
			t.Fatalf("%s: %v", c.name, err)
		}
		if why := forgets(t, g, forgotten, a); why != reasonProtocol {
			t.Errorf("%s: ended for %v", c.name, why)
		}
		select {
		case <-s.Context().Done():
		case <-time.After(testTimeout):
			t.Fatalf("%s: the session is still open", c.name)
		}
		var se *webtransport.SessionError
		_, err = s.AcceptStream(context.Background())
		if !errors.As(err, &se) || se.ErrorCode != webtransport.SessionErrorCode(reasonProtocol) || se.Message != "protocol" {
			t.Errorf("%s: the session closed with %v, want code %d \"protocol\"", c.name, err, reasonProtocol)
		}
		if st := g.Stats(); st.Closed["protocol"] != 1 {
			t.Errorf("%s: %+v", c.name, st)
		}
	}
}

// The door's rules hold for a session as for an offer: another site's
// page is refused, and so is a peer past MaxPeers.
func TestWebTransportSessionsPassTheDoor(t *testing.T) {
	g, srv, _, _ := start(t, Config{MaxPeers: 1})
	resp, _, err := rawWT(t, g, "http://example.com")
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a session from another site's page: %v, %v; want 403", resp, err)
	}
	resp, s, err := rawWT(t, g, srv.URL)
	if err != nil {
		t.Fatalf("a session from the gateway's own page: %v, %v", resp, err)
	}
	defer s.CloseWithError(0, "")
	_, err = DialWT(ctxFor(t), srv.URL, DialOptions{})
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Status != http.StatusServiceUnavailable || refused.RetryAfter != DefaultWelcomeTimeout {
		t.Fatalf("a session past MaxPeers: %v, want 503 with Retry-After", err)
	}
	if st := g.Stats(); st.Closed["full"] != 1 || st.Closed["bad_request"] != 1 || st.Refused != 2 {
		t.Errorf("stats %+v", st)
	}
}

// The certificate is one Chromium takes by its hash: ECDSA, valid for
// under 14 days from before now, and the hash served is its own.
func TestTheWebTransportCertificateIsOneABrowserTakesByItsHash(t *testing.T) {
	g, srv, _, clock := start(t, Config{})
	c, h, err := g.wtCert.current(clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.PrivateKey.(*ecdsa.PrivateKey); !ok {
		t.Errorf("the key is %T, want ECDSA", c.PrivateKey)
	}
	if life := c.Leaf.NotAfter.Sub(c.Leaf.NotBefore); life > 14*24*time.Hour {
		t.Errorf("valid for %v, over 14 days", life)
	}
	if now := clock.Now(); now.Before(c.Leaf.NotBefore) || now.After(c.Leaf.NotAfter) {
		t.Errorf("not valid now: %v to %v", c.Leaf.NotBefore, c.Leaf.NotAfter)
	}
	if sha256.Sum256(c.Leaf.Raw) != h {
		t.Error("the hash is not the certificate's")
	}
	resp, err := http.Get(srv.URL + "/vkm/webtransport")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	info, hash, err := ParseWebTransportInfo(body)
	if err != nil || hash != h || info.Port != int(g.WebTransportAddr().Port()) {
		t.Fatalf("GET /vkm/webtransport: %s (%v), want port %d hash %s", body, err, g.WebTransportAddr().Port(), base64.StdEncoding.EncodeToString(h[:]))
	}
	// Half its life on, a new one is made, and a session still connects.
	clock.Advance(wtCertRenew + time.Minute)
	c2, h2, err := g.wtCert.current(clock.Now())
	if err != nil || c2 == c || h2 == h {
		t.Fatalf("no new certificate past half its life: %v", err)
	}
	p, err := DialWT(ctxFor(t), srv.URL, DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
}

// A gateway without a WebTransport address has none, and says so.
func TestWebTransportIsOffWithoutAnAddress(t *testing.T) {
	g, err := newGateway(Config{}, newFakeClock())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	srv := newServer(g)
	defer srv.Close()
	if g.WebTransportAddr().IsValid() {
		t.Errorf("WebTransport at %v", g.WebTransportAddr())
	}
	_, err = DialWT(ctxFor(t), srv.URL, DialOptions{})
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Status != http.StatusNotFound {
		t.Errorf("dialling a gateway without WebTransport: %v, want 404", err)
	}
}

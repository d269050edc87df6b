//go:build !js

package browser

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"vkm/host/netio"
	"vkm/host/web"
)

// peerSocket is a client's socket to its server through the server's web
// listener: a WebTransport session, a WebRTC data channel, or the
// WebSocket fall-back.
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

// Dial connects a native client to the web listener at base, a URL: over
// its WebSocket fall-back for a ws:// or wss:// URL (as http:// or
// https://), over WebTransport for a wt:// URL (as http://), over WebRTC
// otherwise (host.PlayConfig.Web). A listener that
// does not answer yet is tried again, for at most webDialTimeout.
func Dial(ctx context.Context, base string) (netio.Socket, error) {
	ctx, cancel := context.WithTimeout(ctx, webDialTimeout)
	defer cancel()
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("browser: web URL %q: %w", base, err)
	}
	dialFn, target := web.Dial, base
	switch u.Scheme {
	case "ws", "wss":
		u.Scheme = "http" + strings.TrimPrefix(u.Scheme, "ws")
		dialFn, target = web.DialWS, u.String()
	case "wt":
		u.Scheme = "http"
		dialFn, target = web.DialWT, u.String()
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
			return nil, fmt.Errorf("browser: joining over the web at %s: %w", base, err)
		}
		retry.Reset(wait)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("browser: joining over the web at %s: %w", base, err)
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

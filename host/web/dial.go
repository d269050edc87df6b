package web

import "context"

// DialOptions tunes a native peer; the zero value is fine.
type DialOptions struct {
	// ICEAddr, if set, is the local UDP address for ICE; empty lets the
	// stack pick.
	ICEAddr string
}

// Peer is a native client's end of a gateway connection.
type Peer struct {
	in chan []byte
}

// Dial connects to the gateway at baseURL ("http://host:port") over a
// WebRTC data channel, as a browser does.
func Dial(ctx context.Context, baseURL string, opts DialOptions) (*Peer, error) {
	return nil, ErrClosed
}

// DialWS connects to the gateway at baseURL over its WebSocket fall-back.
func DialWS(ctx context.Context, baseURL string, opts DialOptions) (*Peer, error) {
	return nil, ErrClosed
}

// Send sends b as one datagram.
func (p *Peer) Send(b []byte) error { return ErrClosed }

// Incoming delivers the gateway's datagrams; it closes with the
// connection.
func (p *Peer) Incoming() <-chan []byte { return p.in }

// Close ends the connection.
func (p *Peer) Close() error { return nil }

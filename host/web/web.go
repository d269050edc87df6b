// Package web carries vkm's datagrams to and from browsers: over WebRTC
// data channels, and over WebSocket where WebRTC cannot connect. Nothing
// above it changes: a browser's datagrams are the same handshake, tokens
// and sealed packets a UDP client sends, and the serving loop sees each
// browser as one more peer address.
package web

import (
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
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
	// Public are the addresses announced to browsers besides the local
	// ones (a host behind a 1:1 NAT); optional.
	Public []netip.Addr
	// MaxPeers bounds the peers connected at once, over WebRTC and
	// WebSocket together; 0 means DefaultMaxPeers.
	MaxPeers int
	// OffersPerIPPerSecond bounds the offers (and WebSocket upgrades) one
	// source IP may make; 0 means DefaultOffersPerIPPerSecond.
	OffersPerIPPerSecond int
	Logger               *slog.Logger
}

// Defaults for the zero Config.
const (
	DefaultMaxPeers             = 256
	DefaultOffersPerIPPerSecond = 2
)

// Stats counts what a Gateway has carried since it started.
type Stats struct {
	PeersRTC, PeersWS         int
	DatagramsIn, DatagramsOut uint64
	BytesIn, BytesOut         uint64
	// Drops are datagrams lost at the gateway: too large, the reader too
	// far behind, a peer's channel not open.
	Drops uint64
	// Refused are offers and upgrades turned away (malformed, over a
	// limit, refused by the peer connection).
	Refused uint64
}

// Gateway serves the signalling endpoints and carries every peer's
// datagrams.
type Gateway struct {
	in chan Datagram
}

// ErrClosed is returned by a closed Gateway or Peer.
var ErrClosed = errors.New("web: closed")

// NewGateway opens the ICE port and returns a gateway ready to serve.
func NewGateway(cfg Config) (*Gateway, error) {
	return &Gateway{in: make(chan Datagram, 256)}, nil
}

// Handler serves POST /vkm/offer and GET /vkm/ws; anything else is 404.
func (g *Gateway) Handler() http.Handler { return http.NotFoundHandler() }

// Incoming delivers every peer's datagrams; it closes once the gateway
// has.
func (g *Gateway) Incoming() <-chan Datagram { return g.in }

// WriteTo sends b to the peer at to, as one message.
func (g *Gateway) WriteTo(b []byte, to netip.AddrPort) error { return ErrClosed }

// Owns reports whether a is one of this gateway's peers.
func (g *Gateway) Owns(a netip.AddrPort) bool { return false }

// Stats returns the gateway's counts so far.
func (g *Gateway) Stats() Stats { return Stats{} }

// Close drops every peer and closes the ICE port and Incoming.
func (g *Gateway) Close() error { return nil }

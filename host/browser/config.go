package browser

import (
	"context"
	"log/slog"
	"net"
	"net/netip"

	"vkm/host/project"
)

// ListenConfig says where a server's web listener listens and what it
// serves.
type ListenConfig struct {
	// Addr is the TCP address ("host:port") it listens on; its ICE port
	// is the same host and port number, over UDP (another when that is
	// taken and the port was left to the system).
	Addr string
	// WebTransport also listens for WebTransport sessions (HTTP/3) over
	// UDP on the next port number, or on any free one when that is taken;
	// the page learns which from /vkm/webtransport. Without it, that
	// answers 404 and the page uses WebRTC.
	WebTransport bool
	// Public are the addresses players reach the server at, whose IP
	// addresses the ICE candidates name (host.ServeConfig.Public).
	Public []netip.AddrPort
	// Ready, if set, is called with the address it listens on.
	Ready func(net.Addr)
	// Page is the browser client's page, served beside the gateway.
	Page   PageConfig
	Logger *slog.Logger
}

// PageConfig says what the browser client's page serves.
type PageConfig struct {
	Project *project.Project
	// Dev tells the page the server is a development server.
	Dev bool
	// WebClient is host.ServeConfig.WebClient: the browser client's
	// WebAssembly file, or empty to build it from the module's source.
	WebClient string
	// Logger hears of the client's build; nil logs nothing.
	Logger *slog.Logger
	// LAN, if set, searches the server's network for games (host.SearchLAN)
	// for the page's "Search LAN" list, served at /vkm/lan to browsers on
	// loopback and private addresses: a page cannot broadcast itself.
	LAN func(ctx context.Context) ([]LANGame, error)
	// WebTransportPort, if set, is the UDP port of the gateway's
	// WebTransport sessions, on the page's host: the page's security
	// policy lets it connect there.
	WebTransportPort int
}

// LANGame is one game a LAN search found, as /vkm/lan lists it.
type LANGame struct {
	Addr    string `json:"addr"`
	Project string `json:"project"`
	Players int    `json:"players"`
	Seats   int    `json:"seats"`
	Key     bool   `json:"key"`
}

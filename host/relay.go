//go:build !js

package host

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"

	"vkm/host/netio"
	"vkm/host/relayd"
	"vkm/transport/relay"
)

// relayAddr is a relay's address with relayd.DefaultPort when it names
// no port.
func relayAddr(addr string) string { return withPort(addr, relayd.DefaultPort) }

// serveRelay registers the server behind sock with cfg.Relay under a key
// pair drawn for the run, logs its join code and tells cfg.JoinCode, and
// returns the socket that carries the relayed players too, with the
// address a token names the server by through the relay.
func serveRelay(ctx context.Context, cfg ServeConfig, sock netio.Socket, log *slog.Logger) (netio.Socket, netip.AddrPort, error) {
	at := relayAddr(cfg.Relay)
	_, p, err := net.SplitHostPort(at)
	if err != nil {
		return nil, netip.AddrPort{}, fmt.Errorf("host: --relay %q: %w", cfg.Relay, err)
	}
	port, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return nil, netip.AddrPort{}, fmt.Errorf("host: --relay %q: a port of %q", cfg.Relay, p)
	}
	key, err := relay.NewKey(rand.Reader)
	if err != nil {
		return nil, netip.AddrPort{}, err
	}
	announce := func(c relay.Code) {
		text := c.String() + "@" + at
		log.Info("join code: players join with client --connect "+text, "code", text, "relay", at)
		if cfg.JoinCode != nil {
			cfg.JoinCode(text)
		}
	}
	rs, code, err := netio.ListenRelay(ctx, cfg.Net, sock, at, key, func(c relay.Code) {
		log.Warn("the relay gave a new join code: the old one no longer works", "code", c.String())
		announce(c)
	})
	if err != nil {
		return nil, netip.AddrPort{}, fmt.Errorf("host: %w", err)
	}
	announce(code)
	if cfg.Key == nil {
		log.Warn("no key: anyone given the join code can join (the relay cannot read the game, but checks no one); give --key FILE to admit players with connect tokens only")
	}
	return rs, relay.TokenAddr(code, uint16(port)), nil
}

// joinCode reads a client's Connect as "CODE@RELAY": the code and the
// relay's address (with its default port), and ok false for an ordinary
// address.
func joinCode(connect string) (relay.Code, string, bool, error) {
	c, at, ok, err := relay.SplitJoin(connect)
	if !ok || err != nil {
		return 0, "", ok, err
	}
	return c, relayAddr(at), true, nil
}

// tokenServer is the address a token names the server at addr by: its
// own, or, for "CODE@RELAY", relay.TokenAddr of the code and the relay's
// port.
func tokenServer(n *netio.Loopback, addr string) (netip.AddrPort, error) {
	code, at, ok, err := joinCode(addr)
	if err != nil || !ok {
		if err == nil {
			return resolveServer(n, addr)
		}
		return netip.AddrPort{}, err
	}
	r, err := resolveServer(n, at)
	if err != nil {
		return netip.AddrPort{}, err
	}
	return relay.TokenAddr(code, r.Port()), nil
}

// relayedAddr is Connect written canonically when it is "CODE@RELAY"
// ("K7M-Q2P@relay:27900"), and ok false otherwise.
func relayedAddr(connect string) (string, bool) {
	code, at, ok, err := joinCode(connect)
	if !ok || err != nil {
		return "", false
	}
	return code.String() + "@" + at, true
}

// dialRelayed joins addr through its relay when it is "CODE@RELAY"
// (ok true, with the socket or why not); ok is false for an ordinary
// address.
func dialRelayed(ctx context.Context, n *netio.Loopback, addr string) (netio.Socket, bool, error) {
	code, at, ok, err := joinCode(addr)
	if !ok || err != nil {
		return nil, ok, err
	}
	sock, err := netio.DialRelay(ctx, n, at, code)
	return sock, true, err
}

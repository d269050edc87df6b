package host

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"strings"

	"vkm/host/netio"
)

// errRelayInBrowser: a page sends no plain UDP, which is all a relay
// speaks (docs/protocol.md, "Join codes and the relay").
var errRelayInBrowser = errors.New("host: a browser cannot join through a relay: a page sends no UDP; play the server through its web listener")

// serveRelay fails in a browser build.
func serveRelay(context.Context, ServeConfig, netio.Socket, *slog.Logger) (netio.Socket, netip.AddrPort, error) {
	return nil, netip.AddrPort{}, errRelayInBrowser
}

// relayedAddr takes no join code in a browser build.
func relayedAddr(string) (string, bool) { return "", false }

// dialRelayed refuses a join code in a browser build.
func dialRelayed(_ context.Context, _ *netio.Loopback, addr string) (netio.Socket, bool, error) {
	if strings.Contains(addr, "@") {
		return nil, true, errRelayInBrowser
	}
	return nil, false, nil
}

// tokenServer is the server's own address in a browser build.
func tokenServer(n *netio.Loopback, addr string) (netip.AddrPort, error) {
	return resolveServer(n, addr)
}

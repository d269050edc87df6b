//go:build js

package host

import (
	"context"
	"errors"
	"log/slog"

	"vkm/host/netio"
)

// In a browser the client's link is the page's (PlayInPage), and there is
// no server to serve browsers from: the web gateway (host/web, pion's
// WebRTC for servers) is not built for js/wasm.

var errNoWebHere = errors.New("host: the web listener and web dialling are not available in a browser build")

func listenWeb(ServeConfig, netio.Socket, *slog.Logger) (netio.Socket, error) {
	return nil, errNoWebHere
}

func dialWeb(context.Context, string) (netio.Socket, error) { return nil, errNoWebHere }

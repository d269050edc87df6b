//go:build js

package browser

import (
	"context"
	"errors"

	"vkm/host/game"
	"vkm/host/netio"
)

// In a browser the client's link is the page's (NewPageSocket), and there
// is no server to serve browsers from: the web gateway (host/web, pion's
// WebRTC for servers), the page's HTTP server (page.go, host/view's
// Server) and a view's page of its own are not built for js/wasm, which
// keeps net/http out of the browser client's download.

var errNoWebHere = errors.New("browser: the web listener and web dialling are not available in a browser build")

// Listen fails in a browser build.
func Listen(ListenConfig, netio.Socket) (netio.Socket, error) { return nil, errNoWebHere }

// StartViewer fails in a browser build: the page the client runs in is its
// view (NewPageViewer).
func StartViewer(context.Context, string, *game.Game, ViewerConfig) (*Viewer, error) {
	return nil, errNoWebHere
}

// Dial fails in a browser build.
func Dial(context.Context, string) (netio.Socket, error) { return nil, errNoWebHere }

//go:build js

package browser

import (
	"context"
	"errors"

	"vkm/host/netio"
)

// In a browser the client's link is the page's (NewPageSocket), and there
// is no server to serve browsers from: the web gateway (host/web, pion's
// WebRTC for servers) is not built for js/wasm.

var errNoWebHere = errors.New("browser: the web listener and web dialling are not available in a browser build")

// Listen fails in a browser build.
func Listen(ListenConfig, netio.Socket) (netio.Socket, error) { return nil, errNoWebHere }

// Dial fails in a browser build.
func Dial(context.Context, string) (netio.Socket, error) { return nil, errNoWebHere }

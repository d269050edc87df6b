//go:build js

package host

import (
	"errors"
	"time"

	"vkm/host/figures"
	"vkm/host/session"
	"vkm/transport"
)

// In a browser there is no server to administer: the admin listener
// (host/admin: Prometheus's client, pprof, an HTTP server) is not built for
// js/wasm, which keeps it out of the browser client's download.

var errNoAdminHere = errors.New("host: the admin listener is not available in a browser build")

// adminFeed is the admin listener's feed; a browser build never has one.
type adminFeed struct{ a noAdmin }

// noAdmin takes what the serving loop hands an admin listener, and drops it.
type noAdmin struct{}

func (noAdmin) ObserveTick(time.Duration) {}
func (noAdmin) ObserveSend(time.Duration) {}
func (noAdmin) Closing()                  {}
func (noAdmin) Update(*figures.Values)    {}

// startAdmin fails in a browser build.
func startAdmin(ServeConfig, *session.Server, *figures.Set, chan<- command) (*adminFeed, error) {
	return nil, errNoAdminHere
}

func (f *adminFeed) close() error                  { return nil }
func (f *adminFeed) wake(now time.Time, ticks int) {}
func (f *adminFeed) observePlayers(transport.Time) {}

//go:build !js

package browser

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// lanEvery is how often /vkm/lan searches at most: requests within it get
// the last search's list, so no page can make the server broadcast
// faster.
const lanEvery = 2 * time.Second

// lanWait bounds one search.
const lanWait = time.Second

// lanList answers GET /vkm/lan with the games a LAN search finds, as
// JSON: {"games": [{"addr", "project", "players", "seats", "key"}]}.
type lanList struct {
	search func(context.Context) ([]LANGame, error)
	log    *slog.Logger

	mu    sync.Mutex
	at    time.Time
	games []LANGame
}

func newLANList(search func(context.Context) ([]LANGame, error), log *slog.Logger) *lanList {
	return &lanList{search: search, log: log}
}

// nearby reports whether a request came from this machine or a private
// network: the list says what is on the server's network, which is no
// one else's business.
func nearby(remote string) bool {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		return false
	}
	a := ap.Addr().Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast()
}

func (l *lanList) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !nearby(r.RemoteAddr) {
		http.Error(w, "vkm: the LAN list is for browsers on the server's network", http.StatusForbidden)
		return
	}
	l.mu.Lock() // one search at a time; the others wait for its list
	if time.Since(l.at) >= lanEvery {
		ctx, cancel := context.WithTimeout(r.Context(), lanWait+time.Second)
		games, err := l.search(ctx)
		cancel()
		if err != nil {
			l.log.Warn("a LAN search for the page failed", "err", err)
		}
		l.at, l.games = time.Now(), games
	}
	games := l.games
	l.mu.Unlock()
	if games == nil {
		games = []LANGame{}
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(struct {
		Games []LANGame `json:"games"`
	}{games})
}

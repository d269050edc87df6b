// Package agonestest is a stand-in for the Agones SDK server's HTTP API,
// for tests: it is not Agones, and no part of it comes from Agones. It was
// written from Agones' documentation of that API (the REST Game Server
// Client API, https://agones.dev/site/docs/guides/client-sdks/rest/, and
// its OpenAPI files sdks/swagger/sdk.swagger.json and alpha.swagger.json):
// the paths, methods and bodies those give, a GameServer whose state the
// calls move as the SDK documentation says, a watch stream of one JSON
// line per change, and player tracking. It records every call with its
// time, and lets a test play Agones' part (Allocate, as a
// GameServerAllocation would; Refuse, as an SDK server not yet up would).
//
// What it does not do, since a test of the game server needs none of it:
// Kubernetes (no pod is stopped on Shutdown, no health check marks the
// GameServer Unhealthy), the RequestReady step (Ready is Ready at once),
// Reserve's timer, counters and lists, and the WebSocket form of the
// watch.
package agonestest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Call is one call the stand-in answered: its path and when.
type Call struct {
	Path string
	At   time.Time
	// Body is the request's body as sent.
	Body string
}

// SDK is a stand-in SDK server, listening on the test's loopback until
// the test ends. Its methods are safe for concurrent use.
type SDK struct {
	// URL is its base URL (http://127.0.0.1:PORT).
	URL string

	srv *httptest.Server

	mu       sync.Mutex
	name     string
	state    string
	address  string
	ports    []port
	labels   map[string]string
	annots   map[string]string
	capacity int64
	players  []string
	tracking bool
	calls    []Call
	refuse   map[string]int // path: answers of 503 still to give
	watchers map[chan []byte]bool
	changed  chan struct{}
}

type port struct {
	Name string `json:"name"`
	Port int    `json:"port"`
}

// New starts a stand-in SDK server for a GameServer in state Scheduled at
// address with one port, named "game", at gamePort; player tracking is on.
func New(t testing.TB, address string, gamePort int) *SDK {
	s := &SDK{name: "vkmd-arena-x7k2p", state: "Scheduled", address: address, ports: []port{{"game", gamePort}},
		labels: map[string]string{}, annots: map[string]string{}, tracking: true,
		refuse: map[string]int{}, watchers: map[chan []byte]bool{}, changed: make(chan struct{})}
	s.srv = httptest.NewServer(s.handler())
	s.URL = s.srv.URL
	t.Cleanup(func() {
		s.mu.Lock()
		for w := range s.watchers {
			close(w)
			delete(s.watchers, w)
		}
		s.mu.Unlock()
		s.srv.Close()
	})
	return s
}

// Port is the port the stand-in listens on, as AGONES_SDK_HTTP_PORT would
// give it.
func (s *SDK) Port() string {
	return s.srv.Listener.Addr().String()[len("127.0.0.1:"):]
}

// SetTracking turns player tracking (the PlayerTracking feature gate) on
// or off: off, its calls answer an error, as the SDK server's do.
func (s *SDK) SetTracking(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tracking = on
}

// Refuse makes the next n calls of path answer 503.
func (s *SDK) Refuse(path string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse[path] = n
}

// Allocate plays Agones' allocator: a Ready GameServer becomes Allocated
// (a GameServerAllocation picks only Ready ones); it reports whether it
// did.
func (s *SDK) Allocate() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != "Ready" {
		return false
	}
	s.setStateLocked("Allocated")
	return true
}

// State is the GameServer's state now.
func (s *SDK) State() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// Labels and Annotations are the GameServer's, keys with their prefix.
func (s *SDK) Labels() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return clone(s.labels)
}

// Annotations are the GameServer's annotations.
func (s *SDK) Annotations() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return clone(s.annots)
}

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Players are the ids of the connected players, and Capacity the
// capacity set.
func (s *SDK) Players() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.players)
}

// Capacity is the player capacity set.
func (s *SDK) Capacity() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.capacity
}

// Calls are the calls answered (503s included) to path, or to every path
// when path is "".
func (s *SDK) Calls(path string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if path == "" || c.Path == path {
			out = append(out, c)
		}
	}
	return out
}

// Changed returns a channel closed at the next call or change of state,
// for a test that waits for one.
func (s *SDK) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

func (s *SDK) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// setStateLocked moves the GameServer to state and sends it to every
// watcher.
func (s *SDK) setStateLocked(state string) {
	s.state = state
	s.broadcastLocked()
}

func (s *SDK) broadcastLocked() {
	line, _ := json.Marshal(map[string]any{"result": s.gameServerLocked()})
	line = append(line, '\n')
	for w := range s.watchers {
		select {
		case w <- line:
		default: // a watcher that does not read loses the change
		}
	}
	s.notifyLocked()
}

// gameServerLocked is the GameServer as the SDK server's JSON gives it.
func (s *SDK) gameServerLocked() map[string]any {
	ids := s.players
	if ids == nil {
		ids = []string{}
	}
	return map[string]any{
		"object_meta": map[string]any{"name": s.name, "namespace": "default", "uid": "1234", "resource_version": "1",
			"generation": "1", "creation_timestamp": "1764979200", "labels": s.labels, "annotations": s.annots},
		"status": map[string]any{"state": s.state, "address": s.address, "ports": s.ports,
			"players": map[string]any{"count": strconv.Itoa(len(s.players)), "capacity": strconv.FormatInt(s.capacity, 10), "ids": ids}},
	}
}

func (s *SDK) handler() http.Handler {
	mux := http.NewServeMux()
	state := func(to string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if to != "" && s.state != "Shutdown" {
				s.setStateLocked(to)
			}
			writeJSON(w, struct{}{})
		}
	}
	mux.Handle("POST /ready", s.record(state("Ready")))
	mux.Handle("POST /allocate", s.record(state("Allocated")))
	mux.Handle("POST /shutdown", s.record(state("Shutdown")))
	mux.Handle("POST /health", s.record(state("")))
	mux.Handle("GET /gameserver", s.record(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		writeJSON(w, s.gameServerLocked())
	}))
	mux.Handle("GET /watch/gameserver", s.record(s.watch))
	meta := func(m func() map[string]string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var kv struct{ Key, Value string }
			if json.Unmarshal([]byte(bodyOf(r)), &kv) != nil || kv.Key == "" {
				http.Error(w, `{"error":"bad key value"}`, http.StatusBadRequest)
				return
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			m()["agones.dev/sdk-"+kv.Key] = kv.Value
			s.broadcastLocked()
			writeJSON(w, struct{}{})
		}
	}
	mux.Handle("PUT /metadata/label", s.record(meta(func() map[string]string { return s.labels })))
	mux.Handle("PUT /metadata/annotation", s.record(meta(func() map[string]string { return s.annots })))
	mux.Handle("PUT /alpha/player/capacity", s.record(s.tracked(func(w http.ResponseWriter, r *http.Request) {
		var c struct {
			Count json.Number `json:"count"`
		}
		if json.Unmarshal([]byte(bodyOf(r)), &c) != nil {
			http.Error(w, `{"error":"bad count"}`, http.StatusBadRequest)
			return
		}
		n, err := c.Count.Int64()
		if err != nil {
			http.Error(w, `{"error":"bad count"}`, http.StatusBadRequest)
			return
		}
		s.capacity = n
		writeJSON(w, struct{}{})
	})))
	player := func(connect bool) http.HandlerFunc {
		return s.tracked(func(w http.ResponseWriter, r *http.Request) {
			var p struct {
				PlayerID string `json:"playerID"`
			}
			if json.Unmarshal([]byte(bodyOf(r)), &p) != nil || p.PlayerID == "" {
				http.Error(w, `{"error":"bad player id"}`, http.StatusBadRequest)
				return
			}
			i := slices.Index(s.players, p.PlayerID)
			switch {
			case connect && i < 0 && int64(len(s.players)) >= s.capacity:
				http.Error(w, `{"error":"players are already at capacity"}`, http.StatusInternalServerError)
				return
			case connect && i < 0:
				s.players = append(s.players, p.PlayerID)
			case !connect && i >= 0:
				s.players = slices.Delete(s.players, i, i+1)
			}
			writeJSON(w, map[string]bool{"bool": connect == (i < 0)})
		})
	}
	mux.Handle("POST /alpha/player/connect", s.record(player(true)))
	mux.Handle("POST /alpha/player/disconnect", s.record(player(false)))
	mux.Handle("GET /alpha/player/count", s.record(s.tracked(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]string{"count": strconv.Itoa(len(s.players))})
	})))
	return mux
}

// tracked serves a player tracking call under the lock, or an error when
// tracking is off.
func (s *SDK) tracked(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.tracking {
			http.Error(w, `{"error":"PlayerTracking is not enabled"}`, http.StatusInternalServerError)
			return
		}
		h(w, r)
	}
}

// bodyKey is where record keeps a request's body for its handler.
type bodyKey struct{}

func bodyOf(r *http.Request) string {
	b, _ := r.Context().Value(bodyKey{}).(string)
	return b
}

// record notes each call, answers 503 while the test refuses its path,
// and serves the rest with h.
func (s *SDK) record(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		s.mu.Lock()
		s.calls = append(s.calls, Call{Path: r.URL.Path, At: time.Now(), Body: string(b)})
		refused := s.refuse[r.URL.Path] > 0
		if refused {
			s.refuse[r.URL.Path]--
		}
		s.notifyLocked()
		s.mu.Unlock()
		if refused {
			http.Error(w, `{"error":"the SDK server is not ready"}`, http.StatusServiceUnavailable)
			return
		}
		r = r.WithContext(contextWith(r, string(b)))
		h(w, r)
	})
}

// watch streams the GameServer: now, and after each change.
func (s *SDK) watch(w http.ResponseWriter, r *http.Request) {
	f, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "no streaming", http.StatusInternalServerError)
		return
	}
	ch := make(chan []byte, 16)
	s.mu.Lock()
	s.watchers[ch] = true
	first, _ := json.Marshal(map[string]any{"result": s.gameServerLocked()})
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.watchers[ch] {
			delete(s.watchers, ch)
		}
		s.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, "%s\n", first)
	f.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case line, ok := <-ch:
			if !ok {
				return
			}
			w.Write(line)
			f.Flush()
		}
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func contextWith(r *http.Request, body string) context.Context {
	return context.WithValue(r.Context(), bodyKey{}, body)
}

package agones

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// PortEnv is the environment variable Agones sets in a game server's
// container to the SDK server's HTTP port; DefaultPort is the port when it
// is not set.
const (
	PortEnv     = "AGONES_SDK_HTTP_PORT"
	DefaultPort = 9358
)

// Address is the SDK server's base URL as the environment gives it:
// http://localhost:$AGONES_SDK_HTTP_PORT, 9358 when unset.
func Address() (string, error) {
	port := strconv.Itoa(DefaultPort)
	if v := os.Getenv(PortEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > 65535 {
			return "", fmt.Errorf("agones: %s=%q is not a port", PortEnv, v)
		}
		port = v
	}
	return "http://localhost:" + port, nil
}

// Client calls an SDK server's HTTP API at Base.
type Client struct {
	Base string
	HTTP *http.Client
}

// callTimeout bounds one call: the SDK server is on the pod's loopback.
const callTimeout = 5 * time.Second

// NewClient returns a client of the SDK server at base
// (http://localhost:9358).
func NewClient(base string) *Client { return &Client{Base: base, HTTP: &http.Client{}} }

// Do makes call. An answer with an error status is a *StatusError.
func (c *Client) Do(ctx context.Context, call Call) error {
	method, path, body := http.MethodPost, "", any(struct{}{})
	switch call.Kind {
	case Ready:
		path = "/ready"
	case Health:
		path = "/health"
	case Allocate:
		path = "/allocate"
	case Shutdown:
		path = "/shutdown"
	case SetLabel, SetAnnotation:
		method, path = http.MethodPut, "/metadata/label"
		if call.Kind == SetAnnotation {
			path = "/metadata/annotation"
		}
		body = map[string]string{"key": call.Key, "value": call.Value}
	case SetCapacity:
		method, path = http.MethodPut, "/alpha/player/capacity"
		body = map[string]string{"count": strconv.Itoa(call.Count)} // int64 is a string in proto3's JSON
	case PlayerConnect, PlayerDisconnect:
		path = "/alpha/player/connect"
		if call.Kind == PlayerDisconnect {
			path = "/alpha/player/disconnect"
		}
		body = map[string]string{"playerID": call.Player}
	default:
		return fmt.Errorf("agones: no call %v", call.Kind)
	}
	b, _ := json.Marshal(body)
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("agones: %s: %w", path, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return &StatusError{Code: resp.StatusCode, Body: string(bytes.TrimSpace(answer))}
	}
	return nil
}

// Info is what the SDK server tells of the GameServer
// (GET /gameserver, and each line of GET /watch/gameserver).
type Info struct {
	ObjectMeta struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"object_meta"`
	Status struct {
		State   string `json:"state"`
		Address string `json:"address"`
		Ports   []Port `json:"ports"`
	} `json:"status"`
}

// Port is one of a GameServer's ports as its status gives it: the port
// players reach on the node's address.
type Port struct {
	Name string `json:"name"`
	Port int    `json:"port"`
}

// Public is the address players reach the server at: the GameServer's
// address and its port named name, or, when name is empty or no port is
// named so, its only port. An address that is a host name is looked up.
func (g Info) Public(ctx context.Context, name string) (netip.AddrPort, error) {
	if g.Status.Address == "" || len(g.Status.Ports) == 0 {
		return netip.AddrPort{}, fmt.Errorf("agones: the GameServer %s has no address or port yet (state %q)", g.ObjectMeta.Name, g.Status.State)
	}
	port, found := 0, false
	var names []string
	for _, p := range g.Status.Ports {
		names = append(names, p.Name)
		if p.Name == name {
			port, found = p.Port, true
		}
	}
	if !found {
		if len(g.Status.Ports) != 1 {
			return netip.AddrPort{}, fmt.Errorf("agones: the GameServer %s has no port named %q (it has %v)", g.ObjectMeta.Name, name, names)
		}
		port = g.Status.Ports[0].Port
	}
	if port <= 0 || port > 65535 {
		return netip.AddrPort{}, fmt.Errorf("agones: the GameServer %s's port %d is not a port", g.ObjectMeta.Name, port)
	}
	addr, err := netip.ParseAddr(g.Status.Address)
	if err != nil {
		ips, lerr := net.DefaultResolver.LookupNetIP(ctx, "ip", g.Status.Address)
		if lerr != nil || len(ips) == 0 {
			return netip.AddrPort{}, fmt.Errorf("agones: the GameServer's address %q: %v", g.Status.Address, lerr)
		}
		addr = ips[0]
	}
	return netip.AddrPortFrom(addr.Unmap(), uint16(port)), nil
}

// GameServer asks the SDK server for the GameServer.
func (c *Client) GameServer(ctx context.Context) (Info, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var g Info
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Base+"/gameserver", nil)
	if err != nil {
		return g, err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return g, fmt.Errorf("agones: /gameserver: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return g, &StatusError{Code: resp.StatusCode, Body: string(bytes.TrimSpace(b))}
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxInfo)).Decode(&g); err != nil {
		return g, fmt.Errorf("agones: /gameserver: %v", err)
	}
	return g, nil
}

// maxInfo bounds one GameServer's description.
const maxInfo = 1 << 20

// WaitGameServer asks for the GameServer until the SDK server answers
// with one that has an address and a port, or ctx ends, backing off from
// 100 ms to 2 s: the SDK server may start after the game server.
func (c *Client) WaitGameServer(ctx context.Context) (Info, error) {
	wait := minBackoff
	for {
		g, err := c.GameServer(ctx)
		if err == nil && g.Status.Address != "" && len(g.Status.Ports) > 0 {
			return g, nil
		}
		if err == nil {
			err = fmt.Errorf("agones: the GameServer has no address or port yet (state %q)", g.Status.State)
		}
		select {
		case <-ctx.Done():
			return g, fmt.Errorf("%v (gave up: %v)", err, context.Cause(ctx))
		case <-time.After(wait):
		}
		wait = min(2*wait, maxBackoff)
	}
}

// Watch reads GET /watch/gameserver, a line of JSON for each change of
// the GameServer ({"result": GameServer}), handing each to fn until the
// stream ends or ctx does.
func (c *Client) Watch(ctx context.Context, fn func(Info)) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Base+"/watch/gameserver", nil)
	if err != nil {
		return err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("agones: /watch/gameserver: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &StatusError{Code: resp.StatusCode}
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), maxInfo)
	for sc.Scan() {
		g, ok, err := parseWatchLine(sc.Bytes())
		if err != nil {
			return err
		}
		if ok {
			fn(g)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("agones: /watch/gameserver: %w", err)
	}
	return io.EOF
}

// parseWatchLine reads one line of the watch stream: {"result":
// GameServer}, or {"error": ...} (ok false), or an empty line (ok false).
func parseWatchLine(b []byte) (g Info, ok bool, err error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return g, false, nil
	}
	var line struct {
		Result *Info           `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(b, &line); err != nil {
		return g, false, fmt.Errorf("agones: /watch/gameserver: %v", err)
	}
	if line.Result == nil {
		return g, false, nil
	}
	return *line.Result, true, nil
}

// Link runs a Core against an SDK server: it makes the Core's calls one
// after another and watches the GameServer for it, from goroutines of its
// own, until Stop. Its methods are safe for concurrent use; Beat is cheap
// enough for every tick of a serving loop.
type Link struct {
	client *Client
	log    *slog.Logger

	mu   sync.Mutex
	core *Core

	beat     atomic.Bool // the loop ran since the Core was last told
	awaiting atomic.Bool // the Core waits for a beat to ping
	wake     chan struct{}
	idle     chan struct{} // signalled after each call, for Stop

	cancel context.CancelFunc
	done   sync.WaitGroup
}

// Start runs core against client until Stop.
func Start(client *Client, core *Core, logger *slog.Logger) *Link {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &Link{client: client, log: logger, core: core, wake: make(chan struct{}, 1), idle: make(chan struct{}, 1), cancel: cancel}
	l.done.Add(2)
	go l.run(ctx)
	go l.watch(ctx)
	return l
}

// with runs fn on the Core under the lock, and wakes the caller goroutine.
func (l *Link) with(fn func(c *Core, now time.Time)) {
	l.mu.Lock()
	fn(l.core, time.Now())
	l.mu.Unlock()
	l.poke()
}

func (l *Link) poke() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Beat says the serving loop ran. It takes no lock, and wakes the Link
// only when a Health ping waits for it.
func (l *Link) Beat() {
	if !l.beat.Swap(true) && l.awaiting.Load() {
		l.poke()
	}
}

// Serving says the server listens.
func (l *Link) Serving() { l.with(func(c *Core, now time.Time) { c.Serving(now) }) }

// Draining says the server has begun to drain.
func (l *Link) Draining() { l.with(func(c *Core, now time.Time) { c.Draining(now) }) }

// Roster says which players are seated, by id.
func (l *Link) Roster(ids []string) {
	l.with(func(c *Core, now time.Time) { c.Roster(now, ids) })
}

// Read runs fn on the Core under the Link's lock (for figures).
func (l *Link) Read(fn func(c *Core)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fn(l.core)
}

// Stop says the server stopped, waits up to timeout for the Shutdown call
// to land, and ends the Link's goroutines.
func (l *Link) Stop(timeout time.Duration) {
	l.with(func(c *Core, now time.Time) { c.Stopped(now) })
	end := time.After(timeout)
	for {
		l.mu.Lock()
		done := l.core.shutdownDone
		l.mu.Unlock()
		if done {
			break
		}
		select {
		case <-l.idle:
			continue
		case <-end:
			l.log.Warn("agones: Shutdown did not land before the server exited")
		}
		break
	}
	l.cancel()
	l.done.Wait()
}

func (l *Link) run(ctx context.Context) {
	defer l.done.Done()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var failing [numKinds]bool // a call of that kind failed and has not landed since
	for {
		l.mu.Lock()
		now := time.Now()
		if l.beat.Swap(false) {
			l.core.Beat(now)
		}
		call, ok := l.core.Next(now)
		if !ok {
			awaiting := l.core.AwaitsBeat()
			l.awaiting.Store(awaiting)
			if awaiting && l.beat.Load() {
				// A beat came after the swap above and before Beat
				// could see awaiting: take it now rather than sleep.
				l.mu.Unlock()
				continue
			}
			deadline := l.core.Deadline(now)
			l.mu.Unlock()
			wait := time.Hour
			if !deadline.IsZero() {
				wait = max(time.Until(deadline), 0)
			}
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return
			case <-l.wake:
			case <-timer.C:
			}
			continue
		}
		state := l.core.State()
		l.mu.Unlock()
		err := l.client.Do(ctx, call)
		if ctx.Err() != nil {
			return
		}
		l.mu.Lock()
		now = time.Now()
		tracking := l.core.Tracking()
		l.core.Done(now, call, err)
		trackingOff := tracking && !l.core.Tracking()
		l.mu.Unlock()
		select {
		case l.idle <- struct{}{}:
		default:
		}
		switch {
		case trackingOff:
			l.log.Warn("agones: player tracking is off: the SDK server refused it (the PlayerTracking feature gate is an alpha one)", "err", err)
		case err != nil && !failing[call.Kind]:
			failing[call.Kind] = true
			l.log.Warn("agones: a call to the SDK server failed; retrying", "call", call.Kind.String(), "err", err)
		case err != nil:
			l.log.Debug("agones: a call failed again", "call", call.Kind.String(), "err", err)
		default:
			if failing[call.Kind] {
				failing[call.Kind] = false
				l.log.Info("agones: the SDK server took the call", "call", call.Kind.String())
			}
			switch call.Kind {
			case Ready:
				l.log.Info("agones: ready")
			case Allocate:
				l.log.Info("agones: allocated: players are seated on a server Agones had not allocated", "was", state)
			case Shutdown:
				l.log.Info("agones: shutdown asked")
			}
		}
	}
}

// watch keeps GET /watch/gameserver open, telling the Core each state,
// and opens it again (after a backoff) when it ends.
func (l *Link) watch(ctx context.Context) {
	defer l.done.Done()
	wait := minBackoff
	var last string
	for {
		start := time.Now()
		err := l.client.Watch(ctx, func(g Info) {
			l.with(func(c *Core, now time.Time) { c.Watched(now, GameServer{State: g.Status.State}) })
			if g.Status.State != last {
				last = g.Status.State
				l.log.Info("agones: the GameServer is "+last, "name", g.ObjectMeta.Name)
			}
		})
		if ctx.Err() != nil {
			return
		}
		if time.Since(start) > maxBackoff {
			wait = minBackoff
		}
		l.log.Debug("agones: the watch ended; watching again", "err", err, "in", wait)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, maxBackoff)
	}
}

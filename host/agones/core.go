// Package agones speaks for a server to Agones, the game-server
// orchestrator on Kubernetes, through the SDK server that runs beside it in
// its pod, over that server's HTTP/JSON API (the REST gateway Agones
// documents at https://agones.dev/site/docs/guides/client-sdks/rest/).
//
// What a server tells Agones, and when, is decided by a Core, which does
// no I/O and reads no clock: it is told what happened (the server serves,
// the serving loop ran, the seated players, what the GameServer looks like
// now, a drain, the end) and the time, and answers with the next Call to
// make. A Link runs a Core against the SDK server: it makes the calls, and
// watches the GameServer for it.
//
// The rules (docs/operating.md, "Agones"):
//
//   - Ready once the server listens, while no player is seated and Agones
//     has not allocated, reserved or shut the GameServer down; never
//     while draining. A server with players is never marked Ready.
//   - Health each HealthPeriod, and only when the serving loop has run
//     since the last: a stalled loop stops the pings, and Agones marks the
//     GameServer Unhealthy.
//   - Allocate itself when players are seated on a GameServer Agones has
//     not allocated (players sent by a lobby rather than by Agones'
//     allocator), so a scale-down or a rolling update does not delete it
//     under them.
//   - Shutdown when the match ends (an allocated server that has seated
//     players has none for MatchEndGrace) and when the server stops.
//   - An allocated server that seats no one for IdleAllocation is Ready
//     again: the match it was allocated for never came.
//   - Labels and annotations (the project, its fingerprint, the wire's
//     version) once; player capacity once; a PlayerConnect and a
//     PlayerDisconnect for each player seated and gone, when the cluster
//     has player tracking on (it is an alpha feature: an SDK server that
//     refuses the calls turns them off for the run).
package agones

import (
	"errors"
	"slices"
	"strconv"
	"time"
)

// Kind is a call to the SDK server.
type Kind uint8

// The calls, in the order a Core makes those due at once.
const (
	Shutdown Kind = iota
	Allocate
	Ready
	SetLabel
	SetAnnotation
	SetCapacity
	PlayerDisconnect
	PlayerConnect
	Health
	numKinds
)

func (k Kind) String() string {
	return [...]string{"shutdown", "allocate", "ready", "label", "annotation", "capacity", "player_disconnect", "player_connect", "health", "?"}[min(k, numKinds)]
}

// Call is one call to make: its kind, and for a label or an annotation its
// key and value, for a player's its id, for the capacity its count.
type Call struct {
	Kind       Kind
	Key, Value string
	Player     string
	Count      int
}

// GameServer is what a Core reads of the GameServer resource: its state
// (Scheduled, RequestReady, Ready, Allocated, Reserved, Shutdown,
// Unhealthy...).
type GameServer struct {
	State string
}

// The GameServer states a Core acts on.
const (
	StateReady     = "Ready"
	StateAllocated = "Allocated"
	StateReserved  = "Reserved"
	StateShutdown  = "Shutdown"
)

// Config is what a Core needs to know; zero durations take the defaults
// given.
type Config struct {
	// HealthPeriod is the time between two Health pings (default 1 s:
	// Agones' default period is 5 s, with 3 failures allowed).
	HealthPeriod time.Duration
	// MatchEndGrace is how long an allocated server that has seated
	// players must have none before the match is over (default 5 s: a
	// player who dropped may come back).
	MatchEndGrace time.Duration
	// IdleAllocation is how long an allocated server may seat no one
	// before it is Ready again (default 60 s; negative: never).
	IdleAllocation time.Duration
	// Labels and Annotations are set once each (Agones prefixes each key
	// with "agones.dev/sdk-").
	Labels, Annotations [][2]string
	// Capacity is the players the server seats; 0 leaves player tracking
	// off.
	Capacity int
}

// Defaults of Config.
const (
	DefaultHealthPeriod   = time.Second
	DefaultMatchEndGrace  = 5 * time.Second
	DefaultIdleAllocation = time.Minute
)

// Backoff of a failed call: the SDK server may start after the game
// server, so the first calls are retried soon, then every 2 s at most.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 2 * time.Second
)

// StatusError is a call the SDK server answered with an error status: it
// is up, and refused it.
type StatusError struct {
	Code int
	Body string
}

func (e *StatusError) Error() string {
	return "the Agones SDK server answered " + strconv.Itoa(e.Code) + ": " + e.Body
}

// Core decides what a server tells Agones. Make one with NewCore. Not safe
// for concurrent use.
type Core struct {
	cfg Config

	serving  bool
	draining bool
	stopped  bool

	// state is the GameServer's as last watched, or as the last call
	// that landed made it.
	state string
	// readyDone: a Ready has landed for the state now (cleared when the
	// GameServer leaves Ready for Allocated, to allow a Ready after an
	// idle allocation).
	readyDone    bool
	allocateDone bool // an Allocate has landed since the state was last Ready
	shutdownDone bool
	shutdownWant bool

	allocatedAt     time.Time // when the state turned Allocated
	seatedSinceAllo bool      // a player was seated since then
	emptySince      time.Time // when the last player left (zero: someone is seated, or none ever was)

	beat     bool // the serving loop ran since the last Health
	healthAt time.Time

	labels, annotations [][2]string // not yet set
	capacityDone        bool
	tracking            bool // player tracking is on
	want                []string
	told                []string // the players the SDK server was told of

	retryAt  [numKinds]time.Time
	fails    [numKinds]int
	inflight bool
	errs     [numKinds]uint64
	calls    [numKinds]uint64
}

// NewCore returns a Core for cfg.
func NewCore(cfg Config) *Core {
	if cfg.HealthPeriod <= 0 {
		cfg.HealthPeriod = DefaultHealthPeriod
	}
	if cfg.MatchEndGrace <= 0 {
		cfg.MatchEndGrace = DefaultMatchEndGrace
	}
	if cfg.IdleAllocation == 0 {
		cfg.IdleAllocation = DefaultIdleAllocation
	}
	return &Core{cfg: cfg, labels: slices.Clone(cfg.Labels), annotations: slices.Clone(cfg.Annotations), tracking: cfg.Capacity > 0}
}

// Serving records that the server listens.
func (c *Core) Serving(now time.Time) { c.serving = true }

// Beat records that the serving loop ran (at now, by the caller's clock).
func (c *Core) Beat(now time.Time) { c.beat = true }

// Draining records that the server drains: it is never Ready from now on.
func (c *Core) Draining(now time.Time) { c.draining = true }

// Stopped records that the server stopped serving: Shutdown is due.
func (c *Core) Stopped(now time.Time) {
	c.stopped = true
	c.shutdownWant = true
}

// Roster records the players seated now, by id.
func (c *Core) Roster(now time.Time, ids []string) {
	had := len(c.want)
	c.want = append(c.want[:0], ids...)
	slices.Sort(c.want)
	c.want = slices.Compact(c.want)
	switch {
	case len(c.want) > 0:
		c.emptySince = time.Time{}
		if c.state == StateAllocated {
			c.seatedSinceAllo = true
		}
	case had > 0:
		c.emptySince = now
	}
}

// Players is how many players the Core was last told are seated.
func (c *Core) Players() int { return len(c.want) }

// Watched records the GameServer as the SDK server last described it.
func (c *Core) Watched(now time.Time, gs GameServer) {
	if gs.State == "" || gs.State == c.state {
		return
	}
	c.setState(now, gs.State)
}

func (c *Core) setState(now time.Time, s string) {
	was := c.state
	c.state = s
	switch s {
	case StateAllocated:
		if was != StateAllocated {
			c.allocatedAt = now
			c.seatedSinceAllo = len(c.want) > 0
			c.readyDone = false
		}
	case StateReady:
		c.allocateDone = false
	}
}

// State is the GameServer's state as the Core knows it ("" before any).
func (c *Core) State() string { return c.state }

// Tracking reports whether player tracking is on.
func (c *Core) Tracking() bool { return c.tracking }

// Calls and Errors count the calls made of kind k, and those that failed.
func (c *Core) Calls(k Kind) uint64  { return c.calls[k] }
func (c *Core) Errors(k Kind) uint64 { return c.errs[k] }

// matchOver reports whether the match an allocation was for has ended.
func (c *Core) matchOver(now time.Time) bool {
	return c.state == StateAllocated && c.seatedSinceAllo && len(c.want) == 0 &&
		!c.emptySince.IsZero() && now.Sub(c.emptySince) >= c.cfg.MatchEndGrace
}

// idleAllocation reports whether an allocation has seated no one for too
// long.
func (c *Core) idleAllocation(now time.Time) bool {
	return c.cfg.IdleAllocation > 0 && c.state == StateAllocated && !c.seatedSinceAllo && len(c.want) == 0 &&
		now.Sub(c.allocatedAt) >= c.cfg.IdleAllocation
}

// due returns the call of kind k due now, if one is, regardless of
// backoff.
func (c *Core) due(k Kind, now time.Time) (Call, bool) {
	switch k {
	case Shutdown:
		return Call{Kind: k}, !c.shutdownDone && (c.shutdownWant || c.matchOver(now))
	case Allocate:
		return Call{Kind: k}, !c.shutdownWant && !c.shutdownDone && !c.allocateDone && len(c.want) > 0 &&
			c.state != StateAllocated && c.state != StateShutdown
	case Ready:
		ok := c.serving && !c.draining && !c.stopped && !c.shutdownWant && !c.shutdownDone && len(c.want) == 0
		switch c.state {
		case StateReserved, StateShutdown:
			ok = false
		case StateAllocated:
			ok = ok && c.idleAllocation(now)
		default:
			ok = ok && !c.readyDone
		}
		return Call{Kind: k}, ok
	case SetLabel:
		if len(c.labels) > 0 {
			return Call{Kind: k, Key: c.labels[0][0], Value: c.labels[0][1]}, true
		}
	case SetAnnotation:
		if len(c.annotations) > 0 {
			return Call{Kind: k, Key: c.annotations[0][0], Value: c.annotations[0][1]}, true
		}
	case SetCapacity:
		return Call{Kind: k, Count: c.cfg.Capacity}, c.tracking && !c.capacityDone
	case PlayerDisconnect:
		if c.tracking && c.capacityDone {
			for _, id := range c.told {
				if _, found := slices.BinarySearch(c.want, id); !found {
					return Call{Kind: k, Player: id}, true
				}
			}
		}
	case PlayerConnect:
		if c.tracking && c.capacityDone {
			for _, id := range c.want {
				if _, found := slices.BinarySearch(c.told, id); !found {
					return Call{Kind: k, Player: id}, true
				}
			}
		}
	case Health:
		return Call{Kind: k}, c.serving && c.beat && !now.Before(c.healthAt.Add(c.cfg.HealthPeriod))
	}
	return Call{}, false
}

// Next returns the call to make now, if one is due and none is under way.
// The caller makes it and reports its outcome with Done before asking
// again.
func (c *Core) Next(now time.Time) (Call, bool) {
	if c.inflight {
		return Call{}, false
	}
	for k := Kind(0); k < numKinds; k++ {
		if now.Before(c.retryAt[k]) {
			continue
		}
		if call, ok := c.due(k, now); ok {
			c.inflight = true
			if k == Health {
				c.beat = false
				c.healthAt = now
			}
			return call, true
		}
	}
	return Call{}, false
}

// AwaitsBeat reports whether a Health ping is held back only because the
// serving loop has not run since the last: the caller should wake the
// Core when it does.
func (c *Core) AwaitsBeat() bool { return c.serving && !c.beat }

// Deadline is when Next may next have a call, for a caller that wakes on
// its inputs too; the zero time means not before an input.
func (c *Core) Deadline(now time.Time) time.Time {
	var d time.Time
	earliest := func(t time.Time) {
		if d.IsZero() || t.Before(d) {
			d = t
		}
	}
	for k := Kind(0); k < numKinds; k++ {
		if _, ok := c.due(k, c.retryAt[k]); ok && c.retryAt[k].After(now) {
			earliest(c.retryAt[k])
		}
	}
	if c.serving && c.beat {
		earliest(c.healthAt.Add(c.cfg.HealthPeriod))
	}
	if c.state == StateAllocated && c.seatedSinceAllo && !c.emptySince.IsZero() {
		earliest(c.emptySince.Add(c.cfg.MatchEndGrace))
	}
	if c.cfg.IdleAllocation > 0 && c.state == StateAllocated && !c.seatedSinceAllo {
		earliest(c.allocatedAt.Add(c.cfg.IdleAllocation))
	}
	return d
}

// Done records the outcome of the call Next last returned: nil, it
// landed; otherwise it is tried again after a backoff, but for a Health
// ping (the next beat sends another) and for player tracking refused by
// the SDK server (a StatusError: the feature is off), which is turned off.
func (c *Core) Done(now time.Time, call Call, err error) {
	c.inflight = false
	k := call.Kind
	c.calls[k]++
	if err != nil {
		c.errs[k]++
		var se *StatusError
		if errors.As(err, &se) && (k == SetCapacity || k == PlayerConnect || k == PlayerDisconnect) {
			c.tracking = false
			return
		}
		if k != Health {
			c.fails[k]++
			d := maxBackoff
			if c.fails[k] < 8 {
				d = min(minBackoff<<(c.fails[k]-1), maxBackoff)
			}
			c.retryAt[k] = now.Add(d)
		}
		return
	}
	c.fails[k], c.retryAt[k] = 0, time.Time{}
	switch k {
	case Shutdown:
		c.shutdownDone = true
		c.setState(now, StateShutdown)
	case Allocate:
		c.allocateDone = true
		c.setState(now, StateAllocated)
	case Ready:
		c.readyDone = true
		c.setState(now, StateReady)
	case SetLabel:
		c.labels = c.labels[1:]
	case SetAnnotation:
		c.annotations = c.annotations[1:]
	case SetCapacity:
		c.capacityDone = true
	case PlayerConnect:
		c.told = append(c.told, call.Player)
		slices.Sort(c.told)
	case PlayerDisconnect:
		if i, found := slices.BinarySearch(c.told, call.Player); found {
			c.told = slices.Delete(c.told, i, i+1)
		}
	}
}

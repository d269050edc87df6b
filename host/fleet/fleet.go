// Package fleet keeps a game's directory of servers in Redis, and hands out
// their seats.
//
// Each vkmd started with --fleet registers itself (Register): one hash per
// server with its public address, project, fingerprint, protocol version,
// seats and players, refreshed every Heartbeat and living TTL past its last
// refresh, and its address in the project's sorted set scored by that same
// deadline. A server that stops refreshing (killed, partitioned) drops out
// of every answer once its deadline passes; a clean exit removes it at
// once.
//
// A lobby (cmd/lobby) asks the Directory for a seat. Reserve picks a
// server and records a reservation against it in one Lua script, so any
// number of lobbies sharing the Redis never hand out more seats than a
// server has: a server's free seats are its seats less its players less
// its live reservations. A reservation lives as long as the token the
// lobby mints for it; the server confirms reservations by consuming one for
// every player it seats (Registration.SetPlayers), so a player who never
// arrives gives the seat back when the token expires.
//
// Every key is under the prefix "vkm:fleet:". The script reads the server
// hashes it finds in the project's set, so the directory wants one Redis
// (not a cluster).
package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Defaults for Register's and Reserve's timings.
const (
	// Heartbeat is how often a server refreshes its entry.
	Heartbeat = time.Second
	// TTL is how long an entry outlives its last refresh.
	TTL = 5 * time.Second
)

// prefix begins every key the directory writes.
const prefix = "vkm:fleet:"

func serversKey(project string) string { return prefix + "servers:" + project }
func serverKey(addr string) string     { return prefix + "server:" + addr }
func reservedKey(addr string) string   { return prefix + "reserved:" + addr }

// Server is one server's entry.
type Server struct {
	// Addr is the public address players reach it at, IP:PORT: what a
	// token names.
	Addr string `json:"addr"`
	// Project is the project's name; Fingerprint what a join compares
	// (its schema's fingerprint, in hex); Protocol the wire's version.
	Project     string `json:"project"`
	Fingerprint string `json:"fingerprint"`
	Protocol    int    `json:"protocol"`
	// Seats is how many players it takes; Players how many are seated.
	Seats   int `json:"seats"`
	Players int `json:"players"`
	// Reserved is how many seats lobbies have promised and the server has
	// not yet seated (Directory.Servers fills it in; Register ignores it).
	Reserved int `json:"reserved"`
}

// Free is how many seats a lobby may still hand out on s.
func (s Server) Free() int { return max(0, s.Seats-s.Players-s.Reserved) }

// Open connects to the Redis a URL names (redis://host:port[/db]) and
// checks that it answers.
func Open(ctx context.Context, url string) (*redis.Client, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("fleet: %s: %v", url, err)
	}
	c := redis.NewClient(opt)
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("fleet: %s does not answer: %v", url, err)
	}
	return c, nil
}

// Registration keeps one server's entry alive until Close: it rewrites it
// every heartbeat and, when a write fails, retries after a backoff
// (Standing) until one lands, on a Redis client of its own that it dials
// afresh after each failure (the shared client's pool, once its dials
// fail, redials only once a second). Its standing is what /metrics and
// /readyz say of the fleet; each change of it is logged once.
type Registration struct {
	ttl time.Duration
	log *slog.Logger
	opt *redis.Options
	rdb *redis.Client // the loop's alone, until Close

	mu       sync.Mutex
	s        Server
	written  int // the players the last write told Redis of
	standing *Standing

	wake chan struct{}
	stop chan struct{}
	done chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// Config is how a Registration keeps its entry. Zero fields take the
// defaults given.
type Config struct {
	// Heartbeat is how often the entry is rewritten (default Heartbeat);
	// TTL how long each write lives (default TTL).
	Heartbeat, TTL time.Duration
	// Logger hears the registration's changes, one line each: listed, not
	// listed, lost, back. Nil logs nothing.
	Logger *slog.Logger
}

// writeTimeout bounds one write: a Redis that takes connections and does
// not answer is as lost as one that refuses them.
const writeTimeout = time.Second

// Join writes s into the directory rdb holds, and keeps it there every
// heartbeat until Close or ctx ends. The first write is tried before Join
// returns; whether or not it lands, writes go on (Err says how the last
// went), so a server started before its Redis, or cut off from it, is
// listed within MaxBackoff of Redis answering.
func Join(ctx context.Context, rdb *redis.Client, s Server, cfg Config) *Registration {
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = Heartbeat
	}
	if cfg.TTL <= 0 {
		cfg.TTL = TTL
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	opt := *rdb.Options()
	opt.MaxRetries = -1   // the registration retries itself, on its own schedule
	opt.DialerRetries = 1 // one dial an attempt: a refused one fails it at once
	opt.ContextTimeoutEnabled = true
	opt.PoolSize = 2
	r := &Registration{ttl: cfg.TTL, log: cfg.Logger, opt: &opt, rdb: redis.NewClient(&opt), s: s,
		standing: NewStanding(cfg.Heartbeat, mrand.Float64),
		wake:     make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	r.attempt(ctx)
	go r.loop(ctx)
	return r
}

// Register writes s into the directory and refreshes it every heartbeat
// (each write lives ttl) until Close or ctx ends, as Join does, but fails
// when the first write does not land.
func Register(ctx context.Context, rdb *redis.Client, s Server, heartbeat, ttl time.Duration) (*Registration, error) {
	r := Join(ctx, rdb, s, Config{Heartbeat: heartbeat, TTL: ttl})
	if err := r.Err(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// SetPlayers tells the directory how many players the server seats now;
// the entry is rewritten at once, not at the next heartbeat. Safe from any
// goroutine.
func (r *Registration) SetPlayers(n int) {
	r.mu.Lock()
	r.s.Players = n
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Err is the last write's error (nil once one succeeds again).
func (r *Registration) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.standing.State() == Registered {
		return nil
	}
	return r.standing.LastError()
}

// Registered reports whether the last write landed: lobbies see the
// server.
func (r *Registration) Registered() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.standing.State() == Registered
}

// Errors is how many writes have failed of kind k.
func (r *Registration) Errors(k ErrorKind) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.standing.Errors(k)
}

// Close stops the heartbeat, then removes the entry, so no lobby hands
// the server out from then on: a server calls it as the first act of a
// drain or a stop. It waits for a write under way to end first, so none
// puts the entry back. Later calls do nothing and return the first's
// error. Safe from any goroutine.
func (r *Registration) Close() error {
	r.closeOnce.Do(func() {
		close(r.stop)
		<-r.done
		defer r.rdb.Close()
		ctx, cancel := context.WithTimeout(context.Background(), leaveTimeout)
		defer cancel()
		_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.ZRem(ctx, serversKey(r.s.Project), r.s.Addr)
			p.Del(ctx, serverKey(r.s.Addr), reservedKey(r.s.Addr))
			return nil
		})
		if err != nil {
			r.closeErr = fmt.Errorf("fleet: removing %s: %v", r.s.Addr, err)
		}
	})
	return r.closeErr
}

// leaveTimeout bounds Close's removal: a server whose Redis does not
// answer drains all the same, and its entry lapses after TTL.
const leaveTimeout = 2 * time.Second

func (r *Registration) loop(ctx context.Context) {
	defer close(r.done)
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		r.mu.Lock()
		next := r.standing.Next()
		r.mu.Unlock()
		t.Reset(time.Until(next))
		select {
		case <-ctx.Done():
			return
		case <-r.stop:
			return
		case <-t.C:
		case <-r.wake:
		}
		r.attempt(ctx)
	}
}

// attempt writes the entry once, records how it went and logs a change.
// A failed write drops the client's connections, so the next dials anew.
func (r *Registration) attempt(ctx context.Context) {
	wctx, cancel := context.WithTimeout(ctx, writeTimeout)
	err := r.write(wctx)
	cancel()
	if err != nil && ctx.Err() != nil {
		return // stopping: not a failure of the directory
	}
	now := time.Now()
	r.mu.Lock()
	fails, since := r.standing.Fails(), r.standing.Landed()
	change := r.standing.Wrote(now, err)
	addr := r.s.Addr
	r.mu.Unlock()
	if err != nil {
		r.rdb.Close()
		r.rdb = redis.NewClient(r.opt)
	}
	switch change {
	case Listed:
		r.log.Info("fleet: registered", "addr", addr)
	case NotListed:
		r.log.Error("fleet: not registered: the directory does not answer; lobbies cannot send players here until it does (retrying)", "addr", addr, "kind", KindOf(err).String(), "err", err)
	case WentAway:
		r.log.Error("fleet: lost the directory: lobbies send no players here until it answers again (retrying)", "addr", addr, "kind", KindOf(err).String(), "err", err)
	case CameBack:
		r.log.Info("fleet: back in the directory", "addr", addr, "unlisted_for", now.Sub(since).Round(time.Millisecond).String(), "failed_writes", fails)
	}
}

// write refreshes the entry in one transaction. Players seated since the
// last write each confirm (consume) the oldest reservation.
func (r *Registration) write(ctx context.Context) error {
	r.mu.Lock()
	s, seated := r.s, r.s.Players-r.written
	r.mu.Unlock()
	deadline := time.Now().Add(r.ttl)
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, serverKey(s.Addr), "addr", s.Addr, "project", s.Project, "fingerprint", s.Fingerprint,
			"protocol", s.Protocol, "seats", s.Seats, "players", s.Players)
		p.PExpire(ctx, serverKey(s.Addr), r.ttl)
		p.ZAdd(ctx, serversKey(s.Project), redis.Z{Score: float64(deadline.UnixMilli()), Member: s.Addr})
		if seated > 0 {
			p.ZPopMin(ctx, reservedKey(s.Addr), int64(seated))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("fleet: registering %s: %w", s.Addr, err)
	}
	r.mu.Lock()
	r.written = s.Players
	r.mu.Unlock()
	return nil
}

// Directory answers a lobby's questions.
type Directory struct {
	rdb *redis.Client
}

// NewDirectory reads the directory rdb holds.
func NewDirectory(rdb *redis.Client) *Directory { return &Directory{rdb: rdb} }

// ErrNoSeat is Reserve's answer when no live server of the project has a
// free seat.
var ErrNoSeat = errors.New("fleet: no server has a free seat")

// Servers lists the project's live servers, in address order.
func (d *Directory) Servers(ctx context.Context, project string) ([]Server, error) {
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	addrs, err := d.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: serversKey(project), Start: "(" + now, Stop: "+inf", ByScore: true}).Result()
	if err != nil {
		return nil, err
	}
	var out []Server
	for _, a := range addrs {
		h, err := d.rdb.HGetAll(ctx, serverKey(a)).Result()
		if err != nil {
			return nil, err
		}
		if len(h) == 0 {
			continue
		}
		n, err := d.rdb.ZCount(ctx, reservedKey(a), "("+now, "+inf").Result()
		if err != nil {
			return nil, err
		}
		out = append(out, Server{Addr: a, Project: h["project"], Fingerprint: h["fingerprint"],
			Protocol: atoi(h["protocol"]), Seats: atoi(h["seats"]), Players: atoi(h["players"]), Reserved: int(n)})
	}
	return out, nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// reserve picks, among the project's live servers of the wanted build,
// the fullest one with a free seat (ties to the lowest address), and adds
// a reservation to it that lives until ARGV[2]. Expired servers and
// reservations are swept as it goes. KEYS[1] is the project's set; ARGV:
// now in ms, the reservation's deadline in ms, its id, the key prefix, the
// fingerprint and protocol wanted ("" for any), the addresses to pass
// over joined by commas, and "1" when the id is a client's: its
// reservation on any server is then dropped first, so one client holds
// one seat however often it asks. It returns the chosen address, or
// false.
var reserve = redis.NewScript(`
local now, deadline, id, prefix, fp, proto = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local skip, mine = {}, ARGV[8] == '1'
for a in string.gmatch(ARGV[7], '[^,]+') do skip[a] = true end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local best, bestFree
for _, addr in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local h = redis.call('HMGET', prefix .. 'server:' .. addr, 'seats', 'players', 'fingerprint', 'protocol')
  local resv = prefix .. 'reserved:' .. addr
  if mine then redis.call('ZREM', resv, id) end
  if not h[1] then
    redis.call('ZREM', KEYS[1], addr)
  elseif not skip[addr] and (fp == '' or h[3] == fp) and (proto == '' or h[4] == proto) then
    redis.call('ZREMRANGEBYSCORE', resv, '-inf', now)
    local free = tonumber(h[1]) - tonumber(h[2]) - redis.call('ZCARD', resv)
    if free > 0 and (best == nil or free < bestFree or (free == bestFree and addr < best)) then
      best, bestFree = addr, free
    end
  end
end
if best == nil then return false end
local resv = prefix .. 'reserved:' .. best
redis.call('ZADD', resv, deadline, id)
if redis.call('PTTL', resv) < deadline - now then redis.call('PEXPIREAT', resv, deadline) end
return best
`)

// Want is what a player's client can join: a project, and, when set, the
// build (Server.Fingerprint and Protocol) its join would be compared with.
type Want struct {
	Project     string
	Fingerprint string
	Protocol    int
	// Skip lists servers not to pick: those the client was sent to and
	// found did not seat it. At most MaxSkip.
	Skip []netip.AddrPort
}

// MaxSkip is how many servers a Want may pass over: a client tries a few
// servers before it gives up, not the fleet.
const MaxSkip = 8

// Reserve holds a seat for one player on one of the servers w matches
// until the reservation's deadline (the token's expiry), and returns the
// server's address. It picks the fullest server that has a free seat, so
// servers fill one after another and emptied ones can be stopped; it
// fails with ErrNoSeat when none has one. A client id (not 0) holds one
// seat at a time: its earlier reservation, on any of the project's
// servers, is given back first. With 0 the reservation is anonymous.
func (d *Directory) Reserve(ctx context.Context, w Want, client uint64, until time.Time) (string, error) {
	var idb [8]byte
	rand.Read(idb[:])
	id, mine := "r:"+hex.EncodeToString(idb[:]), ""
	if client != 0 {
		id, mine = "c:"+strconv.FormatUint(client, 10), "1"
	}
	proto := ""
	if w.Protocol != 0 {
		proto = strconv.Itoa(w.Protocol)
	}
	skip := make([]string, 0, len(w.Skip))
	for _, a := range w.Skip {
		skip = append(skip, a.String())
	}
	v, err := reserve.Run(ctx, d.rdb, []string{serversKey(w.Project)},
		time.Now().UnixMilli(), until.UnixMilli(), id, prefix, w.Fingerprint, proto, strings.Join(skip, ","), mine).Result()
	if errors.Is(err, redis.Nil) {
		return "", ErrNoSeat
	}
	if err != nil {
		return "", fmt.Errorf("fleet: reserving a seat: %w", err)
	}
	addr, _ := v.(string)
	return addr, nil
}

// Once reports whether key is new to the directory, and makes it known
// until until (the Seen a lobby's HMAC check keeps replays in): one Redis
// command, so lobbies sharing the Redis agree.
func (d *Directory) Once(ctx context.Context, key string, until time.Time) (bool, error) {
	ttl := max(time.Until(until), time.Millisecond)
	fresh, err := d.rdb.SetNX(ctx, prefix+"seen:"+key, 1, ttl).Result()
	if err != nil {
		return false, fmt.Errorf("fleet: remembering a signature: %w", err)
	}
	return fresh, nil
}

var _ Seen = (*Directory)(nil)

// Ping reports whether the directory's Redis answers.
func (d *Directory) Ping(ctx context.Context) error {
	if err := d.rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("fleet: the directory does not answer: %w", err)
	}
	return nil
}

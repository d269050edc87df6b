package fleet

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"vkm/transport/handshake"
	"vkm/transport/token"
)

// Lobby is the HTTP handler of a lobby: GET /join?project=NAME&name=PLAYER
// [&fingerprint=FP&protocol=N][&skip=IP:PORT...][&client=N] reserves a
// seat (Directory.Reserve) on a server of that project (and build, when
// the client names its own, passing over the servers it skips) and
// answers a Seat, with a connect token minted for that server under the
// game's key. It also serves /healthz (the lobby answers), /readyz (its
// Redis answers) and /metrics (Prometheus).
//
// A request must be authentic to one of Checks (a signed request from the
// game's backend, a player's JWT): one that is not gets 401 and no token.
// With no Checks, only a Lobby told Anonymous serves anyone (a loopback
// test); otherwise every /join is refused. Reservations are limited per
// caller and per source address (429 with Retry-After). A failure of its
// own or of Redis answers a plain sentence and is logged with its detail.
//
// It keeps no state but its rate limits, so any number of lobbies may
// serve the same Redis. Set the fields, then serve; do not change them
// after. Safe for concurrent use.
type Lobby struct {
	Dir *Directory
	Key *token.Key
	// Life is how long a token (and so its reservation) lives.
	Life time.Duration
	// Checks are the ways a caller may prove who it is, by the scheme its
	// Authorization header names.
	Checks []Check
	// Anonymous, with no Checks, serves callers that give no credentials.
	Anonymous bool
	// CallerRate and AddrRate limit the reservations of one caller (a
	// JWT's client id, a client id the backend names) and of one source
	// address (an IPv4 address, an IPv6 /64; the backend's is not
	// limited). Zero means DefaultCallerRate and DefaultAddrRate.
	CallerRate, AddrRate Rate
	// Now is the lobby's clock (rate limits, tokens, checks' times); nil
	// means time.Now.
	Now    func() time.Time
	Logger *slog.Logger

	once    sync.Once
	mux     *http.ServeMux
	m       *lobbyMetrics
	callers *buckets
	addrs   *buckets
	// lastRedisLog is when a Redis failure was last logged (unix ns):
	// with Redis down every request fails, and one line a second says so.
	lastRedisLog atomic.Int64
}

// Seat is the lobby's answer: the server to join and the connect token
// (its text form) that admits the player there.
type Seat struct {
	Addr  string `json:"addr"`
	Token string `json:"token"`
}

// redisTimeout bounds the Redis commands one request waits for: a lobby
// whose Redis is unreachable answers 503 rather than hold the player.
const redisTimeout = 2 * time.Second

// realm names the lobby in its 401s' WWW-Authenticate challenges.
const realm = `realm="vkm lobby"`

func (l *Lobby) init() {
	l.once.Do(func() {
		if l.Logger == nil {
			l.Logger = slog.New(slog.DiscardHandler)
		}
		l.Now = clock(l.Now)
		cr, ar := l.CallerRate, l.AddrRate
		if cr == (Rate{}) {
			cr = DefaultCallerRate
		}
		if ar == (Rate{}) {
			ar = DefaultAddrRate
		}
		l.callers, l.addrs = newBuckets(cr, maxBuckets), newBuckets(ar, maxBuckets)
		l.m = newLobbyMetrics()
		l.mux = http.NewServeMux()
		l.mux.HandleFunc("/join", l.join)
		l.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { plain(w, http.StatusOK, "ok") })
		l.mux.HandleFunc("GET /readyz", l.readyz)
		l.mux.Handle("GET /metrics", promhttp.HandlerFor(l.m.reg, promhttp.HandlerOpts{Registry: l.m.reg}))
	})
}

// ServeHTTP serves /join, /healthz, /readyz and /metrics.
func (l *Lobby) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.init()
	l.mux.ServeHTTP(w, r)
}

// join answers /join. 200: a Seat; 400: a bad query; 401: no credentials
// or not authentic; 403: a client id the caller may not name; 405: not a
// GET; 429: over a limit (Retry-After); 503: no free seat, or Redis
// failed (Retry-After); 500: minting failed.
func (l *Lobby) join(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		l.refuse(w, http.StatusMethodNotAllowed, outcomeBadRequest, "join: ask with GET")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), redisTimeout)
	defer cancel()
	caller, ok := l.authenticate(w, r.WithContext(ctx))
	if !ok {
		return
	}
	q, err := parseJoinQuery(r)
	if err != nil {
		l.refuse(w, http.StatusBadRequest, outcomeBadRequest, err.Error())
		return
	}
	client, ok := l.clientFor(w, caller, q.client)
	if !ok {
		return
	}
	if !l.allow(w, r, caller, client) {
		return
	}
	now := l.Now()
	expires := now.Add(l.Life)
	addr, err := l.Dir.Reserve(ctx, q.want, client, expires)
	if errors.Is(err, ErrNoSeat) {
		w.Header().Set("Retry-After", "1")
		l.refuse(w, http.StatusServiceUnavailable, outcomeNoSeat, fmt.Sprintf("join: no server of %q for this build has a free seat", q.want.Project))
		return
	}
	if err != nil {
		l.unavailable(w, err)
		return
	}
	l.m.reservations.Inc()
	if client == 0 {
		client = randomClient()
	}
	text, err := l.mint(addr, q, client, now, expires)
	if err != nil {
		l.Logger.Error("join failed", "err", err)
		l.refuse(w, http.StatusInternalServerError, outcomeError, "join: the lobby failed to hand out the seat")
		return
	}
	l.m.requests.WithLabelValues(outcomeSeat).Inc()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(Seat{Addr: addr, Token: text})
}

// mint makes the token for a seat on addr.
func (l *Lobby) mint(addr string, q joinQuery, client uint64, now, expires time.Time) (string, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return "", fmt.Errorf("fleet: the directory holds %q, not an IP:PORT: %v", addr, err)
	}
	tok, err := token.Mint(l.Key, token.Claims{Protocol: token.ProtocolID(q.want.Project), Client: client,
		Expires: expires, Servers: []netip.AddrPort{ap}, Name: q.name}, now, nil)
	if err != nil {
		return "", err
	}
	text, err := tok.MarshalText()
	return string(text), err
}

func randomClient() uint64 {
	var id [8]byte
	rand.Read(id[:])
	return max(1, binary.LittleEndian.Uint64(id[:]))
}

// authenticate finds who calls, or answers 401 (or 503 when a check could
// not tell) and returns false.
func (l *Lobby) authenticate(w http.ResponseWriter, r *http.Request) (Caller, bool) {
	if len(l.Checks) == 0 && l.Anonymous {
		return Caller{}, true
	}
	header := r.Header.Get("Authorization")
	if header == "" {
		l.unauthorized(w, authError(authMissing, "the request carries no credentials (an Authorization header)"))
		return Caller{}, false
	}
	scheme, _, _ := splitAuthorization(header)
	for _, c := range l.Checks {
		if !strings.EqualFold(scheme, c.Scheme()) {
			continue
		}
		caller, err := c.Authenticate(r)
		var ae *AuthError
		switch {
		case errors.As(err, &ae):
			l.unauthorized(w, ae)
			return Caller{}, false
		case err != nil:
			l.unavailable(w, err)
			return Caller{}, false
		}
		return caller, true
	}
	l.unauthorized(w, authError(authScheme, "the Authorization header's scheme is not one this lobby takes"))
	return Caller{}, false
}

func (l *Lobby) unauthorized(w http.ResponseWriter, e *AuthError) {
	l.m.authFailures.WithLabelValues(e.Reason).Inc()
	l.Logger.Debug("join refused: not authentic", "reason", e.Reason)
	for _, c := range l.Checks {
		w.Header().Add("WWW-Authenticate", c.Scheme()+" "+realm)
	}
	l.refuse(w, http.StatusUnauthorized, outcomeUnauthorized, "join: "+strings.TrimPrefix(e.Error(), "fleet: "))
}

// clientFor is the client id the token is minted for: the one a JWT
// names, or the one the backend asks for (?client=N), or 0 (drawn at
// random). Anyone else naming a client id gets 403.
func (l *Lobby) clientFor(w http.ResponseWriter, c Caller, asked uint64) (uint64, bool) {
	switch {
	case asked == 0 || asked == c.Client:
		return c.Client, true
	case c.Trusted:
		return asked, true
	case c.Client != 0:
		l.refuse(w, http.StatusForbidden, outcomeForbidden, fmt.Sprintf("join: this caller's token is for client %d, not %d", c.Client, asked))
	default:
		l.refuse(w, http.StatusForbidden, outcomeForbidden, "join: only the game's backend names the client id")
	}
	return 0, false
}

// allow takes a token from the caller's bucket and the address's, or
// answers 429 with Retry-After and returns false.
func (l *Lobby) allow(w http.ResponseWriter, r *http.Request, c Caller, client uint64) bool {
	now := l.Now()
	key := c.Key
	if key == "" && c.Trusted && client != 0 {
		key = "client:" + strconv.FormatUint(client, 10)
	}
	if key != "" {
		if ok, wait := l.callers.take(key, now); !ok {
			l.limited(w, "caller", wait)
			return false
		}
	}
	if c.Trusted {
		return true
	}
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		// Not a TCP peer (a handler called in process): one bucket.
		ap = netip.AddrPort{}
	}
	if ok, wait := l.addrs.take(addrKey(ap.Addr()), now); !ok {
		l.limited(w, "address", wait)
		return false
	}
	return true
}

func (l *Lobby) limited(w http.ResponseWriter, by string, wait time.Duration) {
	l.m.limited.WithLabelValues(by).Inc()
	secs := retryAfter(wait)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	l.refuse(w, http.StatusTooManyRequests, outcomeLimited, fmt.Sprintf("join: too many requests from this %s; try again in %d s", by, secs))
}

// unavailable answers 503 for a failure of Redis, and logs its detail
// (which names Redis's address) at most once a second.
func (l *Lobby) unavailable(w http.ResponseWriter, err error) {
	l.m.redisErrors.Inc()
	now := l.Now().UnixNano()
	if last := l.lastRedisLog.Load(); now-last >= int64(time.Second) && l.lastRedisLog.CompareAndSwap(last, now) {
		l.Logger.Error("join failed: the directory does not answer", "err", err)
	}
	w.Header().Set("Retry-After", "1")
	l.refuse(w, http.StatusServiceUnavailable, outcomeUnavailable, "join: the lobby cannot reach its directory now; try again shortly")
}

// refuse answers status with a one-line sentence and counts the outcome.
func (l *Lobby) refuse(w http.ResponseWriter, status int, outcome, sentence string) {
	l.m.requests.WithLabelValues(outcome).Inc()
	w.Header().Set("Cache-Control", "no-store")
	plain(w, status, sentence)
}

func plain(w http.ResponseWriter, status int, line string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	fmt.Fprintln(w, line)
}

// readyz answers 200 while Redis answers, 503 otherwise.
func (l *Lobby) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), redisTimeout)
	defer cancel()
	if err := l.Dir.Ping(ctx); err != nil {
		l.m.redisErrors.Inc()
		l.Logger.Warn("not ready", "err", err)
		plain(w, http.StatusServiceUnavailable, "not ready: the directory does not answer")
		return
	}
	plain(w, http.StatusOK, "ready")
}

// joinQuery is what a /join asks for.
type joinQuery struct {
	want   Want
	name   string
	client uint64 // 0: not named
}

// maxQuery bounds the query /join reads: a project, a name, a fingerprint
// and a few servers to skip are well under it.
const maxQuery = 2048

// parseJoinQuery reads /join's query, refusing what it cannot use with a
// sentence saying why.
func parseJoinQuery(r *http.Request) (joinQuery, error) {
	var q joinQuery
	if len(r.URL.RawQuery) > maxQuery {
		return q, fmt.Errorf("join: the query is over %d bytes", maxQuery)
	}
	v := r.URL.Query()
	q.want = Want{Project: v.Get("project"), Fingerprint: v.Get("fingerprint")}
	q.name = handshake.CleanName(v.Get("name"))
	if q.want.Project == "" {
		return q, errors.New("join: the query names no project (?project=NAME&name=PLAYER)")
	}
	if p := v.Get("protocol"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 {
			return q, fmt.Errorf("join: protocol %.20q is not a version number", p)
		}
		q.want.Protocol = n
	}
	skips := v["skip"]
	if len(skips) > MaxSkip {
		return q, fmt.Errorf("join: the query skips %d servers (at most %d)", len(skips), MaxSkip)
	}
	for _, s := range skips {
		a, err := netip.ParseAddrPort(s)
		if err != nil {
			return q, fmt.Errorf("join: skip %.30q is not an IP:PORT", s)
		}
		q.want.Skip = append(q.want.Skip, a)
	}
	if c, ok := v["client"]; ok {
		id, valid := parseClient(c[0])
		if len(c) != 1 || !valid {
			return q, errors.New("join: client is one client id (a decimal number, not 0)")
		}
		q.client = id
	}
	return q, nil
}

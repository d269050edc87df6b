package fleet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/redis/go-redis/v9"

	"vkm/internal/redistest"
	"vkm/transport/token"
)

// joinOnce asks the lobby at url once, without waiting out a Retry-After.
func joinOnce(url string, w Want, name string) (netip.AddrPort, token.Token, error) {
	return (&LobbyClient{URL: url, Attempts: 1}).Join(context.Background(), w, name)
}

// testClock is a clock a test moves by hand. Safe for concurrent use.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *testClock { return &testClock{t: time.Now()} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var (
	jwtSecret  = []byte("players-jwt-secret-of-32-bytes-or-more!")
	hmacSecret = []byte("the-backends-shared-secret-0123456789")
)

// signJWT signs claims HS256 under secret.
func signJWT(t testing.TB, secret []byte, claims jwt.Claims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// playerJWT is a valid JWT for client id sub, issued at now for an hour.
func playerJWT(t testing.TB, sub string, now time.Time) string {
	return signJWT(t, jwtSecret, jwt.RegisteredClaims{Subject: sub, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))})
}

// testLobby is a lobby with both checks on a fresh Redis holding one
// server of seats seats, on the test's clock.
type testLobby struct {
	*Lobby
	clock *testClock
	rdb   *redis.Client
	key   token.Key
	reg   *Registration
}

func newTestLobby(t *testing.T, seats int) *testLobby {
	t.Helper()
	rdb := open(t, redistest.Start(t))
	return newTestLobbyOn(t, rdb, seats)
}

func newTestLobbyOn(t *testing.T, rdb *redis.Client, seats int) *testLobby {
	t.Helper()
	tl := &testLobby{clock: newClock(), rdb: rdb}
	tl.key[0] = 9
	if seats > 0 {
		tl.reg = register(t, rdb, "127.0.0.1:4000", seats, TTL)
		t.Cleanup(func() { tl.reg.Close() })
	}
	d := NewDirectory(rdb)
	j, err := NewJWT(JWTConfig{Secret: jwtSecret, Now: tl.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	tl.Lobby = &Lobby{Dir: d, Key: &tl.key, Life: time.Minute, Now: tl.clock.Now,
		Checks: []Check{&HMAC{Secret: hmacSecret, Seen: d, Now: tl.clock.Now}, j}}
	return tl
}

// answer is one response of the handler.
type answer struct {
	status int
	header http.Header
	body   string
}

// get sends GET target to the lobby from addr (IP:PORT) with the
// Authorization header auth ("" for none).
func (tl *testLobby) get(target, addr, auth string) answer {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r.RemoteAddr = addr
	if auth != "" {
		r.Header.Set("Authorization", auth)
	}
	return tl.do(r)
}

func (tl *testLobby) do(r *http.Request) answer {
	w := httptest.NewRecorder()
	tl.ServeHTTP(w, r)
	return answer{w.Code, w.Header(), w.Body.String()}
}

// signed is target signed by the backend at the lobby's time with nonce.
func (tl *testLobby) signed(t testing.TB, target, nonce string) *http.Request {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r.RemoteAddr = "198.51.100.7:5000"
	if err := SignRequest(r, hmacSecret, tl.clock.Now(), nonce); err != nil {
		t.Fatal(err)
	}
	return r
}

// seat reads a 200's Seat and opens its token.
func (tl *testLobby) seat(t testing.TB, a answer) token.Claims {
	t.Helper()
	if a.status != http.StatusOK {
		t.Fatalf("answered %d %q, want 200 and a seat", a.status, a.body)
	}
	addr, tok, err := ParseSeat([]byte(a.body))
	if err != nil {
		t.Fatal(err)
	}
	c, err := token.Open(&tl.key, tok.Sealed[:], tl.clock.Now(), addr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// reserved is how many seats the directory holds reserved.
func (tl *testLobby) reserved(t testing.TB) int {
	t.Helper()
	ss, err := tl.Dir.Servers(context.Background(), "arena")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range ss {
		n += s.Reserved
	}
	return n
}

func refusedWithoutToken(t *testing.T, what string, a answer, status int) {
	t.Helper()
	if a.status != status || strings.Contains(a.body, "token") && strings.Contains(a.body, "{") {
		t.Errorf("%s: answered %d %q, want %d and no token", what, a.status, a.body, status)
	}
}

const join = "/join?project=arena&name=ann"

// An anonymous request gets 401 and no seat is reserved; so does every
// request to a lobby given no check and not told to serve anonymous
// callers.
func TestAnonymousRequestsGetNoToken(t *testing.T) {
	tl := newTestLobby(t, 4)
	for _, auth := range []string{"", "Basic YW5uOnB3", "Bearer", "Bearer ", "bearer", strings.Repeat("x", 5000)} {
		a := tl.get(join, "192.0.2.1:1000", auth)
		refusedWithoutToken(t, fmt.Sprintf("Authorization %.20q", auth), a, http.StatusUnauthorized)
		if len(a.header.Values("WWW-Authenticate")) != 2 {
			t.Errorf("a 401's challenges: %q", a.header.Values("WWW-Authenticate"))
		}
	}
	closed := &Lobby{Dir: tl.Dir, Key: &tl.key, Life: time.Minute}
	w := httptest.NewRecorder()
	closed.ServeHTTP(w, httptest.NewRequest(http.MethodGet, join, nil))
	refusedWithoutToken(t, "a lobby with no check", answer{w.Code, w.Header(), w.Body.String()}, http.StatusUnauthorized)
	if n := tl.reserved(t); n != 0 {
		t.Fatalf("anonymous requests reserved %d seats", n)
	}
}

// A valid JWT gets a token minted for its subject; forged, expired,
// unsigned, mis-signed and ill-formed ones get 401 and nothing reserved.
func TestJWTs(t *testing.T) {
	tl := newTestLobby(t, 4)
	now := tl.clock.Now()
	hour := jwt.NewNumericDate(now.Add(time.Hour))
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.RegisteredClaims{Subject: "7", ExpiresAt: hour}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	hs512, _ := jwt.NewWithClaims(jwt.SigningMethodHS512, jwt.RegisteredClaims{Subject: "7", ExpiresAt: hour}).SignedString(jwtSecret)
	valid := playerJWT(t, "7", now)
	for _, tc := range []struct {
		what string
		jwt  string
	}{
		{"forged (another secret)", signJWT(t, []byte("not-the-lobbys-secret-but-32-bytes-long"), jwt.RegisteredClaims{Subject: "7", ExpiresAt: hour})},
		{"expired", signJWT(t, jwtSecret, jwt.RegisteredClaims{Subject: "7", ExpiresAt: jwt.NewNumericDate(now.Add(-MaxSkew - time.Second))})},
		{"not valid yet", signJWT(t, jwtSecret, jwt.RegisteredClaims{Subject: "7", ExpiresAt: hour, NotBefore: jwt.NewNumericDate(now.Add(time.Minute))})},
		{"issued in the future", signJWT(t, jwtSecret, jwt.RegisteredClaims{Subject: "7", ExpiresAt: hour, IssuedAt: jwt.NewNumericDate(now.Add(time.Minute))})},
		{"without exp", signJWT(t, jwtSecret, jwt.RegisteredClaims{Subject: "7"})},
		{"alg none", none},
		{"HS512", hs512},
		{"subject not a client id", signJWT(t, jwtSecret, jwt.RegisteredClaims{Subject: "ann", ExpiresAt: hour})},
		{"subject 0", signJWT(t, jwtSecret, jwt.RegisteredClaims{Subject: "0", ExpiresAt: hour})},
		{"no subject", signJWT(t, jwtSecret, jwt.RegisteredClaims{ExpiresAt: hour})},
		{"altered", valid[:len(valid)-2] + "AA"},
		{"not a JWT", "abc.def.ghi"},
	} {
		refusedWithoutToken(t, tc.what, tl.get(join, "192.0.2.1:1000", "Bearer "+tc.jwt), http.StatusUnauthorized)
	}
	if n := tl.reserved(t); n != 0 {
		t.Fatalf("refused JWTs reserved %d seats", n)
	}
	if c := tl.seat(t, tl.get(join, "192.0.2.1:1000", "Bearer "+valid)); c.Client != 7 || c.Name != "ann" {
		t.Fatalf("a valid JWT's token: client %d name %q, want 7 ann", c.Client, c.Name)
	}
	// Within the clock skew of its expiry a JWT still works.
	late := signJWT(t, jwtSecret, jwt.RegisteredClaims{Subject: "8", ExpiresAt: jwt.NewNumericDate(now.Add(-MaxSkew / 2))})
	if c := tl.seat(t, tl.get(join, "192.0.2.2:1000", "Bearer "+late)); c.Client != 8 {
		t.Fatalf("client %d", c.Client)
	}
	// A player may not ask for someone else's client id.
	refusedWithoutToken(t, "a JWT naming another client", tl.get(join+"&client=9", "192.0.2.1:1000", "Bearer "+valid), http.StatusForbidden)
}

// One client id holds one reservation, however often it asks.
func TestAClientHoldsOneSeat(t *testing.T) {
	tl := newTestLobby(t, 4)
	tl.CallerRate = Rate{PerSecond: 1, Burst: 10}
	valid := "Bearer " + playerJWT(t, "7", tl.clock.Now())
	for range 4 {
		tl.seat(t, tl.get(join, "192.0.2.1:1000", valid))
	}
	if n := tl.reserved(t); n != 1 {
		t.Fatalf("four asks of one client id hold %d seats, want 1", n)
	}
}

// The JWT check takes only its audience when given one.
func TestJWTAudience(t *testing.T) {
	now := time.Now()
	j, err := NewJWT(JWTConfig{Secret: jwtSecret, Audience: "arena-lobby"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		aud []string
		ok  bool
	}{{nil, false}, {[]string{"other"}, false}, {[]string{"other", "arena-lobby"}, true}} {
		r := httptest.NewRequest(http.MethodGet, join, nil)
		r.Header.Set("Authorization", "Bearer "+signJWT(t, jwtSecret, jwt.RegisteredClaims{Subject: "7", Audience: tc.aud, ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))}))
		_, err := j.Authenticate(r)
		if (err == nil) != tc.ok {
			t.Errorf("aud %q: %v", tc.aud, err)
		}
	}
	if _, err := NewJWT(JWTConfig{Secret: []byte("short")}); err == nil {
		t.Error("a 5-byte JWT secret was taken")
	}
}

// A request the backend signed gets a seat, once, for the client id it
// names; a replay (to this lobby or another on the same Redis), a request
// altered after signing, one signed too long ago or with another secret,
// and ill-formed signatures get 401.
func TestSignedRequests(t *testing.T) {
	tl := newTestLobby(t, 4)
	target := join + "&client=42"
	first := tl.signed(t, target, "nonce-0000000001")
	replay := first.Clone(context.Background())
	if c := tl.seat(t, tl.do(first)); c.Client != 42 {
		t.Fatalf("the signed request's token is for client %d, want 42", c.Client)
	}
	refusedWithoutToken(t, "a replay", tl.do(replay), http.StatusUnauthorized)
	other := newTestLobbyOn(t, tl.rdb, 0)
	refusedWithoutToken(t, "a replay to another lobby", other.do(replay.Clone(context.Background())), http.StatusUnauthorized)

	altered := tl.signed(t, target, "nonce-0000000002")
	altered.URL.RawQuery = strings.Replace(altered.URL.RawQuery, "client=42", "client=43", 1)
	altered.RequestURI = altered.URL.RequestURI()
	refusedWithoutToken(t, "a request altered after signing", tl.do(altered), http.StatusUnauthorized)

	old := tl.signed(t, target, "nonce-0000000003")
	tl.clock.Advance(MaxSkew + time.Second)
	refusedWithoutToken(t, "a request signed too long ago", tl.do(old), http.StatusUnauthorized)
	tl.clock.Advance(-2 * (MaxSkew + time.Second))
	refusedWithoutToken(t, "a request signed in the future", tl.do(old.Clone(context.Background())), http.StatusUnauthorized)
	tl.clock.Advance(MaxSkew + time.Second)

	forged := httptest.NewRequest(http.MethodGet, target, nil)
	SignRequest(forged, []byte("another-secret-another-secret-another"), tl.clock.Now(), "nonce-0000000004")
	refusedWithoutToken(t, "a request signed with another secret", tl.do(forged), http.StatusUnauthorized)

	ts := strconv.FormatInt(tl.clock.Now().Unix(), 10)
	sig := strings.Repeat("ab", 32)
	for _, h := range []string{
		HMACScheme,
		HMACScheme + " t=" + ts + ", n=nonce-0000000005",
		HMACScheme + " t=" + ts + ", n=nonce-0000000005, sig=" + strings.ToUpper(sig),
		HMACScheme + " t=" + ts + ", n=short, sig=" + sig,
		HMACScheme + " t=-" + ts + ", n=nonce-0000000005, sig=" + sig,
		HMACScheme + " t=" + ts + ", t=" + ts + ", n=nonce-0000000005, sig=" + sig,
		HMACScheme + " t=" + ts + ", n=nonce-0000000005, sig=" + sig + ", x=1",
		HMACScheme + " t=" + ts + ", n=nonce 0000000005, sig=" + sig,
	} {
		refusedWithoutToken(t, h, tl.get(target, "192.0.2.1:1000", h), http.StatusUnauthorized)
	}
	if n := tl.reserved(t); n != 1 {
		t.Fatalf("%d seats reserved, want the one signed request's", n)
	}
	// Signed requests naming no client id get a random one each.
	a := tl.seat(t, tl.do(tl.signed(t, join, "nonce-0000000006")))
	b := tl.seat(t, tl.do(tl.signed(t, join, "nonce-0000000007")))
	if a.Client == b.Client || a.Client == 0 {
		t.Fatalf("two anonymous seats of the backend: clients %d and %d", a.Client, b.Client)
	}
}

// A caller over its limit, or an address over its own, gets 429 with a
// Retry-After, and a seat again once that time has passed; the backend's
// address is not limited.
func TestOverTheLimitGets429(t *testing.T) {
	tl := newTestLobby(t, 100)
	tl.CallerRate, tl.AddrRate = Rate{PerSecond: 0.5, Burst: 2}, Rate{PerSecond: 1, Burst: 3}
	ann := "Bearer " + playerJWT(t, "7", tl.clock.Now())
	for range 2 {
		tl.seat(t, tl.get(join, "192.0.2.1:1000", ann))
	}
	a := tl.get(join, "192.0.2.2:1000", ann) // another address: the caller's limit
	refusedWithoutToken(t, "the caller's third request", a, http.StatusTooManyRequests)
	if got := a.header.Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After %q, want 2 (one reservation a 2 s)", got)
	}
	tl.clock.Advance(2 * time.Second)
	tl.seat(t, tl.get(join, "192.0.2.2:1000", ann))

	// One address, many callers: its bucket holds 3, one of which
	// 192.0.2.2 has used.
	for i := range 2 {
		tl.seat(t, tl.get(join, "192.0.2.2:1000", "Bearer "+playerJWT(t, strconv.Itoa(100+i), tl.clock.Now())))
	}
	a = tl.get(join, "192.0.2.2:1000", "Bearer "+playerJWT(t, "200", tl.clock.Now()))
	refusedWithoutToken(t, "the address's fourth request", a, http.StatusTooManyRequests)
	if got := a.header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After %q, want 1", got)
	}
	// An IPv6 address counts against its /64.
	for i := range 3 {
		tl.seat(t, tl.get(join, fmt.Sprintf("[2001:db8::%d]:1000", i+1), "Bearer "+playerJWT(t, strconv.Itoa(300+i), tl.clock.Now())))
	}
	refusedWithoutToken(t, "a fourth address of one /64", tl.get(join, "[2001:db8::ff]:1000", "Bearer "+playerJWT(t, "400", tl.clock.Now())), http.StatusTooManyRequests)

	// The backend asks for many players from one address.
	for i := range 10 {
		tl.seat(t, tl.do(tl.signed(t, join+"&client="+strconv.Itoa(500+i), fmt.Sprintf("nonce-limit-%06d", i))))
	}
	// It is limited per client id it names all the same.
	for i := range 3 {
		a = tl.do(tl.signed(t, join+"&client=600", fmt.Sprintf("nonce-again-%06d", i)))
	}
	refusedWithoutToken(t, "the backend's third ask for one client", a, http.StatusTooManyRequests)
}

// deadRedis is a client of a Redis that is not there: a port nothing
// listens on.
func deadRedis(t *testing.T) *redis.Client {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	return c
}

// With Redis down the lobby answers 503 with a plain sentence that names
// no address, for a JWT's request and for a signed one (whose replay
// check is in Redis); /readyz fails and /healthz does not.
func TestRedisDownAnswersPlainly(t *testing.T) {
	rdb := deadRedis(t)
	tl := newTestLobbyOn(t, rdb, 0)
	port := rdb.Options().Addr[strings.LastIndex(rdb.Options().Addr, ":")+1:]
	for what, r := range map[string]*http.Request{
		"a JWT's request": func() *http.Request {
			r := httptest.NewRequest(http.MethodGet, join, nil)
			r.Header.Set("Authorization", "Bearer "+playerJWT(t, "7", tl.clock.Now()))
			return r
		}(),
		"a signed request": tl.signed(t, join, "nonce-0000000001"),
	} {
		a := tl.do(r)
		if a.status != http.StatusServiceUnavailable || a.header.Get("Retry-After") == "" {
			t.Errorf("%s: answered %d (Retry-After %q), want 503 with a Retry-After", what, a.status, a.header.Get("Retry-After"))
		}
		if strings.Contains(a.body, "127.0.0.1") || strings.Contains(a.body, port) || strings.Contains(a.body, "dial") || strings.Count(a.body, "\n") != 1 {
			t.Errorf("%s: the body gives away the internals: %q", what, a.body)
		}
	}
	if a := tl.get("/readyz", "192.0.2.1:1", ""); a.status != http.StatusServiceUnavailable || strings.Contains(a.body, port) {
		t.Errorf("/readyz: %d %q", a.status, a.body)
	}
	if a := tl.get("/healthz", "192.0.2.1:1", ""); a.status != http.StatusOK {
		t.Errorf("/healthz: %d %q", a.status, a.body)
	}
	if !strings.Contains(tl.get("/metrics", "192.0.2.1:1", "").body, "vkm_lobby_redis_errors_total 3") {
		t.Error("/metrics does not count the three Redis failures")
	}
}

// /metrics counts requests by outcome, reservations and auth failures.
func TestLobbyMetrics(t *testing.T) {
	tl := newTestLobby(t, 1)
	tl.get(join, "192.0.2.1:1", "")
	tl.get(join, "192.0.2.1:1", "Bearer x.y.z")
	tl.seat(t, tl.get(join, "192.0.2.1:1", "Bearer "+playerJWT(t, "7", tl.clock.Now())))
	tl.get(join, "192.0.2.1:1", "Bearer "+playerJWT(t, "8", tl.clock.Now())) // one seat: none free
	tl.get("/join?name=ann", "192.0.2.1:1", "Bearer "+playerJWT(t, "9", tl.clock.Now()))
	if a := tl.get(join, "192.0.2.1:1", ""); a.status != http.StatusUnauthorized {
		t.Fatal(a.status)
	}
	if a := tl.do(httptest.NewRequest(http.MethodPost, join, nil)); a.status != http.StatusMethodNotAllowed {
		t.Errorf("POST /join: %d", a.status)
	}
	body := tl.get("/metrics", "192.0.2.1:1", "").body
	for _, want := range []string{
		`vkm_lobby_requests_total{outcome="seat"} 1`,
		`vkm_lobby_requests_total{outcome="no_seat"} 1`,
		`vkm_lobby_requests_total{outcome="unauthorized"} 3`,
		`vkm_lobby_requests_total{outcome="bad_request"} 2`,
		`vkm_lobby_requests_total{outcome="limited"} 0`,
		`vkm_lobby_reservations_total 1`,
		`vkm_lobby_auth_failures_total{reason="missing"} 2`,
		`vkm_lobby_auth_failures_total{reason="malformed"} 1`,
		`vkm_lobby_redis_errors_total 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// A query the lobby cannot use is 400 with a sentence saying why.
func TestBadQueries(t *testing.T) {
	tl := newTestLobby(t, 4)
	auth := "Bearer " + playerJWT(t, "7", tl.clock.Now())
	for _, q := range []string{
		"/join?name=ann",
		join + "&protocol=x",
		join + "&protocol=-1",
		join + "&skip=nowhere",
		join + strings.Repeat("&skip=127.0.0.1:1", MaxSkip+1),
		join + "&client=0",
		join + "&client=7&client=7",
		join + "&name=" + strings.Repeat("a", maxQuery),
	} {
		if a := tl.get(q, "192.0.2.1:1", auth); a.status != http.StatusBadRequest || strings.Count(a.body, "\n") != 1 {
			t.Errorf("%.60s: %d %q", q, a.status, a.body)
		}
	}
}

// A server that leaves the directory (its drain's first act) is never
// handed out again, not by a heartbeat still under way nor by a change of
// its players after.
func TestAServerThatLeftIsNotHandedOut(t *testing.T) {
	tl := newTestLobby(t, 0)
	r, err := Register(context.Background(), tl.rdb, Server{Addr: "127.0.0.1:4000", Project: "arena", Seats: 4}, time.Millisecond, TTL)
	if err != nil {
		t.Fatal(err)
	}
	auth := "Bearer " + playerJWT(t, "7", tl.clock.Now())
	tl.seat(t, tl.get(join, "192.0.2.1:1", auth))
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r.SetPlayers(1)
	refusedWithoutToken(t, "after it left", tl.get(join, "192.0.2.1:1", auth), http.StatusServiceUnavailable)
	if ss, _ := tl.Dir.Servers(context.Background(), "arena"); len(ss) != 0 {
		t.Fatalf("the directory still lists %+v", ss)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
}

// Reserve passes over the servers a client skips.
func TestReservePassesOverSkippedServers(t *testing.T) {
	rdb := open(t, redistest.Start(t))
	d := NewDirectory(rdb)
	a := register(t, rdb, "127.0.0.1:4000", 4, TTL)
	defer a.Close()
	b := register(t, rdb, "127.0.0.1:4001", 4, TTL)
	defer b.Close()
	a.SetPlayers(3)
	waitPlayers(t, d, "127.0.0.1:4000", 3)
	until := time.Now().Add(time.Minute)
	skip := []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:4000")}
	if got, err := d.Reserve(context.Background(), Want{Project: "arena", Skip: skip}, 0, until); err != nil || got != "127.0.0.1:4001" {
		t.Fatalf("skipping the fullest: %q, %v", got, err)
	}
	skip = append(skip, netip.MustParseAddrPort("127.0.0.1:4001"))
	if _, err := d.Reserve(context.Background(), Want{Project: "arena", Skip: skip}, 0, until); !errors.Is(err, ErrNoSeat) {
		t.Fatalf("skipping both: %v", err)
	}
}

// lobbyAnswers is a lobby that gives the statuses and Retry-Afters in
// turn, then a seat.
func lobbyAnswers(t *testing.T, answers ...[2]string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var key token.Key
	addr := netip.MustParseAddrPort("127.0.0.1:4000")
	now := time.Now()
	tok, err := token.Mint(&key, token.Claims{Protocol: 1, Client: 2, Expires: now.Add(time.Hour), Servers: []netip.AddrPort{addr}}, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := tok.MarshalText()
	asked := new(atomic.Int32)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(asked.Add(1)) - 1
		if n < len(answers) {
			code, _ := strconv.Atoi(answers[n][0])
			if answers[n][1] != "" {
				w.Header().Set("Retry-After", answers[n][1])
			}
			http.Error(w, "join: not now\x1b[2J", code)
			return
		}
		fmt.Fprintf(w, `{"addr":"127.0.0.1:4000","token":"%s"}`, text)
	}))
	t.Cleanup(ts.Close)
	return ts, asked
}

// The client waits out a Retry-After of a 429 or a 503 and asks again, a
// bounded number of times; it gives up at once on a wait over its bound
// or an answer that waiting does not change.
func TestJoinHonoursRetryAfter(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		what    string
		answers [][2]string
		waits   []time.Duration
		status  int // 0: a seat
	}{
		{"429 then 503", [][2]string{{"429", "2"}, {"503", "1"}}, []time.Duration{2 * time.Second, time.Second}, 0},
		{"an HTTP date", [][2]string{{"429", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}}, nil, 429},
		{"a date past", [][2]string{{"503", "Mon, 02 Jan 2006 15:04:05 GMT"}}, []time.Duration{0}, 0},
		{"always 429", [][2]string{{"429", "1"}, {"429", "1"}, {"429", "1"}, {"429", "1"}, {"429", "1"}}, []time.Duration{time.Second, time.Second, time.Second}, 429},
		{"too long to wait", [][2]string{{"429", "3600"}}, nil, 429},
		{"401", [][2]string{{"401", "1"}}, nil, 401},
		{"503 without Retry-After", [][2]string{{"503", ""}}, nil, 503},
		{"garbage Retry-After", [][2]string{{"503", "soon"}}, nil, 503},
	} {
		ts, asked := lobbyAnswers(t, tc.answers...)
		var waits []time.Duration
		c := &LobbyClient{URL: ts.URL, Wait: func(_ context.Context, d time.Duration) error {
			waits = append(waits, d)
			return nil
		}}
		_, _, err := c.Join(ctx, Want{Project: "arena"}, "ann")
		var le *LobbyError
		switch {
		case tc.status == 0 && err != nil:
			t.Errorf("%s: %v", tc.what, err)
		case tc.status != 0 && (!errors.As(err, &le) || le.Status != tc.status):
			t.Errorf("%s: %v, want a %d", tc.what, err, tc.status)
		case le != nil && strings.ContainsAny(le.Message, "\x1b\n"):
			t.Errorf("%s: the lobby's message is printed raw: %q", tc.what, le.Message)
		}
		if fmt.Sprint(waits) != fmt.Sprint(tc.waits) {
			t.Errorf("%s: waited %v, want %v", tc.what, waits, tc.waits)
		}
		if want := len(tc.waits) + 1; int(asked.Load()) != want {
			t.Errorf("%s: asked %d times, want %d", tc.what, asked.Load(), want)
		}
	}
	// A wait ends with its context: here the context ends as the lobby
	// answers its 429, so the client's timer of 5 s never fires.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cancel()
		w.Header().Set("Retry-After", "5")
		http.Error(w, "join: slow down", http.StatusTooManyRequests)
	}))
	defer ts.Close()
	_, _, err := (&LobbyClient{URL: ts.URL}).Join(cctx, Want{Project: "arena"}, "ann")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a Join whose context ended as it waited: %v", err)
	}
}

// The signature of docs/protocol.md's vector ("A lobby's answer"), which
// openssl dgst -sha256 -hmac also gives.
func TestHMACVector(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/join?project=arena&name=ann&client=7", nil)
	if err := SignRequest(r, []byte("an example secret of 32 bytes ok"), time.Unix(1_800_000_000, 0), "0123456789abcdef"); err != nil {
		t.Fatal(err)
	}
	const want = HMACScheme + " t=1800000000, n=0123456789abcdef, sig=3cc88fc4ac35e1666ddc0a5de3cd10bb41d16b38cd81404fee6201c1aefe12ad"
	if got := r.Header.Get("Authorization"); got != want {
		t.Fatalf("Authorization: %s\nwant           %s", got, want)
	}
}

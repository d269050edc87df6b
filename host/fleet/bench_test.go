package fleet

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"vkm/internal/redistest"
	"vkm/transport/token"
)

// BenchmarkJWTCheck is the cost of verifying one player's JWT: what every
// /join of a player pays before its Redis round trip.
func BenchmarkJWTCheck(b *testing.B) {
	now := time.Unix(1_800_000_000, 0)
	j, err := NewJWT(JWTConfig{Secret: jwtSecret, Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodGet, "/join?project=arena&name=ann", nil)
	r.Header.Set("Authorization", "Bearer "+playerJWT(b, "7", now))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := j.Authenticate(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHMACCheck is the cost of verifying one signed request of the
// backend, less the Redis command that remembers it (an in-memory Seen
// here).
func BenchmarkHMACCheck(b *testing.B) {
	now := time.Unix(1_800_000_000, 0)
	h := &HMAC{Secret: hmacSecret, Seen: &memSeen{}, Now: func() time.Time { return now }}
	reqs := make([]*http.Request, 1<<16)
	for i := range reqs {
		reqs[i] = httptest.NewRequest(http.MethodGet, "/join?project=arena&name=ann&client=7", nil)
		SignRequest(reqs[i], hmacSecret, now, fmt.Sprintf("bench-nonce-%08d", i))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == len(reqs) {
			b.StopTimer()
			h.Seen, i = &memSeen{}, 0
			b.StartTimer()
		}
		if _, err := h.Authenticate(reqs[i]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkRateLimit is the cost of the two token buckets a player's
// reservation takes from, over 10,000 callers on 1,000 addresses.
func BenchmarkRateLimit(b *testing.B) {
	callers, addrs := newBuckets(Rate{PerSecond: 1e9, Burst: 1e9}, maxBuckets), newBuckets(Rate{PerSecond: 1e9, Burst: 1e9}, maxBuckets)
	keys := make([]string, 10_000)
	for i := range keys {
		keys[i] = fmt.Sprintf("jwt:%d", i)
	}
	now := time.Unix(1_800_000_000, 0)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		callers.take(keys[i%len(keys)], now)
		addrs.take(keys[i%1000], now)
		i++
	}
}

// BenchmarkJoin is one whole /join of a player with a JWT against a local
// Redis: the check, the limits, the reservation's script, the token's
// minting and the answer. (One client id asks throughout, so it holds one
// seat however many times it asks.)
func BenchmarkJoin(b *testing.B) {
	rdb := open(b, redistest.Start(b))
	r, err := Register(context.Background(), rdb, Server{Addr: "127.0.0.1:4000", Project: "arena", Seats: 4}, time.Hour, TTL)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	j, err := NewJWT(JWTConfig{Secret: jwtSecret})
	if err != nil {
		b.Fatal(err)
	}
	var key token.Key
	l := &Lobby{Dir: NewDirectory(rdb), Key: &key, Life: time.Minute, Checks: []Check{j},
		CallerRate: Rate{PerSecond: 1e9, Burst: 1e9}, AddrRate: Rate{PerSecond: 1e9, Burst: 1e9}}
	req := httptest.NewRequest(http.MethodGet, "/join?project=arena&name=ann", nil)
	req.Header.Set("Authorization", "Bearer "+playerJWT(b, "7", time.Now()))
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		l.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

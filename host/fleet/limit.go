package fleet

import (
	"math"
	"net/netip"
	"sync"
	"time"
)

// Rate is a token bucket's shape: it holds Burst tokens at most, one taken
// for each reservation, and refills at PerSecond.
type Rate struct {
	PerSecond float64
	Burst     int
}

// The rates a Lobby limits reservations to when its Limits are zero.
// Tuning constants: a player (a JWT's client id) may ask three times in a
// row (a client that found its server silent asks again) and then once
// every 5 s; one address, which may be a household or a café behind one
// NAT, may ask 20 times in a row and then twice a second.
var (
	DefaultCallerRate = Rate{PerSecond: 0.2, Burst: 3}
	DefaultAddrRate   = Rate{PerSecond: 2, Burst: 20}
)

// maxBuckets bounds how many callers or addresses a lobby keeps buckets
// for. A bucket that has refilled is forgotten when the set is full (it
// is the same as a new one); if none has, a newcomer is refused until one
// does, rather than the lobby's memory growing with every address an
// attacker can send from. Tuning constant: 100,000 buckets are about 10 MB.
const maxBuckets = 100_000

// buckets is a set of token buckets of one Rate, by key. Safe for
// concurrent use; the zero value is not usable (newBuckets).
type buckets struct {
	rate Rate
	max  int

	mu sync.Mutex
	m  map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time // when tokens was counted
}

func newBuckets(r Rate, limit int) *buckets {
	return &buckets{rate: r, max: limit, m: make(map[string]*bucket)}
}

// take takes a token from key's bucket at now. When there is none it
// takes nothing and says how long until there is one.
func (b *buckets) take(key string, now time.Time) (ok bool, wait time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k, found := b.m[key]
	if !found {
		if len(b.m) >= b.max {
			b.sweepLocked(now)
		}
		if len(b.m) >= b.max {
			return false, b.refill(1)
		}
		k = &bucket{tokens: float64(b.rate.Burst), at: now}
		b.m[key] = k
	}
	b.fillLocked(k, now)
	if k.tokens < 1 {
		return false, b.refill(1 - k.tokens)
	}
	k.tokens--
	return true, 0
}

// fillLocked adds to k what the rate has refilled since it was counted.
// A clock that went backwards refills nothing.
func (b *buckets) fillLocked(k *bucket, now time.Time) {
	if d := now.Sub(k.at); d > 0 {
		k.tokens = math.Min(float64(b.rate.Burst), k.tokens+d.Seconds()*b.rate.PerSecond)
		k.at = now
	}
}

// sweepLocked forgets every bucket that has refilled by now.
func (b *buckets) sweepLocked(now time.Time) {
	for key, k := range b.m {
		if b.fillLocked(k, now); k.tokens >= float64(b.rate.Burst) {
			delete(b.m, key)
		}
	}
}

// refill is how long the rate takes to refill n tokens.
func (b *buckets) refill(n float64) time.Duration {
	if b.rate.PerSecond <= 0 {
		return time.Hour
	}
	return time.Duration(n / b.rate.PerSecond * float64(time.Second))
}

// addrKey is the bucket an address counts against: an IPv4 address, or
// an IPv6 address's /64 (one host's or one household's whole allocation,
// which it can move within at will).
func addrKey(a netip.Addr) string {
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// retryAfter is the Retry-After header's value for a wait: whole seconds,
// rounded up, at least 1.
func retryAfter(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

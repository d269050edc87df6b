package fleet

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"vkm/transport/token"
)

// FuzzParseSeat feeds the lobby's answer decoder arbitrary bytes: it must
// not panic, and what it accepts names an address its token is good for.
func FuzzParseSeat(f *testing.F) {
	var key token.Key
	addr := netip.MustParseAddrPort("127.0.0.1:4000")
	now := time.Unix(1_800_000_000, 0)
	tok, err := token.Mint(&key, token.Claims{Protocol: 1, Client: 2, Expires: now.Add(time.Hour), Servers: []netip.AddrPort{addr}, Name: "ann"}, now, nil)
	if err != nil {
		f.Fatal(err)
	}
	text, _ := tok.MarshalText()
	f.Add([]byte(`{"addr":"127.0.0.1:4000","token":"` + string(text) + `"}`))
	f.Add([]byte(`{"addr":"127.0.0.1:4001","token":"` + string(text) + `"}`))
	f.Add([]byte(`{"addr":"x","token":""}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, tok, err := ParseSeat(b)
		if err != nil {
			return
		}
		for _, s := range tok.Servers {
			if s == a {
				return
			}
		}
		t.Fatalf("accepted %v, which its token does not name", a)
	})
}

// memSeen is a Seen in memory, for the fuzz targets and benchmarks that run
// the HMAC check without a Redis.
type memSeen struct {
	mu sync.Mutex
	m  map[string]bool
}

func (s *memSeen) Once(_ context.Context, key string, _ time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]bool{}
	}
	if s.m[key] {
		return false, nil
	}
	s.m[key] = true
	return true, nil
}

// FuzzParseHMAC feeds the signed request's header parser arbitrary text:
// it must not panic, and what it accepts has a nonce and a time it
// checked, and writes back as a header that parses the same.
func FuzzParseHMAC(f *testing.F) {
	r := httptest.NewRequest(http.MethodGet, "/join?project=arena&name=ann&client=7", nil)
	SignRequest(r, hmacSecret, time.Unix(1_800_000_000, 0), "nonce-0123456789")
	f.Add(r.Header.Get("Authorization"))
	f.Add(HMACScheme + " sig=" + strings.Repeat("0", 64) + ",n=abcdefghijklmnop,t=1")
	f.Add(HMACScheme + " t=1, t=2")
	f.Add(HMACScheme + "  t=00000000001 ,n=" + strings.Repeat("_", 64) + ", sig=")
	f.Add("Bearer abc")
	f.Fuzz(func(t *testing.T, h string) {
		sr, err := parseHMAC(h)
		if err != nil {
			var ae *AuthError
			if !errors.As(err, &ae) || ae.Reason != authMalformed {
				t.Fatalf("a parse failure that is not malformed: %v", err)
			}
			return
		}
		if !validNonce(sr.n) || sr.t < 0 {
			t.Fatalf("accepted nonce %q, time %d", sr.n, sr.t)
		}
		again, err := parseHMAC(fmt.Sprintf("%s t=%d, n=%s, sig=%x", HMACScheme, sr.t, sr.n, sr.sig))
		if err != nil || again != sr {
			t.Fatalf("%q parsed as %+v, which writes back as %+v, %v", h, sr, again, err)
		}
	})
}

// FuzzAuthorization runs both checks on an arbitrary Authorization header
// and request target: no panic, every refusal an *AuthError, and nothing
// accepted but what was signed (the seeds' own valid credentials).
func FuzzAuthorization(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	clk := func() time.Time { return now }
	j, err := NewJWT(JWTConfig{Secret: jwtSecret, Now: clk})
	if err != nil {
		f.Fatal(err)
	}
	const target = "/join?project=arena&name=ann"
	r := httptest.NewRequest(http.MethodGet, target, nil)
	SignRequest(r, hmacSecret, now, "nonce-0123456789")
	f.Add(r.Header.Get("Authorization"), target)
	f.Add("Bearer "+playerJWT(f, "7", now), target)
	f.Add("Bearer "+signJWT(f, jwtSecret, jwt.MapClaims{"sub": 7, "exp": "soon"}), target)
	f.Add("Bearer e30.e30.", "/")
	f.Add("bearer  a.b.c", "/join?client=1")
	f.Fuzz(func(t *testing.T, h, target string) {
		if !strings.HasPrefix(target, "/") {
			target = "/" + target
		}
		u, err := url.ParseRequestURI(target)
		if err != nil {
			return
		}
		r := &http.Request{Method: http.MethodGet, URL: u, RequestURI: target, Header: http.Header{"Authorization": {h}}}
		r = r.WithContext(context.Background())
		for _, c := range []Check{&HMAC{Secret: hmacSecret, Seen: &memSeen{}, Now: clk}, j} {
			caller, err := c.Authenticate(r)
			var ae *AuthError
			if err != nil && !errors.As(err, &ae) {
				t.Fatalf("%s: %v is not an AuthError", c.Scheme(), err)
			}
			if err == nil && !caller.Trusted && caller.Client == 0 {
				t.Fatalf("%s: accepted %+v, who is no one", c.Scheme(), caller)
			}
		}
	})
}

// FuzzParseRetryAfter feeds the client's Retry-After reader arbitrary
// text: no panic, and a wait it reads is between 0 and its bound.
func FuzzParseRetryAfter(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	for _, s := range []string{"1", "0", "120", "99999999999999999999", " 3 ", "-1", "1.5",
		now.Add(time.Minute).UTC().Format(http.TimeFormat), "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := parseRetryAfter(s, now)
		if d < 0 || d > maxRetryAfter || !ok && d != 0 {
			t.Fatalf("%q: %v, %v", s, d, ok)
		}
	})
}

// FuzzJoinQuery feeds /join's query reader arbitrary queries: no panic,
// and what it accepts names a project and skips at most MaxSkip servers.
func FuzzJoinQuery(f *testing.F) {
	f.Add("project=arena&name=ann&fingerprint=ab-cd&protocol=4&skip=127.0.0.1:4000&skip=[::1]:5&client=7")
	f.Add("project=arena&client=18446744073709551616")
	f.Add("project=%zz&name=%00")
	f.Add("skip=1.2.3.4:5")
	f.Fuzz(func(t *testing.T, raw string) {
		r := &http.Request{URL: &url.URL{Path: "/join", RawQuery: raw}}
		q, err := parseJoinQuery(r)
		if err != nil {
			return
		}
		if q.want.Project == "" || len(q.want.Skip) > MaxSkip || q.want.Protocol < 0 {
			t.Fatalf("accepted %+v", q)
		}
	})
}

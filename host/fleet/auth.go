package fleet

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Caller is who a lobby's request comes from, as a Check found it.
type Caller struct {
	// Key names the caller for its rate limit and the log: "jwt:<sub>"
	// for a player's JWT. Empty means the caller has no bucket of its own
	// (an anonymous caller, or the game's backend asking for no player in
	// particular); the per-address limit still applies unless Trusted.
	Key string
	// Client is the client id the token is minted for; 0 lets the lobby
	// draw one, or take the one a Trusted caller names in the query.
	Client uint64
	// Trusted marks the game's backend, which asks for many players from
	// one address: it may name the client id (?client=N), and the
	// per-address limit does not apply to it.
	Trusted bool
}

// A Check authenticates a lobby's caller from its request. The Lobby picks
// the Check whose Scheme the request's Authorization header names; a
// request naming none of them is refused with 401.
//
// Authenticate returns the caller, or an *AuthError (401: the request is
// not authentic), or another error when it could not tell (the directory
// it keeps replays in did not answer: 503).
type Check interface {
	Scheme() string
	Authenticate(r *http.Request) (Caller, error)
}

// AuthError is a Check's refusal: the request is not authentic. Reason is
// one of a fixed set of snake_case words (the auth failures metric's
// label); the sentence is what the lobby answers with its 401.
type AuthError struct {
	Reason string
	msg    string
}

func (e *AuthError) Error() string { return "fleet: " + e.msg }

func authError(reason, format string, args ...any) *AuthError {
	return &AuthError{Reason: reason, msg: fmt.Sprintf(format, args...)}
}

// The reasons an AuthError gives.
const (
	authMissing   = "missing"       // no Authorization header
	authScheme    = "scheme"        // a scheme no Check reads
	authMalformed = "malformed"     // the credentials do not parse
	authSignature = "bad_signature" // the signature does not verify
	authExpired   = "expired"       // a JWT past its exp, or not yet valid
	authSkew      = "clock_skew"    // a signed request's time is too far from ours
	authReplayed  = "replayed"      // a signed request seen before
	authSubject   = "bad_subject"   // a JWT whose sub is not a client id
	authClaims    = "bad_claims"    // a JWT's audience, issuer or other claims refused
)

// authReasons lists every reason, for the metric's labels.
var authReasons = []string{authMissing, authScheme, authMalformed, authSignature, authExpired, authSkew, authReplayed, authSubject, authClaims}

// MaxSkew is how far a caller's clock may be from the lobby's: a signed
// request's time may be this far in the past or the future, and a JWT's
// exp, nbf and iat are judged with this leeway. Tuning constant: NTP keeps
// servers within milliseconds; half a minute forgives a backend whose
// clock is not disciplined without letting a captured request live long.
const MaxSkew = 30 * time.Second

// MinSecret is the shortest secret the lobby's checks take, in bytes:
// HS256's key should be at least as long as its hash (RFC 7518, 3.2).
const MinSecret = 32

// HMACScheme is the Authorization scheme of a request the game's backend
// signs with the secret it shares with the lobby:
//
//	Authorization: VKM-HMAC-SHA256 t=<unix seconds>, n=<nonce>, sig=<hex>
//
// sig is the lowercase hex HMAC-SHA256, under the secret, of
//
//	"VKM-HMAC-SHA256\n" + METHOD + "\n" + TARGET + "\n" + t + "\n" + n
//
// where TARGET is the request target as sent (the path and, if any, "?"
// and the query: "/join?project=arena&name=ann&client=7"). t is within
// MaxSkew of the lobby's clock; n is 16 to 64 characters of A–Z a–z 0–9
// "-" "_", fresh for every request; a signature is accepted once (lobbies
// sharing a Redis remember it there until t + MaxSkew has passed).
// SignRequest does all this for a Go backend.
const HMACScheme = "VKM-HMAC-SHA256"

// The bounds of a signed request's nonce, in characters.
const (
	minNonce = 16
	maxNonce = 64
)

// maxCredentials bounds the Authorization header a check reads: a JWT of
// a few claims is a few hundred bytes.
const maxCredentials = 4096

// Seen remembers what must not be accepted twice. Once reports whether key
// is new, and remembers it until until; lobbies sharing one Seen refuse a
// replay sent to any of them. Directory is one, in Redis.
type Seen interface {
	Once(ctx context.Context, key string, until time.Time) (bool, error)
}

// HMAC is the Check of requests the game's backend signs (HMACScheme). Its
// callers are Trusted. Safe for concurrent use once made.
type HMAC struct {
	// Secret is the shared secret, at least MinSecret bytes.
	Secret []byte
	// Seen remembers accepted signatures (required: a Check without it
	// would take replays).
	Seen Seen
	// Now is the lobby's clock; nil means time.Now.
	Now func() time.Time
}

var _ Check = (*HMAC)(nil)

// Scheme is HMACScheme.
func (h *HMAC) Scheme() string { return HMACScheme }

// Authenticate verifies the request's signature, its time and that it was
// not seen before.
func (h *HMAC) Authenticate(r *http.Request) (Caller, error) {
	sr, err := parseHMAC(r.Header.Get("Authorization"))
	if err != nil {
		return Caller{}, err
	}
	now := clock(h.Now)()
	at := time.Unix(sr.t, 0)
	if d := now.Sub(at); d > MaxSkew || d < -MaxSkew {
		return Caller{}, authError(authSkew, "the signed request's time is %v from the lobby's (at most %v)", d.Round(time.Second), MaxSkew)
	}
	want := hmacSum(h.Secret, r.Method, requestTarget(r), sr.t, sr.n)
	if !hmac.Equal(want[:], sr.sig[:]) {
		return Caller{}, authError(authSignature, "the request's signature does not verify")
	}
	if h.Seen == nil {
		return Caller{}, errors.New("fleet: the HMAC check has nowhere to remember signatures")
	}
	fresh, err := h.Seen.Once(r.Context(), "hmac:"+hex.EncodeToString(sr.sig[:]), at.Add(MaxSkew+time.Second))
	if err != nil {
		return Caller{}, err
	}
	if !fresh {
		return Caller{}, authError(authReplayed, "the signed request was seen before")
	}
	return Caller{Trusted: true}, nil
}

// requestTarget is what a signature covers of the URL: the request target
// as it came on the request line (origin form), or, for a request made in
// this process, the one the client would send.
func requestTarget(r *http.Request) string {
	if strings.HasPrefix(r.RequestURI, "/") {
		return r.RequestURI
	}
	return r.URL.RequestURI()
}

func hmacSum(secret []byte, method, target string, t int64, nonce string) [sha256.Size]byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(HMACScheme + "\n" + method + "\n" + target + "\n" + strconv.FormatInt(t, 10) + "\n" + nonce))
	var sum [sha256.Size]byte
	m.Sum(sum[:0])
	return sum
}

// SignRequest signs req for a lobby that checks HMAC with secret, as at
// now, with nonce (16 to 64 characters of A–Z a–z 0–9 - _, fresh for each
// request): it sets req's Authorization header. Sign the request as it
// will be sent: a change to its method, path or query afterwards voids
// the signature.
func SignRequest(req *http.Request, secret []byte, now time.Time, nonce string) error {
	if !validNonce(nonce) {
		return fmt.Errorf("fleet: a nonce is %d to %d characters of A-Z a-z 0-9 - _", minNonce, maxNonce)
	}
	t := now.Unix()
	sum := hmacSum(secret, req.Method, req.URL.RequestURI(), t, nonce)
	req.Header.Set("Authorization", fmt.Sprintf("%s t=%d, n=%s, sig=%s", HMACScheme, t, nonce, hex.EncodeToString(sum[:])))
	return nil
}

// signedRequest is an HMACScheme header's parameters.
type signedRequest struct {
	t   int64
	n   string
	sig [sha256.Size]byte
}

// parseHMAC reads an Authorization header of HMACScheme: the scheme, a
// space, then t, n and sig once each, as name=value separated by commas
// and optional spaces, in any order. Anything else is malformed.
func parseHMAC(header string) (signedRequest, error) {
	var sr signedRequest
	scheme, params, ok := splitAuthorization(header)
	if !ok || !strings.EqualFold(scheme, HMACScheme) {
		return sr, authError(authMalformed, "the Authorization header is not %s t=..., n=..., sig=...", HMACScheme)
	}
	var seen [3]bool
	for p := range strings.SplitSeq(params, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			return sr, authError(authMalformed, "the signed request's parameter %.20q is not name=value", p)
		}
		var i int
		switch name {
		case "t":
			i = 0
			t, ok := parseUnix(value)
			if !ok {
				return sr, authError(authMalformed, "the signed request's t is not a time in unix seconds")
			}
			sr.t = t
		case "n":
			i = 1
			if !validNonce(value) {
				return sr, authError(authMalformed, "the signed request's n is not %d to %d characters of A-Z a-z 0-9 - _", minNonce, maxNonce)
			}
			sr.n = value
		case "sig":
			i = 2
			if len(value) != 2*sha256.Size || strings.ToLower(value) != value {
				return sr, authError(authMalformed, "the signed request's sig is not %d lowercase hex digits", 2*sha256.Size)
			}
			if _, err := hex.Decode(sr.sig[:], []byte(value)); err != nil {
				return sr, authError(authMalformed, "the signed request's sig is not %d lowercase hex digits", 2*sha256.Size)
			}
		default:
			return sr, authError(authMalformed, "the signed request has a parameter %.20q it does not define", name)
		}
		if seen[i] {
			return sr, authError(authMalformed, "the signed request gives %s twice", name)
		}
		seen[i] = true
	}
	if !seen[0] || !seen[1] || !seen[2] {
		return sr, authError(authMalformed, "the signed request needs t, n and sig")
	}
	return sr, nil
}

// splitAuthorization cuts an Authorization header into its scheme and the
// rest. A header longer than maxCredentials, or without a space after the
// scheme, is refused.
func splitAuthorization(header string) (scheme, rest string, ok bool) {
	if len(header) > maxCredentials {
		return "", "", false
	}
	scheme, rest, ok = strings.Cut(header, " ")
	return scheme, strings.TrimLeft(rest, " "), ok && scheme != ""
}

// parseUnix reads a time in unix seconds: 1 to 12 decimal digits, no sign.
func parseUnix(s string) (int64, bool) {
	if len(s) == 0 || len(s) > 12 {
		return 0, false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	t, err := strconv.ParseInt(s, 10, 64)
	return t, err == nil
}

func validNonce(s string) bool {
	if len(s) < minNonce || len(s) > maxNonce {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// JWT is the Check of a player's bearer JWT ("Authorization: Bearer
// <jwt>"), signed HS256 under Secret by the game's backend. Its subject
// (sub) is the player's client id in decimal, which the lobby mints the
// connect token for: a player gets tokens for its own id only. It needs
// exp, and checks aud when Audience is set. Safe for concurrent use once
// made with NewJWT.
type JWT struct {
	secret []byte
	parser *jwt.Parser
}

var _ Check = (*JWT)(nil)

// JWTConfig says what a JWT check accepts.
type JWTConfig struct {
	// Secret is the HS256 key, at least MinSecret bytes.
	Secret []byte
	// Audience, if set, must be among the token's aud.
	Audience string
	// Now is the lobby's clock; nil means time.Now.
	Now func() time.Time
}

// NewJWT returns the JWT check cfg describes.
func NewJWT(cfg JWTConfig) (*JWT, error) {
	if len(cfg.Secret) < MinSecret {
		return nil, fmt.Errorf("fleet: a JWT secret of %d bytes is too short (at least %d)", len(cfg.Secret), MinSecret)
	}
	opts := []jwt.ParserOption{jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithExpirationRequired(),
		jwt.WithLeeway(MaxSkew), jwt.WithTimeFunc(clock(cfg.Now)), jwt.WithIssuedAt()}
	if cfg.Audience != "" {
		opts = append(opts, jwt.WithAudience(cfg.Audience))
	}
	return &JWT{secret: cfg.Secret, parser: jwt.NewParser(opts...)}, nil
}

// Scheme is "Bearer".
func (j *JWT) Scheme() string { return "Bearer" }

// Authenticate verifies the bearer JWT and reads the client id from its
// subject.
func (j *JWT) Authenticate(r *http.Request) (Caller, error) {
	scheme, raw, ok := splitAuthorization(r.Header.Get("Authorization"))
	if !ok || !strings.EqualFold(scheme, "Bearer") || raw == "" {
		return Caller{}, authError(authMalformed, "the Authorization header is not Bearer <jwt>")
	}
	var claims jwt.RegisteredClaims
	_, err := j.parser.ParseWithClaims(raw, &claims, func(*jwt.Token) (any, error) { return j.secret, nil })
	switch {
	case errors.Is(err, jwt.ErrTokenExpired), errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return Caller{}, authError(authExpired, "the JWT is expired or not valid yet")
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
		return Caller{}, authError(authSignature, "the JWT's signature does not verify")
	case errors.Is(err, jwt.ErrTokenMalformed):
		return Caller{}, authError(authMalformed, "the JWT is malformed")
	case err != nil:
		return Caller{}, authError(authClaims, "the JWT is refused: its claims (exp, aud) are not what this lobby takes")
	}
	id, ok := parseClient(claims.Subject)
	if !ok {
		return Caller{}, authError(authSubject, "the JWT's subject is not a client id (a decimal number, not 0)")
	}
	return Caller{Key: "jwt:" + strconv.FormatUint(id, 10), Client: id}, nil
}

// parseClient reads a client id: decimal digits, no sign, not 0, fitting
// in 64 bits.
func parseClient(s string) (uint64, bool) {
	if s == "" || s[0] == '+' || s[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil && n != 0
}

func clock(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}

package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"vkm/transport/token"
)

// maxSeat bounds the answer Join reads: a Seat is a few hundred bytes.
const maxSeat = 4096

// The bounds LobbyClient keeps to when its fields are zero. Tuning
// constants: a lobby says Retry-After 1 when no seat is free and a few
// seconds when a caller is over its limit, so four asks over at most
// 30 s ride out a full fleet's turnover or a burst, and a client that is
// told to wait longer than 10 s gives up and says so rather than hang.
const (
	DefaultAttempts = 4
	DefaultMaxWait  = 10 * time.Second
)

// LobbyClient asks a lobby for seats. Only URL is required. Safe for
// concurrent use.
type LobbyClient struct {
	// URL is the lobby's base, http://HOST:PORT.
	URL string
	// Bearer, if set, is the JWT sent as "Authorization: Bearer ...".
	Bearer string
	// HTTP is the client requests go through; nil means
	// http.DefaultClient.
	HTTP *http.Client
	// Attempts bounds the requests one Join makes while the lobby answers
	// 429 or 503 with a Retry-After; 0 means DefaultAttempts.
	Attempts int
	// MaxWait bounds one wait: a Retry-After longer than it ends the Join
	// with the lobby's answer; 0 means DefaultMaxWait.
	MaxWait time.Duration
	// Wait waits d, or until ctx ends (its error then); nil waits on a
	// timer. Tests give one that only records.
	Wait func(ctx context.Context, d time.Duration) error
	// Now is the clock a Retry-After date is read against; nil means
	// time.Now.
	Now func() time.Time
}

// LobbyError is a lobby's answer other than a seat.
type LobbyError struct {
	// Status is the HTTP status code: 401 not authentic, 429 over a limit,
	// 503 no free seat or the lobby's directory failed, ...
	Status int
	// Message is the lobby's sentence, made printable and cut short.
	Message string
	// RetryAfter is how long the lobby asked the client to wait before it
	// asks again, when Retry is set (the lobby sent a Retry-After).
	RetryAfter time.Duration
	Retry      bool
}

func (e *LobbyError) Error() string {
	return fmt.Sprintf("fleet: lobby: %d %s: %s", e.Status, http.StatusText(e.Status), e.Message)
}

// Join asks the lobby for a seat on a server w matches (passing over
// w.Skip) for the player name, and returns the server and the token to
// join it with. While the lobby answers 429 or 503 with a Retry-After of
// at most MaxWait, it waits that long and asks again, up to Attempts
// requests; any other answer, or a longer wait, ends it with a
// *LobbyError.
func (c *LobbyClient) Join(ctx context.Context, w Want, name string) (netip.AddrPort, token.Token, error) {
	attempts, maxWait := c.Attempts, c.MaxWait
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	if maxWait <= 0 {
		maxWait = DefaultMaxWait
	}
	for n := 1; ; n++ {
		addr, tok, err := c.ask(ctx, w, name)
		var le *LobbyError
		if !errors.As(err, &le) || n == attempts || !le.Retry || le.RetryAfter > maxWait ||
			(le.Status != http.StatusTooManyRequests && le.Status != http.StatusServiceUnavailable) {
			return addr, tok, err
		}
		if werr := c.wait(ctx, le.RetryAfter); werr != nil {
			return netip.AddrPort{}, token.Token{}, fmt.Errorf("%w (waiting to ask again: %w)", err, werr)
		}
	}
}

func (c *LobbyClient) wait(ctx context.Context, d time.Duration) error {
	if c.Wait != nil {
		return c.Wait(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ask makes one request of the lobby.
func (c *LobbyClient) ask(ctx context.Context, w Want, name string) (netip.AddrPort, token.Token, error) {
	q := url.Values{"project": {w.Project}, "name": {name}}
	if w.Fingerprint != "" {
		q.Set("fingerprint", w.Fingerprint)
	}
	if w.Protocol != 0 {
		q.Set("protocol", strconv.Itoa(w.Protocol))
	}
	for _, a := range w.Skip {
		q.Add("skip", a.String())
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+"/join?"+q.Encode(), nil)
	if err != nil {
		return netip.AddrPort{}, token.Token{}, fmt.Errorf("fleet: lobby %s: %v", c.URL, err)
	}
	if c.Bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.Bearer)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return netip.AddrPort{}, token.Token{}, fmt.Errorf("fleet: lobby: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxSeat))
	if err != nil {
		return netip.AddrPort{}, token.Token{}, fmt.Errorf("fleet: lobby %s: %v", c.URL, err)
	}
	if resp.StatusCode != http.StatusOK {
		wait, retry := parseRetryAfter(resp.Header.Get("Retry-After"), clock(c.Now)())
		return netip.AddrPort{}, token.Token{}, &LobbyError{Status: resp.StatusCode, Message: printable(b), RetryAfter: wait, Retry: retry}
	}
	return ParseSeat(b)
}

// maxMessage is how much of a lobby's refusal a LobbyError keeps.
const maxMessage = 200

// printable makes a lobby's sentence safe to print on one line: control
// characters and invalid UTF-8 become spaces, and it is cut at maxMessage.
func printable(b []byte) string {
	s := strings.Map(func(r rune) rune {
		if r == unicode.ReplacementChar || !unicode.IsPrint(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(string(b), " "))
	s = strings.TrimSpace(s)
	if len(s) > maxMessage {
		s = strings.ToValidUTF8(s[:maxMessage], "") + "…"
	}
	return s
}

// maxRetryAfter bounds the wait parseRetryAfter reads: anything longer
// is the same as "not soon" to a client.
const maxRetryAfter = 24 * time.Hour

// parseRetryAfter reads a Retry-After header (RFC 9110, 10.2.3): delay
// seconds (decimal digits) or an HTTP date, which is read against now (a
// date already past is no wait). ok is false for an empty or unreadable
// header. The wait is at most maxRetryAfter.
func parseRetryAfter(h string, now time.Time) (d time.Duration, ok bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if h[0] >= '0' && h[0] <= '9' {
		for i := range len(h) {
			if h[i] < '0' || h[i] > '9' {
				return 0, false
			}
		}
		if len(h) > 6 { // more than 11 days: at the bound
			return maxRetryAfter, true
		}
		n, _ := strconv.Atoi(h)
		return min(time.Duration(n)*time.Second, maxRetryAfter), true
	}
	t, err := http.ParseTime(h)
	if err != nil {
		return 0, false
	}
	return min(max(t.Sub(now), 0), maxRetryAfter), true
}

// ParseSeat reads a lobby's answer: the address must be an IP:PORT the
// token names.
func ParseSeat(b []byte) (netip.AddrPort, token.Token, error) {
	var s Seat
	if err := json.Unmarshal(b, &s); err != nil {
		return netip.AddrPort{}, token.Token{}, fmt.Errorf("fleet: the lobby's answer: %v", err)
	}
	addr, err := netip.ParseAddrPort(s.Addr)
	if err != nil {
		return netip.AddrPort{}, token.Token{}, fmt.Errorf("fleet: the lobby's answer: addr: %v", err)
	}
	tok, err := token.ParseText([]byte(s.Token))
	if err != nil {
		return netip.AddrPort{}, token.Token{}, fmt.Errorf("fleet: the lobby's answer: token: %v", err)
	}
	for _, a := range tok.Servers {
		if a == addr {
			return addr, tok, nil
		}
	}
	return netip.AddrPort{}, token.Token{}, fmt.Errorf("fleet: the lobby's answer: the token does not name %s", addr)
}

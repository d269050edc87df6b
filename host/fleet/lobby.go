package fleet

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	"vkm/transport/handshake"
	"vkm/transport/token"
)

// Lobby is the HTTP handler of GET /join?project=NAME&name=PLAYER
// [&fingerprint=FP&protocol=N]: it reserves a seat (Directory.Reserve) on a
// server of that project (and build, when the client names its own) and
// answers a Seat, with a connect token minted for that server under the
// game's key. It keeps no state of
// its own, so any number of lobbies may serve the same Redis.
type Lobby struct {
	Dir *Directory
	Key *token.Key
	// Life is how long a token (and so its reservation) lives.
	Life   time.Duration
	Logger *slog.Logger
}

// Seat is the lobby's answer: the server to join and the connect token
// (its text form) that admits the player there.
type Seat struct {
	Addr  string `json:"addr"`
	Token string `json:"token"`
}

// ServeHTTP answers /join. 400: no project; 503: no free seat (Retry-After
// a second); 500: Redis or minting failed.
func (l *Lobby) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/join" {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	project, name := q.Get("project"), handshake.CleanName(q.Get("name"))
	if project == "" {
		http.Error(w, "join: the query names no project (?project=NAME&name=PLAYER)", http.StatusBadRequest)
		return
	}
	want := Want{Project: project, Fingerprint: q.Get("fingerprint")}
	if p := q.Get("protocol"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 {
			http.Error(w, fmt.Sprintf("join: protocol %q is not a version number", p), http.StatusBadRequest)
			return
		}
		want.Protocol = n
	}
	now := time.Now()
	expires := now.Add(l.Life)
	addr, err := l.Dir.Reserve(r.Context(), want, expires)
	if errors.Is(err, ErrNoSeat) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("join: no server of %q for this build has a free seat", project), http.StatusServiceUnavailable)
		return
	}
	if err != nil {
		l.fail(w, err)
		return
	}
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		l.fail(w, fmt.Errorf("fleet: the directory holds %q, not an IP:PORT: %v", addr, err))
		return
	}
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		l.fail(w, err)
		return
	}
	tok, err := token.Mint(l.Key, token.Claims{Protocol: token.ProtocolID(project), Client: binary.LittleEndian.Uint64(id[:]),
		Expires: expires, Servers: []netip.AddrPort{ap}, Name: name}, now, nil)
	if err != nil {
		l.fail(w, err)
		return
	}
	text, _ := tok.MarshalText()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(Seat{Addr: addr, Token: string(text)})
}

func (l *Lobby) fail(w http.ResponseWriter, err error) {
	if l.Logger != nil {
		l.Logger.Error("join failed", "err", err)
	}
	http.Error(w, "join: "+err.Error(), http.StatusInternalServerError)
}

// maxSeat bounds the answer Join reads: a Seat is a few hundred bytes.
const maxSeat = 4096

// Join asks the lobby at base (http://host:port) for a seat on a server w
// matches for the player name, and returns the server and the token to
// join it with.
func Join(ctx context.Context, base string, w Want, name string) (netip.AddrPort, token.Token, error) {
	q := url.Values{"project": {w.Project}, "name": {name}}
	if w.Fingerprint != "" {
		q.Set("fingerprint", w.Fingerprint)
	}
	if w.Protocol != 0 {
		q.Set("protocol", strconv.Itoa(w.Protocol))
	}
	u := base + "/join?" + q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return netip.AddrPort{}, token.Token{}, fmt.Errorf("fleet: lobby %s: %v", base, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return netip.AddrPort{}, token.Token{}, fmt.Errorf("fleet: lobby: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxSeat))
	if err != nil {
		return netip.AddrPort{}, token.Token{}, fmt.Errorf("fleet: lobby %s: %v", base, err)
	}
	if resp.StatusCode != http.StatusOK {
		return netip.AddrPort{}, token.Token{}, fmt.Errorf("fleet: lobby %s: %s: %s", base, resp.Status, string(b))
	}
	return ParseSeat(b)
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

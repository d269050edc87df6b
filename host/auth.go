package host

import (
	crand "crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"vkm/host/netio"
	"vkm/transport"
	"vkm/transport/handshake"
	"vkm/transport/token"
)

// DevTokenLife is how long the connect token a client or bot given the
// game's key mints for itself stays valid: long enough for a session of
// development, short enough that one left in a log is soon worthless.
const DevTokenLife = time.Hour

// Status notes the status line carries about how a server admits players.
const (
	statusLoopback = "insecure: no key; loopback only"
	statusInsecure = "insecure: no key"
)

// NewKeyText draws a fresh shared key and returns its key file form, as
// `vkmd keygen` prints it.
func NewKeyText() ([]byte, error) {
	k, err := token.NewKey(nil)
	if err != nil {
		return nil, err
	}
	return k.MarshalText()
}

// ReadKeyFile reads a game's shared key from a key file (as `vkmd keygen`
// writes it: one line of base64). Its error names the file and never
// repeats its content.
func ReadKeyFile(path string) (token.Key, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return token.Key{}, fmt.Errorf("host: key file: %w", err)
	}
	k, err := token.ParseKey(b)
	if err != nil {
		return token.Key{}, fmt.Errorf("host: key file %s: %w", path, err)
	}
	return k, nil
}

// ReadTokenFile reads a connect token's text form from path, or from stdin
// when path is "-". Its error names the file.
func ReadTokenFile(path string, stdin io.Reader) (token.Token, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(io.LimitReader(stdin, 4096))
		path = "standard input"
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return token.Token{}, fmt.Errorf("host: token file: %w", err)
	}
	t, err := token.ParseText(b)
	if err != nil {
		return token.Token{}, fmt.Errorf("host: token file %s: %w", path, err)
	}
	return t, nil
}

// TokenRequest is what `vkmd token` mints a connect token from.
type TokenRequest struct {
	// Game is the project's name, whose protocol id the token carries.
	Game string
	// Servers are the addresses the token admits to, as the client will
	// send to them ("host:port"; a host name is resolved).
	Servers []string
	Client  uint64
	Name    string
	// Life is how long from now the token stays valid.
	Life time.Duration
}

// MintToken mints a connect token under key for r, at now, and returns its
// text form: what a backend hands a player and `client --token` reads.
func MintToken(key *token.Key, r TokenRequest, now time.Time) ([]byte, error) {
	if r.Life <= 0 {
		return nil, fmt.Errorf("host: token lifetime %v: give a positive duration such as 1h", r.Life)
	}
	servers := make([]netip.AddrPort, 0, len(r.Servers))
	for _, s := range r.Servers {
		a, err := resolveServer(nil, s)
		if err != nil {
			return nil, err
		}
		servers = append(servers, a)
	}
	t, err := token.Mint(key, token.Claims{
		Protocol: token.ProtocolID(r.Game), Client: r.Client, Name: handshake.CleanName(r.Name),
		Expires: now.Add(r.Life), Servers: servers,
	}, now, nil)
	if err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	return t.MarshalText()
}

// resolveServer turns a server address a client sends to into the address a
// token names: on n as it is, otherwise resolved as UDP does.
func resolveServer(n *netio.Loopback, addr string) (netip.AddrPort, error) {
	if n != nil {
		return n.Resolve(addr)
	}
	u, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("host: server address %q: %w", addr, err)
	}
	a := u.AddrPort()
	return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()), nil
}

// checkSecurity is ServeConfig.Validate's part about keys: without a key a
// server listens only on a loopback address unless Insecure says
// otherwise; public addresses need a key, and a key and Insecure
// contradict each other.
func (c *ServeConfig) checkSecurity() error {
	switch {
	case c.Key != nil && c.Insecure:
		return errors.New("host: insecure and a key: a server with a key checks tokens; drop one of --key and --insecure")
	case c.Key == nil && len(c.Public) > 0:
		return errors.New("host: public addresses are what connect tokens name, and need a key: give --key FILE")
	case c.Key != nil || c.Insecure:
		return nil
	case c.Web != "" && !loopbackHost(c.Web):
		return fmt.Errorf("host: web address %q is not loopback, and the server has no key: anyone could join and forge its datagrams; give --key FILE (vkmd keygen makes one), or --insecure to serve it unprotected", c.Web)
	case c.Net != nil || loopbackHost(c.Addr):
		return nil
	}
	return fmt.Errorf("host: listen address %q is not loopback, and the server has no key: anyone could join and forge its datagrams; give --key FILE (vkmd keygen makes one), or --insecure to serve it unprotected", c.Addr)
}

// loopbackHost reports whether addr ("host:port") names a loopback host,
// or none (the default host: the listeners pick loopback without a key or
// Insecure).
func loopbackHost(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" || host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// listenAddr returns the address to listen on: Addr, with the project's
// port when it names none, and with a host when it names none: every
// interface for a server with a key or told Insecure, loopback otherwise.
func (c *ServeConfig) listenAddr(port int) string {
	host, p := "", strconv.Itoa(port)
	if c.Addr != "" {
		host, p, _ = net.SplitHostPort(c.Addr)
	}
	if host == "" && c.Key == nil && !c.Insecure && c.Net == nil {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, p)
}

// webAddr returns the web listener's address: Web, with a host when it
// names none: every interface for a server with a key or told Insecure,
// loopback otherwise (as listenAddr does for UDP).
func (c *ServeConfig) webAddr() string {
	host, port, _ := net.SplitHostPort(c.Web)
	if host == "" && c.Key == nil && !c.Insecure {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// serverAuth returns the transport's Auth for a server with a key, bound at
// bound, that started at epoch: the addresses a token must name are
// Public, or the bound one when it is specific, or, bound to every
// interface with none given, the loopback addresses at its port, which it
// logs a warning about. It is nil without a key.
func (c *ServeConfig) serverAuth(bound netip.AddrPort, epoch time.Time, log *slog.Logger) *transport.Auth {
	if c.Key == nil {
		return nil
	}
	addrs := c.Public
	if len(addrs) == 0 {
		if bound.Addr().IsUnspecified() {
			addrs = []netip.AddrPort{
				netip.AddrPortFrom(netip.IPv6Loopback(), bound.Port()),
				netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), bound.Port()),
			}
			log.Warn("serving on every interface with no public address given: only tokens for the loopback addresses are accepted; give --public ADDR:PORT, the address players reach this server at", "addrs", addrs)
		} else {
			addrs = []netip.AddrPort{netip.AddrPortFrom(bound.Addr().Unmap(), bound.Port())}
		}
	}
	return &transport.Auth{Key: *c.Key, Addrs: addrs, Protocol: token.ProtocolID(c.Project.Name), Epoch: epoch}
}

// securityNote is what the status line says about how the server admits
// players: nothing with a key.
func (c *ServeConfig) securityNote(bound netip.AddrPort) string {
	switch {
	case c.Key != nil:
		return ""
	case bound.Addr().IsLoopback() && (c.Web == "" || loopbackHost(c.webAddr())):
		return statusLoopback
	}
	return statusInsecure
}

// ParsePublic reads a comma-separated list of public addresses
// (IP:port), as --public takes it.
func ParsePublic(s string) ([]netip.AddrPort, error) {
	var out []netip.AddrPort
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		a, err := netip.ParseAddrPort(f)
		if err != nil {
			return nil, fmt.Errorf("host: public address %q is not IP:port", f)
		}
		out = append(out, netip.AddrPortFrom(a.Addr().Unmap(), a.Port()))
	}
	return out, nil
}

// clientToken returns the connect token cfg joins with: Token, or, given
// the game's Key, one minted for itself naming the server at addr (client
// id ClientID, or a random one when 0), or nil for neither.
func (c *PlayConfig) clientToken(addr string) (*token.Token, error) {
	if c.Token != nil || c.Key == nil {
		return c.Token, nil
	}
	server, err := tokenServer(c.Net, addr)
	if err != nil {
		return nil, err
	}
	id := c.ClientID
	for id == 0 {
		var b [8]byte
		if _, err := io.ReadFull(crand.Reader, b[:]); err != nil {
			return nil, fmt.Errorf("host: drawing a client id: %w", err)
		}
		for _, x := range b {
			id = id<<8 | uint64(x)
		}
	}
	now := time.Now()
	t, err := token.Mint(c.Key, token.Claims{
		Protocol: token.ProtocolID(c.Project.Name), Client: id, Name: handshake.CleanName(c.Name),
		Expires: now.Add(DevTokenLife), Servers: []netip.AddrPort{server},
	}, now, nil)
	if err != nil {
		return nil, fmt.Errorf("host: minting a token: %w", err)
	}
	return &t, nil
}

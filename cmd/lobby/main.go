// Command lobby hands players seats on a game's servers: it answers
// GET /join?project=NAME&name=PLAYER with JSON {"addr", "token"}, the
// address of a server of that project with a free seat and a connect token
// for it minted under the game's key.
//
// Usage:
//
//	lobby --fleet redis://HOST:PORT --key FILE (--auth-secret FILE | --jwt-secret FILE [--jwt-audience NAME] | --insecure) [--listen ADDR] [--token-life D] [--caller-rate R --caller-burst N] [--addr-rate R --addr-burst N] [--log-level L]
//
// A caller proves who it is, or gets 401 and no token: the game's backend
// signs each request with the secret in --auth-secret (Authorization:
// VKM-HMAC-SHA256, see docs/protocol.md, "A lobby's answer"), and may then
// name the player's client id (&client=N); a player sends a JWT the backend
// signed HS256 with the secret in --jwt-secret (Authorization: Bearer), and
// gets tokens for the client id its subject names. Give either or both. It
// refuses to start with neither, unless --insecure, which serves anyone
// on a loopback --listen only: an anonymous lobby on a public address is
// what lets one script reserve a whole fleet's seats. A secret file holds
// at least 32 bytes (vkmd keygen writes one).
//
// The servers are those vkmd --fleet lists in the same Redis. The lobby
// keeps no state of its own but its rate limits: any number may run side
// by side, a seat is reserved in Redis atomically, so two lobbies never
// fill one server past its seats, and a signed request is remembered
// there, so none takes it twice. It sends a player to the fullest server
// that has a free seat, so servers fill one after another and emptied ones
// can be stopped. A reservation lives as long as the token (--token-life);
// a player who does not arrive by then gives the seat back, and a client
// id holds one reservation at a time. Reservations are limited per caller
// and per source address (429 with Retry-After). /healthz answers while
// the lobby runs, /readyz while its Redis answers, /metrics is Prometheus.
//
// It prints "lobby listening on ADDR" once it listens, and exits 0 when
// stopped (Ctrl-C, SIGTERM), 1 when it cannot serve, 2 for a command line
// it cannot run.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"time"

	"vkm/host"
	"vkm/host/fleet"
	"vkm/internal/cli"
)

func main() { cli.Main("lobby", run) }

// options is the lobby's command line.
type options struct {
	redisURL, keyFile, listen string
	life                      time.Duration
	level                     string
	authSecret, jwtSecret     string
	jwtAudience               string
	insecure                  bool
	callerRate, addrRate      fleet.Rate
}

func parse(args []string, stdout io.Writer) (options, bool, error) {
	var o options
	fs := flag.NewFlagSet("lobby", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.StringVar(&o.redisURL, "fleet", "", "the fleet directory's Redis, redis://HOST:PORT (required)")
	fs.StringVar(&o.keyFile, "key", "", "the game's key file, which the servers share (required)")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8088", "the HTTP address to serve /join, /healthz, /readyz and /metrics on")
	fs.DurationVar(&o.life, "token-life", 30*time.Second, "how long a token, and the seat reserved for it, lives")
	fs.StringVar(&o.level, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&o.authSecret, "auth-secret", "", "a file holding the secret the game's backend signs its requests with (HMAC-SHA256; at least 32 bytes)")
	fs.StringVar(&o.jwtSecret, "jwt-secret", "", "a file holding the secret players' bearer JWTs are signed with (HS256; at least 32 bytes); a JWT's subject is the player's client id")
	fs.StringVar(&o.jwtAudience, "jwt-audience", "", "with --jwt-secret: take only JWTs whose aud names this")
	fs.BoolVar(&o.insecure, "insecure", false, "serve callers that prove nothing (loopback --listen only: for tests on one machine)")
	fs.Float64Var(&o.callerRate.PerSecond, "caller-rate", fleet.DefaultCallerRate.PerSecond, "reservations a second one caller (a client id) earns back")
	fs.IntVar(&o.callerRate.Burst, "caller-burst", fleet.DefaultCallerRate.Burst, "reservations one caller may make in a row")
	fs.Float64Var(&o.addrRate.PerSecond, "addr-rate", fleet.DefaultAddrRate.PerSecond, "reservations a second one source address (IPv6: its /64) earns back; the backend's is not limited")
	fs.IntVar(&o.addrRate.Burst, "addr-burst", fleet.DefaultAddrRate.Burst, "reservations one source address may make in a row")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, true, nil
		}
		return o, false, cli.Usagef("lobby: %v", err)
	}
	if fs.NArg() > 0 {
		return o, false, cli.Usagef("lobby: unexpected argument %q", fs.Arg(0))
	}
	return o, false, o.check()
}

// check refuses a command line the lobby cannot serve.
func (o *options) check() error {
	switch {
	case o.redisURL == "":
		return cli.Usagef("lobby: --fleet redis://HOST:PORT is required")
	case o.keyFile == "":
		return cli.Usagef("lobby: --key FILE is required (vkmd keygen writes one)")
	case o.life < 2*time.Second:
		return cli.Usagef("lobby: --token-life %v is too short to reach a server (at least 2s)", o.life)
	case o.jwtAudience != "" && o.jwtSecret == "":
		return cli.Usagef("lobby: --jwt-audience without --jwt-secret: the audience is a JWT's")
	case o.insecure && (o.authSecret != "" || o.jwtSecret != ""):
		return cli.Usagef("lobby: --insecure serves callers that prove nothing; with --auth-secret or --jwt-secret every caller proves who it is: give one or the other")
	case !o.insecure && o.authSecret == "" && o.jwtSecret == "":
		return cli.Usagef("lobby: say how callers prove who they are: --auth-secret FILE (the game's backend signs its requests) or --jwt-secret FILE (players send a JWT); --insecure serves anyone on loopback")
	case o.insecure && !loopback(o.listen):
		return cli.Usagef("lobby: --insecure serves anyone, so only on a loopback --listen (127.0.0.1:PORT), not %q", o.listen)
	}
	for _, r := range []struct {
		name string
		rate fleet.Rate
	}{{"caller", o.callerRate}, {"addr", o.addrRate}} {
		if r.rate.PerSecond <= 0 || r.rate.Burst < 1 {
			return cli.Usagef("lobby: --%s-rate must be above 0 and --%s-burst at least 1", r.name, r.name)
		}
	}
	return nil
}

// loopback reports whether a listen address is host:port with a loopback
// host (an IP address or "localhost").
func loopback(addr string) bool {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(h)
	return h == "localhost" || err == nil && ip.IsLoopback()
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, done, err := parse(args, stdout)
	if err != nil || done {
		return err
	}
	logger, err := cli.Logger(o.level, stderr)
	if err != nil {
		return err
	}
	fleet.LogRedisTo(logger)
	key, err := host.ReadKeyFile(o.keyFile)
	if err != nil {
		return err
	}
	rdb, err := fleet.Open(ctx, o.redisURL)
	if err != nil {
		return err
	}
	defer rdb.Close()
	dir := fleet.NewDirectory(rdb)
	lobby := &fleet.Lobby{Dir: dir, Key: &key, Life: o.life, Anonymous: o.insecure,
		CallerRate: o.callerRate, AddrRate: o.addrRate, Logger: logger}
	if lobby.Checks, err = o.checks(dir); err != nil {
		return err
	}
	l, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("lobby: %v", err)
	}
	srv := &http.Server{Handler: lobby, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 10 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: maxHeaderBytes}
	fmt.Fprintf(stdout, "lobby listening on %s\n", l.Addr())
	if o.insecure {
		logger.Warn("serving callers that prove nothing (--insecure): for tests on this machine only")
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	select {
	case err := <-served:
		return fmt.Errorf("lobby: %v", err)
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}

// maxHeaderBytes bounds a request's headers: a JWT and a few others fit
// in a few kilobytes.
const maxHeaderBytes = 16 << 10

// checks builds the caller checks the secrets name.
func (o *options) checks(dir *fleet.Directory) ([]fleet.Check, error) {
	var cs []fleet.Check
	if o.authSecret != "" {
		s, err := readSecret("--auth-secret", o.authSecret)
		if err != nil {
			return nil, err
		}
		cs = append(cs, &fleet.HMAC{Secret: s, Seen: dir})
	}
	if o.jwtSecret != "" {
		s, err := readSecret("--jwt-secret", o.jwtSecret)
		if err != nil {
			return nil, err
		}
		j, err := fleet.NewJWT(fleet.JWTConfig{Secret: s, Audience: o.jwtAudience})
		if err != nil {
			return nil, err
		}
		cs = append(cs, j)
	}
	return cs, nil
}

// maxSecretFile bounds a secret file: a secret is tens of bytes.
const maxSecretFile = 4096

// readSecret reads a secret file: its bytes, less the white space around
// them, at least fleet.MinSecret of them.
func readSecret(flagName, path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("lobby: %s: %v", flagName, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return nil, fmt.Errorf("lobby: %s: %v", flagName, err)
	}
	if len(b) > maxSecretFile {
		return nil, fmt.Errorf("lobby: %s %s is over %d bytes: is it a secret?", flagName, path, maxSecretFile)
	}
	b = bytes.TrimSpace(b)
	if len(b) < fleet.MinSecret {
		return nil, fmt.Errorf("lobby: %s %s holds %d bytes, too short a secret (at least %d; vkmd keygen writes one)", flagName, path, len(b), fleet.MinSecret)
	}
	return b, nil
}

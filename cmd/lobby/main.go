// Command lobby hands players seats on a game's servers: it answers
// GET /join?project=NAME&name=PLAYER with JSON {"addr", "token"}, the
// address of a server of that project with a free seat and a connect token
// for it minted under the game's key.
//
// Usage:
//
//	lobby --fleet redis://HOST:PORT --key FILE [--listen ADDR] [--token-life D] [--log-level L]
//
// The servers are those vkmd --fleet lists in the same Redis. The lobby
// keeps no state of its own: any number may run side by side, and a seat
// is reserved in Redis atomically, so two lobbies never fill one server
// past its seats. It sends a player to the fullest server that has a free
// seat, so servers fill one after another and emptied ones can be
// stopped. A reservation lives as long as the token (--token-life); a
// player who does not arrive by then gives the seat back.
//
// It prints "lobby listening on ADDR" once it listens, and exits 0 when
// stopped (Ctrl-C, SIGTERM), 1 when it cannot serve, 2 for a command line
// it cannot run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"vkm/host"
	"vkm/host/fleet"
	"vkm/internal/cli"
)

func main() { cli.Main("lobby", run) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("lobby", flag.ContinueOnError)
	fs.SetOutput(stdout)
	redisURL := fs.String("fleet", "", "the fleet directory's Redis, redis://HOST:PORT (required)")
	keyFile := fs.String("key", "", "the game's key file, which the servers share (required)")
	listen := fs.String("listen", "127.0.0.1:8088", "the HTTP address to serve /join on")
	life := fs.Duration("token-life", 30*time.Second, "how long a token, and the seat reserved for it, lives")
	level := fs.String("log-level", "info", "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return cli.Usagef("lobby: %v", err)
	}
	switch {
	case fs.NArg() > 0:
		return cli.Usagef("lobby: unexpected argument %q", fs.Arg(0))
	case *redisURL == "":
		return cli.Usagef("lobby: --fleet redis://HOST:PORT is required")
	case *keyFile == "":
		return cli.Usagef("lobby: --key FILE is required (vkmd keygen writes one)")
	case *life < 2*time.Second:
		return cli.Usagef("lobby: --token-life %v is too short to reach a server (at least 2s)", *life)
	}
	logger, err := cli.Logger(*level, stderr)
	if err != nil {
		return err
	}
	key, err := host.ReadKeyFile(*keyFile)
	if err != nil {
		return err
	}
	rdb, err := fleet.Open(ctx, *redisURL)
	if err != nil {
		return err
	}
	defer rdb.Close()
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("lobby: %v", err)
	}
	srv := &http.Server{Handler: &fleet.Lobby{Dir: fleet.NewDirectory(rdb), Key: &key, Life: *life, Logger: logger}, ReadHeaderTimeout: 5 * time.Second}
	fmt.Fprintf(stdout, "lobby listening on %s\n", l.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return fmt.Errorf("lobby: %v", err)
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}

// Command relay runs a vkm relay: servers that cannot be reached from
// outside (no forwarded port) register with it and are given a join
// code, and players join them by that code, "K7M-Q2P@relay.example.org",
// with every datagram sealed end to end so the relay can neither read
// nor alter it.
//
//	relay [--addr :27900] [--max-peers 64] [--rate 20000] [--peer-rate 500] [--join-rate 4] [--keep 30s] [--status]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"vkm/host/relayd"
	"vkm/transport/relay"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("relay", flag.ContinueOnError)
	var cfg relayd.Config
	var status bool
	var level string
	fs.StringVar(&cfg.Addr, "addr", ":"+strconv.Itoa(relayd.DefaultPort), "the UDP address to listen on")
	fs.IntVar(&cfg.Limits.MaxPeers, "max-peers", relay.DefaultMaxPeers, "players one code may have at once")
	fs.IntVar(&cfg.Limits.MaxCodes, "max-codes", relay.DefaultMaxCodes, "codes held at once")
	fs.IntVar(&cfg.Limits.MaxCodesPerSource, "max-codes-per-source", relay.DefaultMaxCodesPerSource, "codes one source (an IPv4 address, an IPv6 /64) may hold")
	fs.Float64Var(&cfg.Limits.Rate, "rate", relay.DefaultRate, "datagrams a second one code may pass, both ways together")
	fs.Float64Var(&cfg.Limits.PeerRate, "peer-rate", relay.DefaultPeerRate, "datagrams a second one player may send")
	fs.Float64Var(&cfg.Limits.JoinRate, "join-rate", relay.DefaultJoinRate, "join attempts a second one source may make")
	fs.DurationVar(&cfg.Limits.Keep, "keep", relay.DefaultKeep, "how long a code lasts when its server stops refreshing it")
	fs.BoolVar(&status, "status", false, "print a status line a second")
	fs.StringVar(&level, "log-level", "info", "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "relay: unexpected arguments %q\n", fs.Args())
		return 2
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		fmt.Fprintf(os.Stderr, "relay: --log-level %q: %v\n", level, err)
		return 2
	}
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lv}))
	if status {
		cfg.Status = os.Stdout
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := relayd.Serve(ctx, cfg); err != nil {
		cfg.Logger.Error("relay failed", "err", err)
		return 1
	}
	return 0
}

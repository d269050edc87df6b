// Command client is vkm's reference client. With --connect it joins a vkmd
// server; with no --connect it plays a project offline. --headless --bot
// wander plays with a seeded bot, and --report writes a JSON summary.
//
// Usage:
//
//	client PROJECT_DIR [flags]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"vkm/host"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// usageError is a command line that cannot be run; it exits 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "client:", err)
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

type options struct {
	dir      string
	connect  string
	name     string
	dev      bool
	sim      string
	simSeed  uint64
	headless bool
	bot      string
	botSeed  uint64
	duration time.Duration
	report   string
	logLevel string
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: client PROJECT_DIR [--connect ADDR[:PORT]] [--name N] [--headless] [--bot wander] [--bot-seed N] [--sim PROFILE --sim-seed N] [--duration D] [--report FILE]")
		fs.PrintDefaults()
	}
	fs.StringVar(&o.connect, "connect", "", "join the server at ADDR[:PORT] (no port: the project's); without it, play offline")
	fs.StringVar(&o.name, "name", "", "the player's name the server is told")
	fs.BoolVar(&o.dev, "dev", false, "take a dev server's hot reloads")
	fs.StringVar(&o.sim, "sim", "", "run the link through the simulator: perfect, lan, broadband, mobile, awful")
	fs.Uint64Var(&o.simSeed, "sim-seed", 0, "the simulator's seed (required with --sim)")
	fs.BoolVar(&o.headless, "headless", false, "run without a view")
	fs.StringVar(&o.bot, "bot", "", "let a bot play: "+strings.Join(host.BotKinds, ", "))
	fs.Uint64Var(&o.botSeed, "bot-seed", 1, "the bot's seed (the same seed plays the same match)")
	fs.DurationVar(&o.duration, "duration", 0, "stop after this long (e.g. 10s); 0 runs until interrupted")
	fs.StringVar(&o.report, "report", "", "write a JSON summary of the run to this file")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fs.Usage()
			return o, usageError{"a project directory is required"}
		}
		return o, usageError{"the project directory comes first: client PROJECT_DIR [flags]"}
	}
	o.dir = args[0]
	if err := fs.Parse(args[1:]); err != nil {
		return o, usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return o, usageError{fmt.Sprintf("unexpected argument %q: only the project directory is positional", fs.Arg(0))}
	}
	if !o.headless {
		return o, usageError{"there is no view yet: run with --headless"}
	}
	if o.bot == "" {
		return o, usageError{"--headless needs a player: add --bot wander"}
	}
	switch {
	case o.duration < 0:
		return o, usageError{"--duration must not be negative"}
	case o.sim != "" && o.connect == "":
		return o, usageError{"--sim simulates a link: it needs --connect"}
	case o.sim == "" && o.simSeed != 0:
		return o, usageError{"--sim-seed without --sim: name a profile with --sim"}
	case o.sim != "" && o.simSeed == 0:
		return o, usageError{"--sim needs --sim-seed N: a simulated link is reproducible only from its seed"}
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parse(args, stderr)
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return usageError{fmt.Sprintf("--log-level: %v", err)}
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	p, err := host.LoadProject(o.dir)
	if err != nil {
		return err
	}
	bot, err := host.NewBot(o.bot, o.botSeed, len(p.Axes), len(p.Buttons))
	if err != nil {
		return usageError{err.Error()}
	}
	rep, err := host.Play(ctx, host.PlayConfig{
		Project: p, Input: bot, Duration: o.duration, Logger: logger,
		Connect: o.connect, Name: o.name, Dev: o.dev, Sim: o.sim, SimSeed: o.simSeed,
	})
	if err != nil {
		return err
	}
	logger.Info("run done", "state", rep.State, "ticks", rep.Ticks, "distance_m", rep.DistanceM, "events", rep.Events, "errors", rep.Errors, "last_error", rep.LastError)
	if o.report != "" {
		data, err := json.MarshalIndent(host.Report{Clients: []host.ClientReport{rep}}, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(o.report, append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

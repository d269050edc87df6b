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
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"vkm/host"
	"vkm/internal/cli"
)

func main() { cli.Main("client", run) }

const usageLine = "usage: client PROJECT_DIR [--connect ADDR[:PORT]] [--name N] [--headless] [--bot wander] [--bot-seed N] [--sim PROFILE --sim-seed N] [--duration D] [--report FILE] [--log-level L]"

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
		fmt.Fprintln(stderr, usageLine)
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
	dir, rest, err := cli.ProjectFirst(args, usageLine, fs.Usage)
	if err != nil {
		return o, err
	}
	o.dir = dir
	if err := fs.Parse(rest); err != nil {
		return o, cli.Usagef("%v", err)
	}
	if err := cli.NoMorePositional(fs.Args()); err != nil {
		return o, err
	}
	switch {
	case !o.headless:
		return o, cli.Usagef("there is no view yet: run with --headless")
	case o.bot == "":
		return o, cli.Usagef("--headless needs a player: add --bot wander")
	case o.duration < 0:
		return o, cli.Usagef("--duration must not be negative")
	case o.sim != "" && o.connect == "":
		return o, cli.Usagef("--sim simulates a link: it needs --connect")
	}
	return o, cli.CheckSim(o.sim, o.simSeed)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parse(args, stderr)
	if err != nil {
		return err
	}
	logger, err := cli.Logger(o.logLevel, stderr)
	if err != nil {
		return err
	}
	p, err := host.LoadProject(o.dir)
	if err != nil {
		return err
	}
	bot, err := host.NewBot(o.bot, o.botSeed, len(p.Axes), len(p.Buttons))
	if err != nil {
		return cli.Usagef("%v", err)
	}
	rep, err := host.Play(ctx, host.PlayConfig{
		Project: p, Input: bot, Duration: o.duration, Logger: logger,
		Connect: o.connect, Name: o.name, Dev: o.dev, Sim: o.sim, SimSeed: o.simSeed,
	})
	if err != nil {
		return err
	}
	logger.Info("run done", "state", rep.State, "ticks", rep.Ticks, "distance_m", rep.DistanceM, "events", rep.Events, "errors", rep.Errors, "last_error", rep.LastError)
	return cli.WriteJSON(o.report, host.Report{Clients: []host.ClientReport{rep}})
}

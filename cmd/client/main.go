// Command client is vkm's reference client. With --connect it joins a vkmd
// server; with no --connect it plays a project offline. --headless --bot
// wander plays with a seeded bot, --bots N runs N such clients in one process
// (the load generator), and --report writes a JSON summary.
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
	"vkm/host/bot"
	"vkm/host/project"
	"vkm/internal/cli"
)

func main() { cli.Main("client", run) }

const usageLine = "usage: client PROJECT_DIR [--connect ADDR[:PORT]] [--name N] [--view ADDR:PORT | --headless] [--bot KIND] [--bots N [--lite]] [--bot-seed N] [--sim PROFILE --sim-seed N] [--duration D] [--report FILE] [--log-level L]"

type options struct {
	dir      string
	connect  string
	name     string
	dev      bool
	sim      string
	simSeed  uint64
	headless bool
	view     string
	bot      string
	bots     int
	lite     bool
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
	fs.StringVar(&o.view, "view", "", "serve the game as a web page at ADDR:PORT (e.g. 127.0.0.1:8080) and play it there")
	fs.StringVar(&o.bot, "bot", "", "let a bot play: "+strings.Join(bot.Kinds, ", "))
	fs.IntVar(&o.bots, "bots", 0, "run this many bot clients in one process, each with its own socket (bot i plays seed --bot-seed + i); implies --bot wander unless --bot says otherwise")
	fs.BoolVar(&o.lite, "lite", false, "with --bots and --connect: lite clients that join and play their bot's commands without simulating a world of their own, so one machine can seat a crowd")
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
	if o.bots > 0 && o.bot == "" {
		o.bot = "wander"
	}
	switch {
	case o.bots < 0:
		return o, cli.Usagef("--bots %d: give a number of clients, 1 or more", o.bots)
	case o.lite && (o.bots == 0 || o.connect == ""):
		return o, cli.Usagef("--lite is for bot clients of a server: it needs --bots N and --connect")
	case o.headless && o.view != "":
		return o, cli.Usagef("--headless runs without a view and --view serves one: give one of them")
	case !o.headless && o.view == "":
		return o, cli.Usagef("say how to see the game: --view 127.0.0.1:8080 serves it as a web page; --headless --bot wander plays without one")
	case o.view != "" && o.bots > 0:
		return o, cli.Usagef("--bots runs many clients without a view: drop --view")
	case o.headless && o.bot == "":
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
	p, err := project.LoadProject(o.dir)
	if err != nil {
		return err
	}
	play := host.PlayConfig{
		Project: p, Duration: o.duration, Logger: logger, View: o.view,
		Connect: o.connect, Name: o.name, Dev: o.dev, Sim: o.sim, SimSeed: o.simSeed,
	}
	if o.bot != "" {
		bot, err := bot.New(o.bot, o.botSeed, len(p.Axes), len(p.Buttons))
		if err != nil {
			return cli.Usagef("%v", err)
		}
		play.Input = bot // with --view the page watches it play
	}
	if o.bots > 0 {
		reps, err := host.PlayBots(ctx, host.BotsConfig{Play: play, Kind: o.bot, Seed: o.botSeed, Count: o.bots, Lite: o.lite})
		states := map[string]int{}
		for _, c := range reps.Clients {
			states[c.State]++
		}
		logger.Info("run done", "clients", len(reps.Clients), "states", states)
		if werr := cli.WriteJSON(o.report, reps); err == nil {
			err = werr
		}
		return err
	}
	rep, err := host.Play(ctx, play)
	if err != nil {
		return err
	}
	logger.Info("run done", "state", rep.State, "ticks", rep.Ticks, "distance_m", rep.DistanceM, "events", rep.Events, "errors", rep.Errors, "last_error", rep.LastError)
	return cli.WriteJSON(o.report, host.Report{Clients: []host.ClientReport{rep}})
}

package main

import (
	"context"
	"flag"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"vkm/host"
	"vkm/host/record"
	"vkm/internal/cli"
)

// replayCommand is vkmd replay's command line.
var replayCommand = cli.Command{Name: "vkmd replay", Arg: "<file.vkmrec>", Exits: `  0  the recording played with every world hash equal; or -h or
     --version answered
  1  the replay differs from the match (a desync, or changed scripts), or
     the file cannot be read or played
  2  the command line cannot be run: an unknown flag or argument, no file
`}

// runReplay plays a recording (vkmd --record wrote it) offline and says
// what it found; with --dump it prints the world where it stopped.
func runReplay(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return cli.Usagef("vkmd replay: no recording (%s)", replayCommand.Synopsis())
	}
	fs := flag.NewFlagSet("vkmd replay", flag.ContinueOnError)
	var o record.Options
	until := fs.Uint("until", 0, "stop after this tick (default: the recording's end)")
	fs.BoolVar(&o.Dump, "dump", false, "print the world where the replay stops: every entity, its components and body")
	fs.StringVar(&o.ProjectDir, "project", "", "play the match on this project folder's files rather than the recording's own (did a change of scripts change the match?)")
	report := fs.String("report", "", "write what the replay found to this file as JSON: ticks, hashes equal, the first difference")
	logLevel := fs.String("log-level", "warn", "the replayed scripts' log lines: debug, info, warn or error")
	web := fs.String("web", "", "serve the recording as a page with a timeline at ADDR:PORT (e.g. 127.0.0.1:8080): play, pause, step, jump, speed, follow a player, free camera; until interrupted")
	file, done, err := replayCommand.Parse(fs, args, stdout)
	if err != nil || done {
		return err
	}
	o.Until = uint32(*until)
	if o.Logger, err = cli.Logger(*logLevel, stderr); err != nil {
		return err
	}
	if *web != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return host.WatchRecording(ctx, file, *web, stderr, o)
	}
	start := time.Now()
	o.Clock = func() time.Duration { return time.Since(start) }
	if *report != "" {
		o.Summary = &record.Summary{}
	}
	err = record.Replay(file, stdout, o)
	if *report != "" {
		if werr := record.WriteSummary(*report, o.Summary); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}

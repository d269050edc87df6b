package main

import (
	"context"
	"flag"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"vkm/host"
	"vkm/host/record"
	"vkm/internal/cli"
)

// replayCommand is the client's command line for a recording.
var replayCommand = cli.Command{Name: "client", Arg: "<file.vkmrec>", Exits: `  0  the recording played with every world hash equal; or -h or
     --version answered
  1  the replay differs from the match (a desync, or changed scripts), or
     the file cannot be read or played
  2  the command line cannot be run: an unknown flag or argument
`}

// isRecording reports a command line whose first argument is a recording
// (vkmd --record wrote it) rather than a project folder.
func isRecording(args []string) bool {
	return len(args) > 0 && strings.HasSuffix(args[0], record.Ext)
}

// runReplay plays a recording offline, exactly, checking the world's hash
// against the match's as it goes, and reports.
func runReplay(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	var o record.Options
	headless := fs.Bool("headless", false, "play the recording without a view and report")
	view := fs.String("view", "", "serve the recording as a page with a timeline at ADDR:PORT (e.g. 127.0.0.1:8080): play, pause, step, jump, speed, follow a player, free camera; until interrupted")
	until := fs.Uint("until", 0, "stop after this tick (default: the recording's end)")
	fs.BoolVar(&o.Dump, "dump", false, "print the world where the replay stops: every entity, its components and body")
	fs.StringVar(&o.ProjectDir, "project", "", "play the match on this project folder's files rather than the recording's own")
	report := fs.String("report", "", "write what the replay found to this file as JSON: ticks, hashes equal, the first difference")
	logLevel := fs.String("log-level", "warn", "the replayed scripts' log lines: debug, info, warn or error")
	file, done, err := replayCommand.Parse(fs, args, stdout)
	if err != nil || done {
		return err
	}
	if !*headless && *view == "" {
		return cli.Usagef("a recording plays with --view ADDR:PORT (a page with a timeline) or --headless (a report)")
	}
	o.Until = uint32(*until)
	if o.Logger, err = cli.Logger(*logLevel, stderr); err != nil {
		return err
	}
	if *view != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return host.WatchRecording(ctx, file, *view, stderr, o)
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

// Command vkmd serves a vkm project: a dedicated, headless server that runs
// the project's authoritative tick and referees without playing.
//
// Usage:
//
//	vkmd PROJECT_DIR [--port N] [--dev] [--sim PROFILE --sim-seed N] [--duration D] [--report FILE] [--log-level L]
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
	fmt.Fprintln(stderr, "vkmd:", err)
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

type options struct {
	dir      string
	port     int
	dev      bool
	sim      string
	simSeed  uint64
	duration time.Duration
	report   string
	logLevel string
	schema   bool
}

const usageLine = "usage: vkmd PROJECT_DIR [--port N] [--dev] [--sim PROFILE --sim-seed N] [--duration D] [--report FILE] [--log-level L] [--schema]"

// parse reads the command line. Anything it does not recognise is refused
// before the project is loaded: a mistyped flag silently skipped would
// serve something other than what was asked for.
func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("vkmd", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&o.port, "port", 0, "UDP port to serve on (default: the project's port)")
	fs.BoolVar(&o.dev, "dev", false, "development server: tell dev clients so (hot reload)")
	fs.StringVar(&o.sim, "sim", "", "run the link through the simulator with this profile: perfect, lan, broadband, mobile, awful")
	fs.Uint64Var(&o.simSeed, "sim-seed", 0, "the simulator's seed (required with --sim)")
	fs.DurationVar(&o.duration, "duration", 0, "stop after this long (e.g. 30s); 0 serves until interrupted")
	fs.StringVar(&o.report, "report", "", "write a JSON summary to this file at exit")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.BoolVar(&o.schema, "schema", false, "print what the project puts on the wire and its fingerprint (what a refused join compares), then exit")
	for _, a := range args {
		if name := strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-"); strings.HasPrefix(a, "-") && name == "host" {
			return o, usageError{"--host is not a vkmd flag: vkmd is the host. Run `vkmd PROJECT_DIR` and join it with `client PROJECT_DIR --connect 127.0.0.1`"}
		}
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fs.SetOutput(stderr)
			fmt.Fprintln(stderr, usageLine)
			fs.PrintDefaults()
		}
		return o, usageError{"the project directory comes first: " + usageLine}
	}
	o.dir = args[0]
	if err := fs.Parse(args[1:]); err != nil {
		return o, usageError{fmt.Sprintf("%v (%s)", err, usageLine)}
	}
	if fs.NArg() > 0 {
		return o, usageError{fmt.Sprintf("unexpected argument %q: only the project directory is positional", fs.Arg(0))}
	}
	switch {
	case o.port < 0 || o.port > 65535:
		return o, usageError{fmt.Sprintf("--port %d is not a UDP port (1..65535)", o.port)}
	case o.sim == "" && o.simSeed != 0:
		return o, usageError{"--sim-seed without --sim: name a profile with --sim"}
	case o.sim != "" && o.simSeed == 0:
		return o, usageError{"--sim needs --sim-seed N: a simulated link is reproducible only from its seed"}
	case o.duration < 0:
		return o, usageError{"--duration must not be negative"}
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
	if o.schema {
		text, err := host.DescribeSchema(p)
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, text)
		return err
	}
	addr := ""
	if o.port != 0 {
		addr = fmt.Sprintf(":%d", o.port)
	}
	rep, err := host.Serve(ctx, host.ServeConfig{
		Project:  p,
		Addr:     addr,
		Dev:      o.dev,
		Sim:      o.sim,
		SimSeed:  o.simSeed,
		Duration: o.duration,
		Logger:   logger,
		Status:   stdout,
	})
	if o.report != "" && rep != nil {
		data, jerr := json.MarshalIndent(rep, "", "  ")
		if jerr == nil {
			jerr = os.WriteFile(o.report, append(data, '\n'), 0o644)
		}
		if err == nil {
			err = jerr
		}
	}
	return err
}

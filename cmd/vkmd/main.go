// Command vkmd serves a vkm project: a dedicated, headless server that runs
// the project's authoritative tick and referees without playing.
//
// Usage:
//
//	vkmd PROJECT_DIR [--port N] [--dev] [--sim PROFILE --sim-seed N] [--duration D] [--report FILE] [--log-level L] [--cpuprofile FILE] [--memprofile FILE]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"time"

	"vkm/host"
	"vkm/host/project"
	"vkm/internal/cli"
)

func main() {
	oneProc()
	cli.Main("vkmd", run)
}

// oneProc runs the server on one P unless GOMAXPROCS says otherwise. The
// serving loop (ticks, send rounds, the socket) is one goroutine; a second
// P only gives the scheduler somewhere to spin up and park threads each
// time the loop wakes. Serving the arena at 128 Hz to 4 players, one P
// took the context switches in 15 s from about 10,600 to 6,100 and the
// CPU by about a tenth; the 64-player crowd was no slower.
func oneProc() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
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
	cpuProf  string
	memProf  string
}

const usageLine = "usage: vkmd PROJECT_DIR [--port N] [--dev] [--sim PROFILE --sim-seed N] [--duration D] [--report FILE] [--log-level L] [--cpuprofile FILE] [--memprofile FILE] [--schema]"

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
	fs.StringVar(&o.cpuProf, "cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	fs.StringVar(&o.memProf, "memprofile", "", "write an allocation profile to this file at exit (go tool pprof)")
	fs.BoolVar(&o.schema, "schema", false, "print what the project puts on the wire and its fingerprint (what a refused join compares), then exit")
	for _, a := range args {
		if name := strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-"); strings.HasPrefix(a, "-") && name == "host" {
			return o, cli.Usagef("--host is not a vkmd flag: vkmd is the host. Run `vkmd PROJECT_DIR` and join it with `client PROJECT_DIR --connect 127.0.0.1`")
		}
	}
	help := func() {
		fs.SetOutput(stderr)
		fmt.Fprintln(stderr, usageLine)
		fs.PrintDefaults()
	}
	dir, rest, err := cli.ProjectFirst(args, usageLine, help)
	if err != nil {
		return o, err
	}
	o.dir = dir
	if err := fs.Parse(rest); err != nil {
		return o, cli.Usagef("%v (%s)", err, usageLine)
	}
	if err := cli.NoMorePositional(fs.Args()); err != nil {
		return o, err
	}
	switch {
	case o.port < 0 || o.port > 65535:
		return o, cli.Usagef("--port %d is not a UDP port (1..65535; 0 or none: the project's)", o.port)
	case o.duration < 0:
		return o, cli.Usagef("--duration must not be negative")
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
	if o.schema {
		text, err := host.DescribeSchema(p)
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, text)
		return err
	}
	stopProfile, err := profile(o.cpuProf, o.memProf)
	if err != nil {
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
	if perr := stopProfile(); err == nil {
		err = perr
	}
	if rep != nil {
		if cpu, rss, ok := usage(); ok {
			rep.CPUs = math.Round(cpu.Seconds()*1000) / 1000
			rep.MaxRSSMB = math.Round(float64(rss)/(1<<20)*10) / 10
		}
		if jerr := cli.WriteJSON(o.report, rep); err == nil {
			err = jerr
		}
	}
	return err
}

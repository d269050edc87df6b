// Command vkmd serves a vkm project: a dedicated, headless server that runs
// the project's authoritative tick and referees without playing.
//
// Usage:
//
//	vkmd <project-dir> [--port N] [--key FILE [--public ADDR,...] | --insecure] [--dev] [--sim PROFILE --sim-seed N] [--duration D] [--drain D] [--admin ADDR [--admin-public]] [--web ADDR [--wasm FILE]] [--fleet REDIS_URL] [--agones] [--report FILE] [--log-level L] [--log-format text|json] [--status] [--healthz-stall D] [--cpuprofile FILE] [--memprofile FILE] [--tick-log FILE] [--idle-gc=false] [--record DIR [--record-max BYTES]] [--schema] [--lan=false] [--relay HOST[:PORT]]
//	vkmd check <project-dir>
//	vkmd new <name>
//	vkmd replay <file.vkmrec> [--until TICK] [--dump] [--project DIR] [--report FILE] [--web ADDR:PORT]
//	vkmd keygen > FILE
//	vkmd token <project-dir> --key FILE --server ADDR[,ADDR] --client-id N [--name NAME] [--expires 1h] > player.token
//	vkmd -h | --version
//
// Without --key, vkmd serves on 127.0.0.1 only, and says so in its log
// (and its --status line): anyone whose build matches may join, and nothing is sealed. With
// --key (a file vkmd keygen writes), it serves on every interface and
// admits only players with a connect token minted under that key (by the
// game's backend with the Go package vkm/transport/token, or by vkmd
// token), sealing every datagram of their connections. --public names the
// addresses players reach the server at, which their tokens must name.
// --insecure serves every interface without a key. --fleet (with --key)
// lists the server, its first public address and its seats free, in a
// fleet directory in Redis, where lobbies (cmd/lobby) find it; the server
// leaves the directory as the first thing it does on the way out (a
// drain's start, a stop), so no lobby sends a player to it after.
// --agones runs it as an Agones game server (docs/operating.md, "Agones").
// --relay registers it with a relay (cmd/relay) and logs a join code,
// CODE@HOST:PORT, players join with instead of an address: the server
// needs no open port (docs/operating.md, "Join codes through a relay").
//
// --web serves browsers on an HTTP address: the game's page, and the
// same datagrams, handshake and tokens over WebRTC data channels (ICE on
// the same port number over UDP) or, where WebRTC cannot connect, a
// WebSocket. Like the UDP address, it is loopback only without --key
// unless --insecure.
//
// vkmd new NAME writes a small project in the folder NAME to start a game
// from: a project.toml, a scene, a player prefab and its scripts, each
// commented, which vkmd check passes and a client plays offline.
//
// vkmd check loads the project as a server would, without serving it, and
// prints every mistake it finds in its files, one a line, then exits 1; a
// clean project prints one line and exits 0. A project folder named check
// is served as vkmd ./check.
//
// The first SIGTERM or Ctrl-C drains the server: it seats no one new,
// /readyz turns not ready, the game's net.on_drain handler is told the
// time left, and the match plays on until every player has left or
// --drain (30s) has passed; then the players still seated are told the
// server shut down, the report is written, and vkmd exits 0. A second
// signal, or --drain 0, stops it at once.
//
// It exits 0 when stopped (Ctrl-C, SIGTERM, --duration), 1 when the project
// does not load or cannot be served, and 2 for a command line it cannot run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"vkm/host"
	"vkm/host/lan"
	"vkm/host/project"
	"vkm/internal/cli"
)

func main() {
	oneProc()
	leanHeap()
	cli.Main("vkmd", run)
}

// leanHeapGC is the collector's GOGC when the environment sets none: the
// heap may grow by half its live size between collections, not by all of
// it. A server's live heap is mostly what lives as long as the world (the
// world, the players' baselines and seats), so the room the collector
// paces itself to is what moves its resident size: serving the crowd to 64
// players, 2-5 MB less at the peak (41.7-43.0 MB against 44.3-46.7) for a
// collection every several seconds rather than every fifteen or so, each
// a few milliseconds of CPU run between ticks (see docs/operating.md).
const leanHeapGC = 50

// leanHeap sets the collector's GOGC to leanHeapGC unless GOGC says
// otherwise.
func leanHeap() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(leanHeapGC)
	}
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

// defaultDrain is how long the first signal lets a match play on: long
// enough for a round's end and a scoreboard, short enough for a container
// orchestrator's usual grace period before it kills the process.
const defaultDrain = 30 * time.Second

type options struct {
	dir      string
	done     bool // -h or --version answered: nothing to run
	port     int
	keyFile  string
	public   string
	serve    host.ServeConfig
	report   string
	logLevel string
	schema   bool
	cpuProf  string
	memProf  string
	tickLog  string
	fleet    string
	agones   bool
	// adminTokenFile holds the admin POST endpoints' bearer token;
	// console reads console lines from standard input.
	adminTokenFile string
	console        bool
	passwordFile   string
	// logFormat is --log-format; status, --status.
	logFormat string
	status    bool
	// lan is --lan: answer LAN discovery on lan.Port.
	lan bool
}

// command is vkmd's command line.
var command = cli.Command{Name: "vkmd", Commands: `  vkmd check <project-dir>
    	load a project as a server would and list every mistake in it
  vkmd new <name>
    	write a small project to start a game from, in the folder name
  vkmd keygen > FILE
    	write a new game key (for --key, vkmd token and the lobby)
  vkmd token <project-dir> --key FILE --server ADDR --client-id N
    	mint a connect token for one player (vkmd token -h: its flags)
  vkmd replay <file.vkmrec> [--until TICK] [--dump]
    	play a match recorded with --record, checking its world hashes (vkmd replay -h: its flags)
  vkmd wasm <file.wasm>
    	build the browser client as --web does, with wasm_exec.js beside it (for --wasm)
`, Exits: `  0  stopped by Ctrl-C (SIGINT) or SIGTERM, after its --drain; or its
     --duration passed; or -h, --version or --schema answered
  1  the project did not load, or could not be served
  2  the command line cannot be run: an unknown flag or argument, a bad
     value, no project directory
`}

// checkCommand is vkmd check's command line.
var checkCommand = cli.Command{Name: "vkmd check", Exits: `  0  the project is clean; or -h or --version answered
  1  the project has mistakes, each printed on a line of its own
  2  the command line cannot be run: an unknown flag or argument, no
     project directory
`}

// runCheck checks the project args name and prints what host.Check found:
// every mistake on a line of its own, then the summary, which is the error
// (exit 1) when there were mistakes.
func runCheck(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return cli.Usagef("vkmd check: no project directory (%s; to serve a folder named check, run vkmd ./check)", checkCommand.Synopsis())
	}
	fs := flag.NewFlagSet("vkmd check", flag.ContinueOnError)
	dir, done, err := checkCommand.Parse(fs, args, stdout)
	if err != nil || done {
		return err
	}
	r := host.Check(dir)
	for _, e := range r.Errors {
		fmt.Fprintln(stdout, e)
	}
	if len(r.Errors) > 0 {
		return errors.New(r.Summary())
	}
	_, err = fmt.Fprintln(stdout, r.Summary())
	return err
}

// parse reads the command line into the server's configuration. Anything
// it does not recognise, and any value Serve would refuse, is refused
// before the project is loaded: a mistyped flag silently skipped would
// serve something other than what was asked for. -h and --version print to
// stdout.
func parse(args []string, stdout io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("vkmd", flag.ContinueOnError)
	fs.IntVar(&o.port, "port", 0, "UDP port to serve on (default: the project's)")
	fs.BoolVar(&o.serve.Dev, "dev", false, "development server: tell dev clients so (hot reload)")
	fs.StringVar(&o.serve.Sim, "sim", "", "run the link through the simulator with this profile: perfect, lan, broadband, mobile, awful")
	fs.Uint64Var(&o.serve.SimSeed, "sim-seed", 0, "the simulator's seed (required with --sim)")
	fs.DurationVar(&o.serve.Duration, "duration", 0, "stop after this long (e.g. 30s); 0 serves until interrupted")
	fs.DurationVar(&o.serve.DrainTime, "drain", defaultDrain, "on the first SIGTERM or Ctrl-C, seat no one new and play on until the players leave or this long has passed (a second signal stops at once); 0 stops at once")
	fs.StringVar(&o.report, "report", "", "write a JSON summary to this file at exit")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&o.logFormat, "log-format", "text", "text (key=value) or json (one object a line, for a log collector)")
	fs.BoolVar(&o.status, "status", false, "print a status line a second on stdout: the tick, the players and each player's link (round trip, loss, bytes a second, repeats, skips)")
	fs.DurationVar(&o.serve.HealthStall, "healthz-stall", time.Second, "with --admin: /healthz fails once the serving loop has run no tick for this long (never less than two tick periods)")
	fs.StringVar(&o.cpuProf, "cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	fs.StringVar(&o.memProf, "memprofile", "", "write an allocation profile to this file at exit (go tool pprof)")
	fs.BoolVar(&o.serve.IdleGC, "idle-gc", true, "run the garbage collector between ticks, before it would begin during one, where a collection fits before the next tick (the heap is bounded as without it)")
	fs.StringVar(&o.tickLog, "tick-log", "", "time every tick's phases: write a CSV row a tick to this file, and list the slowest ticks in --report")
	fs.StringVar(&o.serve.Admin, "admin", "", "serve /metrics, /healthz, /readyz and /debug/pprof/ over HTTP on this address (e.g. 127.0.0.1:9100); loopback only unless --admin-public")
	fs.BoolVar(&o.serve.AdminPublic, "admin-public", false, "let --admin listen on an address that is not loopback")
	fs.StringVar(&o.serve.Web, "web", "", "serve browsers over HTTP on this address (e.g. 127.0.0.1:8080): the game's page, and play over WebRTC (ICE on the same port number over UDP) or WebSocket; loopback only without --key unless --insecure")
	fs.BoolVar(&o.serve.WebTransport, "webtransport", false, "with --web: also serve WebTransport sessions (HTTP/3 datagrams) on the next UDP port, which pages then try first (a browser in a secure context: https or loopback); off by default, as a WebTransport peer costs the server no less CPU than a WebRTC one")
	fs.StringVar(&o.serve.WebClient, "wasm", "", "with --web: serve this prebuilt browser client (vkmd wasm FILE writes it, wasm_exec.js beside it) instead of building it with the go toolchain at start")
	fs.StringVar(&o.keyFile, "key", "", "the game's key file (vkmd keygen writes one): admit only players with a connect token, and seal their connections")
	fs.StringVar(&o.public, "public", "", "with --key: the addresses players reach this server at, IP:PORT[,IP:PORT] (default: the address served on)")
	fs.BoolVar(&o.serve.Insecure, "insecure", false, "serve every interface without a key: anyone whose build matches may join, unsealed")
	fs.StringVar(&o.fleet, "fleet", "", "with --key: register in the fleet directory in this Redis (redis://HOST:PORT), where lobbies find the server's free seats")
	fs.BoolVar(&o.agones, "agones", false, "run as an Agones game server: talk to the SDK server in the pod (AGONES_SDK_HTTP_PORT, 9358 by default): the public address from the GameServer (without --public), Ready once serving, Health on the loop's ticks, players, Allocate when players come to a Ready server, Shutdown when a match ends or the server stops")
	fs.StringVar(&o.serve.MOTD, "motd", "", "the message of the day each player is sent in the chat as they join (default: the project's motd)")
	fs.StringVar(&o.serve.AccessFile, "access-file", "", "the access list: bans and allows by client id and address, one a line (ban id 42 cheating; ban addr 203.0.113.7 spam; allow id 7), read at start and rewritten by every ban and unban")
	fs.StringVar(&o.adminTokenFile, "admin-token-file", "", "a file holding the bearer token the admin listener's POST endpoints (kick, ban, unban, mute, unmute, say, players) require; without it they answer 401")
	fs.StringVar(&o.passwordFile, "password-file", "", "admit only players who know the password in FILE (its text, trimmed; client --password-file): a Hello proves it without sending it, checked in constant time; others are refused with reason 14 (password)")
	fs.BoolVar(&o.console, "console", false, "read console lines on standard input: players, kick N reason, ban N reason, ban id|addr VALUE reason, unban id|addr VALUE, mute N, unmute N, say TEXT")
	fs.StringVar(&o.serve.Record, "record", "", "record the match into a new file in this folder (PROJECT-DATE.vkmrec): what entered the simulation tick by tick, which `vkmd replay FILE` plays again exactly")
	fs.Int64Var(&o.serve.RecordMax, "record-max", 0, "bound the recording's file to this many bytes (default 256 MiB); past it the recording ends and the match plays on")
	fs.BoolVar(&o.schema, "schema", false, "print what the project puts on the wire and its fingerprint (what a refused join compares), then exit")
	for _, a := range args {
		if name := strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-"); strings.HasPrefix(a, "-") && name == "host" {
			return o, cli.Usagef("--host is not a vkmd flag: vkmd is the host. Run `vkmd PROJECT_DIR` and join it with `client PROJECT_DIR --connect 127.0.0.1`")
		}
	}
	fs.StringVar(&o.serve.Relay, "relay", "", "register with the relay at HOST[:PORT] (cmd/relay; default port 27900) and print a join code, CODE@HOST:PORT, that players behind any NAT join with (client --connect CODE@HOST:PORT) without a forwarded port; every datagram stays sealed end to end")
	fs.BoolVar(&o.lan, "lan", true, "answer LAN discovery (client --lan) on UDP port 27959, shared with every server on this machine: the project, its players and seats, the game's port, whether a key is needed; a server on loopback answers only this machine")
	var err error
	if o.dir, o.done, err = command.Parse(fs, args, stdout); err != nil || o.done {
		return o, err
	}
	if o.lan {
		o.serve.LAN = lan.Port
	}
	if o.port != 0 {
		o.serve.Addr = fmt.Sprintf(":%d", o.port)
	}
	if o.public != "" {
		if o.serve.Public, err = host.ParsePublic(o.public); err != nil {
			return o, cli.Usagef("%v", err)
		}
	}
	if o.keyFile != "" {
		k, err := host.ReadKeyFile(o.keyFile)
		if err != nil {
			return o, err
		}
		o.serve.Key = &k
	}
	if o.adminTokenFile != "" {
		b, err := os.ReadFile(o.adminTokenFile)
		if err != nil {
			return o, err
		}
		if o.serve.AdminToken = strings.TrimSpace(string(b)); o.serve.AdminToken == "" {
			return o, cli.Usagef("--admin-token-file %s is empty", o.adminTokenFile)
		}
	}
	if o.passwordFile != "" {
		if o.serve.Password, err = host.ReadPasswordFile(o.passwordFile); err != nil {
			return o, err
		}
	}
	if o.console {
		o.serve.Console, o.serve.ConsoleOut = os.Stdin, os.Stdout
	}
	if err := o.serve.Validate(); err != nil {
		return o, cli.Usagef("%v", err)
	}
	if o.serve.HealthStall <= 0 {
		return o, cli.Usagef("--healthz-stall %v: it must be above 0", o.serve.HealthStall)
	}
	if o.logFormat != "text" && o.logFormat != "json" {
		return o, cli.Usagef("--log-format %q: text or json", o.logFormat)
	}
	if o.serve.WebClient != "" && o.serve.Web == "" {
		return o, cli.Usagef("--wasm without --web: the browser client is served by the web listener")
	}
	if o.agones && o.serve.Key == nil && !o.serve.Insecure {
		return o, cli.Usagef("--agones needs --key (or --insecure): players reach the server from outside its pod")
	}
	if o.fleet != "" && o.serve.Key == nil {
		return o, cli.Usagef("--fleet needs --key: a lobby sends players with tokens minted under the game's key")
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "check":
			return runCheck(args[1:], stdout)
		case "keygen":
			return runKeygen(args[1:], stdout)
		case "token":
			return runToken(args[1:], stdout)
		case "replay":
			return runReplay(args[1:], stdout, stderr)
		case "new":
			return runNew(args[1:], stdout)
		case "wasm":
			return runWasm(args[1:], stdout)
		}
	}
	o, err := parse(args, stdout)
	if err != nil || o.done {
		return err
	}
	logger, err := cli.FormatLogger(o.logLevel, o.logFormat, stderr)
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
	cfg := o.serve
	cfg.Project, cfg.Logger, cfg.Version = p, logger, cli.BuildVersion()
	if o.status {
		cfg.Status = stdout
	}
	if o.tickLog != "" {
		f, err := os.Create(o.tickLog)
		if err != nil {
			return err
		}
		defer f.Close()
		cfg.TickLog = f
	}
	cfg.Drain = cli.Stops(ctx)
	if o.agones {
		leaveAgones, err := host.JoinAgones(ctx, &cfg, logger)
		if err != nil {
			return err
		}
		defer leaveAgones()
	}
	if o.fleet != "" {
		var leave func()
		if ctx, leave, err = joinFleet(ctx, o.fleet, &cfg, p, logger); err != nil {
			return err
		}
		defer leave()
	}
	rep, err := host.Serve(ctx, cfg)
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

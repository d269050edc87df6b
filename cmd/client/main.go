// Command client is vkm's reference client. With --connect it joins a vkmd
// server; with --lobby it asks a lobby (cmd/lobby) for a server and a token
// (sending the JWT in --lobby-jwt, if given), waits out a lobby's
// Retry-After, and asks it for another server when the one it named does
// not seat it; with no --connect it plays a project offline. --headless --bot
// wander plays with a seeded bot, --bots N runs N such clients in one process
// (the load generator), and --report writes a JSON summary. --spectate
// watches a server's match without a seat, following player --follow N. A
// recording (vkmd --record) plays headless with a report, or with --view
// on a page with a timeline.
//
// Usage:
//
//	client <file.vkmrec> --headless [--until TICK] [--dump] [--project DIR] [--report FILE]
//	client <file.vkmrec> --view ADDR:PORT [--until TICK] [--project DIR]
//	client <project-dir> [--guests N] [--connect ADDR[:PORT]|CODE@RELAY [--web URL] [--token FILE | --key FILE [--client-id N]] | --web URL | --lobby URL [--lobby-jwt FILE]] [--name N] [--spectate [--follow N]] [--view ADDR:PORT | --headless] [--bot KIND] [--bots N [--lite]] [--bot-seed N] [--sim PROFILE --sim-seed N] [--duration D] [--report FILE] [--log-level L]
//	client <project-dir> --lan
//	client -h | --version
//
// It exits 0 when its run ends with every client offline or seated
// (--duration, Ctrl-C), 1 when a client could not run, was refused or
// disconnected, never heard back from its server or met script errors (the
// report says which and how), and 2 for a command line it cannot run.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"vkm/host"
	"vkm/host/bot"
	"vkm/host/fleet"
	"vkm/host/lan"
	"vkm/host/project"
	"vkm/internal/cli"
	"vkm/transport/token"
)

func main() { cli.Main("client", run) }

// command is the client's command line.
var command = cli.Command{Name: "client", Exits: `  0  the run ended with every client offline or seated on its server: its
     --duration passed or Ctrl-C stopped it; or -h or --version answered
  1  a client failed: it could not run, was refused, was disconnected,
     never heard back from the server, or its scripts raised errors. The
     report's "exit" says how each client's run ended and "failed" lists
     those that failed
  2  the command line cannot be run: an unknown flag or argument, a bad
     value, no project directory
`}

type options struct {
	dir      string
	done     bool // -h or --version answered: nothing to run
	play     host.PlayConfig
	headless bool
	// followSet says --follow was given.
	followSet bool
	bot       string
	bots      int
	lite      bool
	botSeed   uint64
	report    string
	logLevel  string
	token     string
	keyFile   string
	// passwordFile holds the server's password (--password-file).
	passwordFile string
	lobby        string
	lobbyJWT     string
	bearer       string     // the JWT --lobby-jwt holds
	want         fleet.Want // what the lobby is asked for
	// lan lists the servers a LAN search finds, and plays nothing.
	lan bool
}

// parse reads the command line into the client's configuration, refusing
// before the project is loaded anything it does not recognise, a
// combination of flags it cannot play and any value Play or PlayBots would
// refuse. -h and --version print to stdout.
func parse(args []string, stdout io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	fs.StringVar(&o.play.Connect, "connect", "", "join the server at ADDR[:PORT] (no port: the project's), or by its join code through a relay, CODE@RELAY[:PORT] (vkmd --relay prints it); without it, play offline")
	fs.StringVar(&o.play.Web, "web", "", "join the server through its web listener (vkmd --web) at URL instead of UDP: http://HOST:PORT over a WebRTC data channel, ws://HOST:PORT over its WebSocket fall-back, wt://HOST:PORT over WebTransport (HTTP/3); --connect then only names the server in a token --key mints")
	fs.StringVar(&o.play.Name, "name", "", "the player's name the server is told")
	fs.BoolVar(&o.play.Dev, "dev", false, "take a dev server's hot reloads")
	fs.BoolVar(&o.play.Spectate, "spectate", false, "with --connect or --web: join as a spectator, who watches without a seat or an entity (the project's spectators bound them, apart from its players)")
	fs.Func("follow", "with --spectate: follow player `N` from the start (0: the whole level)", func(s string) error {
		n, err := strconv.ParseUint(s, 10, 16)
		if err != nil {
			return fmt.Errorf("not a player number: %q", s)
		}
		o.play.Follow, o.followSet = uint16(n), true
		return nil
	})
	fs.StringVar(&o.play.Sim, "sim", "", "run the link through the simulator: perfect, lan, broadband, mobile, awful")
	fs.Uint64Var(&o.play.SimSeed, "sim-seed", 0, "the simulator's seed (required with --sim)")
	fs.BoolVar(&o.headless, "headless", false, "run without a view")
	fs.StringVar(&o.play.View, "view", "", "serve the game as a web page at ADDR:PORT (e.g. 127.0.0.1:8080) and play it there")
	fs.StringVar(&o.bot, "bot", "", "let a bot play: "+strings.Join(bot.Kinds, ", "))
	fs.IntVar(&o.bots, "bots", 0, "run this many bot clients in one process, each with its own socket (bot i plays seed --bot-seed + i); implies --bot wander unless --bot says otherwise")
	fs.BoolVar(&o.lite, "lite", false, "with --bots and --connect: lite clients that join and play their bot's commands without simulating a world of their own, so one machine can seat a crowd")
	fs.Uint64Var(&o.botSeed, "bot-seed", 1, "the bot's seed (the same seed plays the same match)")
	fs.DurationVar(&o.play.Duration, "duration", 0, "stop after this long (e.g. 10s); 0 runs until interrupted")
	fs.StringVar(&o.token, "token", "", "join a server with a key using the connect token in FILE (- reads stdin)")
	fs.StringVar(&o.passwordFile, "password-file", "", "the server's password, read from FILE (its text, trimmed), for a server run with --password-file")
	fs.StringVar(&o.keyFile, "key", "", "for development: the game's key FILE; the client (and each bot) mints its own token")
	fs.Uint64Var(&o.play.ClientID, "client-id", 0, "with --key: the client id the minted token carries (default: random; bot i gets i)")
	fs.StringVar(&o.lobby, "lobby", "", "join through the lobby at URL (http://HOST:PORT): it names a server with a free seat and hands a token for it; with --bots, one request per bot")
	fs.StringVar(&o.lobbyJWT, "lobby-jwt", "", "with --lobby: a file holding the JWT the game's backend gave this player, which the lobby checks (its subject is the player's client id)")
	fs.StringVar(&o.report, "report", "", "write a JSON summary of the run to this file")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.IntVar(&o.play.Guests, "guests", 0, "with a server: seat this many more players (0 to 7) on this client's connection, on one screen: with --view the page drives them (guest 1 the arrow-side keys, the others gamepads), with --bot each plays a bot of its own (seed --bot-seed + 100 + i)")
	fs.BoolVar(&o.lan, "lan", false, "list the servers on this network and this machine (a LAN discovery broadcast on UDP port 27959): one line each, ADDR:PORT PROJECT PLAYERS/SEATS, then exit (1 if none answered)")
	var err error
	if o.dir, o.done, err = command.Parse(fs, args, stdout); err != nil || o.done {
		return o, err
	}
	if o.lan {
		return o, nil
	}
	if o.bots != 0 && o.bot == "" {
		o.bot = "wander"
	}
	if err := o.check(); err != nil {
		return o, err
	}
	return o, o.validate()
}

// check refuses combinations of flags the client cannot play.
func (o *options) check() error {
	headless, view := o.headless, o.play.View != ""
	switch {
	case o.lobby != "" && (o.play.Connect != "" || o.play.Web != "" || o.token != "" || o.keyFile != ""):
		return cli.Usagef("--lobby names the server and hands the token: drop --connect, --web, --token and --key")
	case o.lobbyJWT != "" && o.lobby == "":
		return cli.Usagef("--lobby-jwt is the lobby's: give --lobby URL")
	case o.lobbyJWT != "" && o.bots > 1:
		return cli.Usagef("--lobby-jwt is one player's: a lobby seats one client id once, so --bots N through it needs a JWT each (or a lobby run with --insecure)")
	case o.lite && (o.bots == 0 || (o.play.Connect == "" && o.play.Web == "" && o.lobby == "")):
		return cli.Usagef("--lite is for bot clients of a server: it needs --bots N and --connect, --web or --lobby")
	case o.followSet && !o.play.Spectate:
		return cli.Usagef("--follow is a spectator's: add --spectate")
	case o.play.Spectate && o.play.Connect == "" && o.play.Web == "":
		return cli.Usagef("--spectate watches a server's match: give --connect ADDR or --web URL")
	case o.play.Spectate && o.bots != 0:
		return cli.Usagef("--spectate is one client's: drop --bots")
	case headless && view:
		return cli.Usagef("--headless runs without a view and --view serves one: give one of them")
	case !headless && !view:
		return cli.Usagef("say how to see the game: --view 127.0.0.1:8080 serves it as a web page; --headless --bot wander plays without one")
	case view && o.bots != 0:
		return cli.Usagef("--bots runs many clients without a view: drop --view")
	case headless && o.bot == "" && !o.play.Spectate:
		return cli.Usagef("--headless needs a player: add --bot wander")
	case o.play.Guests != 0 && o.play.Spectate:
		return cli.Usagef("--guests seats players; a spectator plays no one: drop one")
	case o.play.Guests != 0 && o.bots != 0:
		return cli.Usagef("--guests seats players on one client's connection; --bots runs many clients: drop one")
	case o.play.Guests != 0 && o.play.Connect == "" && o.play.Web == "" && o.lobby == "":
		return cli.Usagef("--guests seats players on a connection to a server: give --connect, --web or --lobby")
	}
	return nil
}

// validate refuses the values the host would refuse.
func (o *options) validate() error {
	var err error
	switch {
	case o.bots != 0:
		err = o.botsConfig().Validate()
	case o.bot != "":
		err = bot.CheckKind(o.bot)
	}
	if err == nil {
		err = o.play.Validate()
	}
	if err != nil {
		return cli.Usagef("%v", err)
	}
	return nil
}

func (o *options) botsConfig() *host.BotsConfig {
	c := &host.BotsConfig{Play: o.play, Kind: o.bot, Seed: o.botSeed, Count: o.bots, Lite: o.lite}
	if o.lobby != "" {
		lobby, want := o.lobbyClient(), o.want
		c.Join = func(ctx context.Context, _ int, name string) (string, *token.Token, error) {
			addr, tok, err := lobby.Join(ctx, want, name)
			if err != nil {
				return "", nil, err
			}
			return addr.String(), &tok, nil
		}
	}
	return c
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if isRecording(args) {
		return runReplay(args, stdout, stderr)
	}
	o, err := parse(args, stdout)
	if err != nil || o.done {
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
	if o.lan {
		return searchLAN(ctx, stdout)
	}
	o.play.Project, o.play.Logger = p, logger
	if o.passwordFile != "" {
		pw, err := host.ReadPasswordFile(o.passwordFile)
		if err != nil {
			return err
		}
		o.play.Password = pw
	}
	if o.token != "" {
		t, err := host.ReadTokenFile(o.token, os.Stdin)
		if err != nil {
			return err
		}
		o.play.Token = &t
	}
	if o.keyFile != "" {
		k, err := host.ReadKeyFile(o.keyFile)
		if err != nil {
			return err
		}
		o.play.Key = &k
	}
	if o.lobby != "" {
		// The lobby sends the client only to a server of its own build.
		id, err := host.ProjectIdentity(p)
		if err != nil {
			return err
		}
		o.want = fleet.Want{Project: p.Name, Fingerprint: id.Fingerprint, Protocol: id.Protocol}
		if o.lobbyJWT != "" {
			if o.bearer, err = readJWT(o.lobbyJWT); err != nil {
				return err
			}
		}
	}
	if o.bots != 0 {
		return runBots(ctx, o, logger)
	}
	if o.bot != "" {
		b, err := bot.New(o.bot, o.botSeed, len(p.Axes), len(p.Buttons))
		if err != nil {
			return err
		}
		o.play.Input = b // with --view the page watches it play
		for i := 1; i <= o.play.Guests; i++ {
			// Each guest plays a bot of its own.
			g, err := bot.New(o.bot, o.botSeed+100+uint64(i), len(p.Axes), len(p.Buttons))
			if err != nil {
				return err
			}
			o.play.GuestInputs = append(o.play.GuestInputs, g)
		}
	}
	var rep host.ClientReport
	if o.lobby != "" {
		var played bool
		if rep, played, err = playThroughLobby(ctx, o, logger); !played {
			return err
		}
	} else {
		rep, err = host.Play(ctx, o.play)
	}
	logger.Info("run done", "state", rep.State, "exit", rep.Exit, "ticks", rep.Ticks, "distance_m", rep.DistanceM, "events", rep.Events, "errors", rep.Errors, "last_error", rep.LastError)
	reps := host.NewReport(rep)
	if werr := cli.WriteJSON(o.report, reps); err == nil {
		err = werr
	}
	if err == nil {
		err = reps.Err()
	}
	return err
}

// runBots runs --bots N clients and fails when any of them did: the report
// says which and how.
func runBots(ctx context.Context, o options, logger *slog.Logger) error {
	reps, err := host.PlayBots(ctx, *o.botsConfig())
	exits := map[string]int{}
	for _, c := range reps.Clients {
		exits[c.Exit]++
	}
	logger.Info("run done", "clients", len(reps.Clients), "exits", exits, "failed", reps.Failed)
	if len(reps.Clients) > 0 {
		// One line naming the clients that failed, those that could
		// not run among them, rather than each one's error.
		err = reps.Err()
	}
	if werr := cli.WriteJSON(o.report, reps); err == nil {
		err = werr
	}
	return err
}

// maxServers bounds how many servers a client sent by a lobby tries: the
// lobby's first and, each time one does not seat it, another the lobby
// names passing over those tried. Tuning constant: a server that does not
// answer costs the join's timeout (10 s) each, and two in a row already
// say more about the client's network than about the servers.
const maxServers = 3

// playThroughLobby asks the lobby for a server and plays there. When the
// server does not seat the client (it did not answer the join, or refused
// it as full or shutting down), it asks the lobby again for another,
// passing over the servers tried, up to maxServers; a run with a
// --duration shares it among the tries. played is false when the lobby
// named no server at all (err says why).
func playThroughLobby(ctx context.Context, o options, logger *slog.Logger) (rep host.ClientReport, played bool, err error) {
	lobby, want := o.lobbyClient(), o.want
	start := time.Now()
	for tried := 1; ; tried++ {
		addr, tok, jerr := lobby.Join(ctx, want, o.play.Name)
		if jerr != nil {
			if played {
				logger.Warn("the lobby named no other server", "err", jerr)
				return rep, true, err
			}
			return rep, false, jerr
		}
		logger.Info("the lobby seats us", "server", addr.String())
		pc := o.play
		pc.Connect, pc.Token = addr.String(), &tok
		if pc.Duration > 0 {
			if pc.Duration -= time.Since(start); pc.Duration <= 0 {
				return rep, played, err
			}
		}
		var seated atomic.Bool
		pc.OnState = func(state, why string) {
			if state == statePlaying {
				seated.Store(true)
			}
			if o.play.OnState != nil {
				o.play.OnState(state, why)
			}
		}
		rep, err = host.Play(ctx, pc)
		played = true
		if err != nil || seated.Load() || !unseated(rep) || tried == maxServers || ctx.Err() != nil || len(want.Skip) == fleet.MaxSkip {
			return rep, true, err
		}
		logger.Warn("the server did not seat us: asking the lobby for another", "server", addr.String(), "state", rep.State, "why", rep.LastError)
		want.Skip = append(want.Skip, addr)
	}
}

// The words of a session's state and a refusal's reason, as OnState and
// the report's state and refusal spell them (transport.ClientState's and
// handshake.Reason's String), that tell a client it may do better on
// another server.
const (
	statePlaying      = "playing"
	stateDisconnected = "disconnected"
	stateRefused      = "refused"
	refusedFull       = "full"
	refusedStopping   = "shutting_down"
)

// unseated reports whether a run that never got a seat ended in a way
// another server may answer better: the server did not answer the join
// (the session ended, silent), or refused it as full or shutting down.
func unseated(rep host.ClientReport) bool {
	switch rep.State {
	case stateDisconnected:
		return true
	case stateRefused:
		return rep.Refusal == refusedFull || rep.Refusal == refusedStopping
	}
	return false
}

func (o *options) lobbyClient() *fleet.LobbyClient {
	return &fleet.LobbyClient{URL: o.lobby, Bearer: o.bearer}
}

// maxJWTFile bounds a --lobby-jwt file: a JWT is a few hundred bytes.
const maxJWTFile = 8192

// readJWT reads a --lobby-jwt file: one JWT, white space around it
// ignored.
func readJWT(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("client: --lobby-jwt: %v", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxJWTFile+1))
	if err != nil {
		return "", fmt.Errorf("client: --lobby-jwt: %v", err)
	}
	jwt := strings.TrimSpace(string(b))
	if len(b) > maxJWTFile || jwt == "" || strings.Count(jwt, ".") != 2 || strings.ContainsAny(jwt, " \t\r\n") {
		return "", fmt.Errorf("client: --lobby-jwt %s does not hold one JWT (header.payload.signature)", path)
	}
	return jwt, nil
}

// searchLAN prints every server that answers a LAN search within a second,
// one a line, and fails if none did.
func searchLAN(ctx context.Context, stdout io.Writer) error {
	games, err := host.SearchLAN(ctx, lan.Port, time.Second, host.LANTargets)
	if err != nil {
		return err
	}
	for _, g := range games {
		key := ""
		if g.Key {
			key = " key"
		}
		fmt.Fprintf(stdout, "%v %s %d/%d%s\n", g.Addr, g.Project, g.Players, g.Seats, key)
	}
	if len(games) == 0 {
		return fmt.Errorf("no server answered a LAN search (UDP port %d) within a second", lan.Port)
	}
	return nil
}

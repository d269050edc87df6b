package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"vkm/host"
	"vkm/host/project"
	"vkm/internal/cli"
)

// tokenCommand is vkmd token's command line.
var tokenCommand = cli.Command{Name: "vkmd token", Exits: `  0  the token was written to stdout; or -h or --version answered
  1  the project or the key file did not load, or the token could not be minted
  2  the command line cannot be run: an unknown flag or argument, a bad
     value, no project directory
`}

// runKeygen writes a fresh key, in a key file's form, to stdout.
func runKeygen(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return cli.Usagef("vkmd keygen takes no arguments: run vkmd keygen > game.key")
	}
	text, err := host.NewKeyText()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", text)
	return err
}

// runToken mints a connect token for one player and writes its text form
// to stdout: what a backend would hand the player, for testing a server
// with a key or handing a trusted player a seat by hand.
func runToken(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("vkmd token", flag.ContinueOnError)
	keyFile := fs.String("key", "", "the game's key file (required)")
	servers := fs.String("server", "", "the server's address as players reach it, IP:PORT or HOST:PORT; several separated by commas (required)")
	client := fs.Uint64("client-id", 0, "the player's id in the game's accounts (required, not 0)")
	name := fs.String("name", "", "the player's name (at most 32 bytes)")
	life := fs.Duration("expires", time.Hour, "how long the token stays valid")
	dir, done, err := tokenCommand.Parse(fs, args, stdout)
	if err != nil || done {
		return err
	}
	switch {
	case *keyFile == "":
		return cli.Usagef("vkmd token: --key FILE is required (vkmd keygen makes one)")
	case *servers == "":
		return cli.Usagef("vkmd token: --server ADDR is required: the address players reach the server at")
	case *client == 0:
		return cli.Usagef("vkmd token: --client-id N is required and not 0")
	case *life <= 0:
		return cli.Usagef("vkmd token: --expires %v: give a positive duration such as 1h", *life)
	}
	key, err := host.ReadKeyFile(*keyFile)
	if err != nil {
		return err
	}
	p, err := project.LoadProject(dir)
	if err != nil {
		return err
	}
	text, err := host.MintToken(&key, host.TokenRequest{
		Game: p.Name, Servers: strings.Split(*servers, ","), Client: *client, Name: *name, Life: *life,
	}, time.Now())
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "host: "))
	}
	_, err = fmt.Fprintf(stdout, "%s\n", text)
	return err
}

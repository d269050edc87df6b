//go:build !js

package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Command is one program's command line: the project directory first, then
// the flags. The flag package stops at the first argument that is not a
// flag, so Parse takes the directory off the front, parses the rest and
// refuses any further positional argument by name.
type Command struct {
	// Name is the program's name, which starts its usage and its messages.
	Name string
	// Exits follows the flags in the usage: the exit statuses and what
	// each means, one indented line per status.
	Exits string
	// Arg names the positional argument in the usage; empty is
	// "<project-dir>".
	Arg string
	// Commands, if set, follows the synopsis in the usage: the program's
	// other commands (vkmd check, keygen...), one indented line each with
	// what it does.
	Commands string
}

// arg is the positional argument's name in the usage.
func (c Command) arg() string {
	if c.Arg == "" {
		return "<project-dir>"
	}
	return c.Arg
}

// Synopsis is the usage's first line, which a usage error repeats.
func (c Command) Synopsis() string { return "usage: " + c.Name + " " + c.arg() + " [flags]" }

// Parse reads args into fs and returns the project directory. -h, -help or
// --help (first, or among the flags) prints the usage to stdout, and
// --version the version; either then returns done, and the program exits 0
// without loading anything. Parse adds the -version flag to fs and silences
// fs's own output: a command line it cannot run comes back as a one-line
// UsageError.
func (c Command) Parse(fs *flag.FlagSet, args []string, stdout io.Writer) (dir string, done bool, err error) {
	version := fs.Bool("version", false, "print the version and the protocol version it speaks, then exit")
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		switch {
		case len(args) > 0 && isHelp(args[0]):
			return "", true, c.Usage(fs, stdout)
		case len(args) > 0 && (args[0] == "-version" || args[0] == "--version"):
			return "", true, c.printVersion(stdout)
		}
		if c.Arg != "" {
			return "", false, Usagef("%s comes first: %s", c.Arg, c.Synopsis())
		}
		return "", false, Usagef("the project directory comes first: %s", c.Synopsis())
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", true, c.Usage(fs, stdout)
		}
		return "", false, Usagef("%v (%s; %s -h lists the flags)", err, c.Synopsis(), c.Name)
	}
	if *version {
		return "", true, c.printVersion(stdout)
	}
	if left := fs.Args(); len(left) > 0 {
		return "", false, Usagef("unexpected argument %q: only the project directory is positional", left[0])
	}
	return args[0], false, nil
}

// isHelp reports the arguments the flag package reads as a request for
// help when no flag of that name is defined.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "--h", "-help", "--help":
		return true
	}
	return false
}

// Usage writes the usage to w: the synopsis, -h, fs's flags, the exit
// statuses.
func (c Command) Usage(fs *flag.FlagSet, w io.Writer) error {
	fmt.Fprintf(w, "%s\n", c.Synopsis())
	if c.Commands != "" {
		fmt.Fprintf(w, "\ncommands:\n%s", c.Commands)
	}
	fmt.Fprintf(w, "\nflags:\n  -h, --help\n    \tprint this usage, then exit\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	_, err := fmt.Fprintf(w, "\nexit status:\n%s", c.Exits)
	return err
}

func (c Command) printVersion(w io.Writer) error {
	_, err := fmt.Fprintln(w, Version(c.Name))
	return err
}

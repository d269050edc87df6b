// Package cli holds what vkm's two programs share on the command line: the
// project directory first, exit codes (2 for a command line that cannot be
// run, 1 for a failure), the log level, the link simulator's flags and the
// JSON report.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// UsageError is a command line that cannot be run. It exits 2, before
// anything is loaded.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// Usagef returns a UsageError.
func Usagef(format string, args ...any) error { return UsageError{fmt.Sprintf(format, args...)} }

// Main runs a program's run function with a context that ends on SIGINT or
// SIGTERM, and exits with its code once run's defers have run.
func Main(prog string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(ExitCode(prog, err, os.Stderr))
}

// ExitCode prints err (if any) as "prog: err" and returns the exit code: 0,
// 2 for a UsageError, 1 otherwise.
func ExitCode(prog string, err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	var u UsageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

// ProjectFirst takes the project directory off the front of args. The flag
// package stops at the first argument that is not a flag, so the directory
// comes first and flags after it; help is printed when asked for.
func ProjectFirst(args []string, usage string, help func()) (dir string, rest []string, err error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			help()
		}
		return "", nil, Usagef("the project directory comes first: %s", usage)
	}
	return args[0], args[1:], nil
}

// NoMorePositional refuses arguments left after the flags.
func NoMorePositional(left []string) error {
	if len(left) > 0 {
		return Usagef("unexpected argument %q: only the project directory is positional", left[0])
	}
	return nil
}

// CheckSim checks the link simulator's flags: a profile needs a seed, since a
// simulated link is reproducible only from it, and a seed needs a profile.
func CheckSim(profile string, seed uint64) error {
	switch {
	case profile == "" && seed != 0:
		return Usagef("--sim-seed without --sim: name a profile with --sim")
	case profile != "" && seed == 0:
		return Usagef("--sim needs --sim-seed N: a simulated link is reproducible only from its seed")
	}
	return nil
}

// Logger builds the text logger for --log-level.
func Logger(level string, w io.Writer) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, Usagef("--log-level: %v", err)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// WriteJSON writes v, indented, to file (nothing when file is empty).
func WriteJSON(file string, v any) error {
	if file == "" {
		return nil
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}

//go:build !js

// Package cli holds what vkm's two programs share on the command line: the
// project directory first and flags after it, -h and --version, exit codes
// (2 for a command line that cannot be run, 1 for a failure), the log level
// and the JSON report.
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
	"sync/atomic"
	"syscall"
)

// UsageError is a command line that cannot be run. It exits 2, before
// anything is loaded.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// Usagef returns a UsageError.
func Usagef(format string, args ...any) error { return UsageError{fmt.Sprintf(format, args...)} }

// Main runs a program's run function with a context that ends on SIGINT or
// SIGTERM (unless run takes the signals with Stops), and exits with its
// code once run's defers have run.
func Main(prog string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	ctx, cancel := context.WithCancel(context.Background())
	st := &stopper{ch: make(chan struct{}, 2), cancel: cancel}
	ctx = context.WithValue(ctx, stopperKey{}, st)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go st.relay(sigs)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	signal.Stop(sigs)
	cancel()
	os.Exit(ExitCode(prog, err, os.Stderr))
}

// stopper hands Main's signals on: each ends the context until a program
// takes them with Stops, and is then sent on ch.
type stopper struct {
	ch     chan struct{}
	cancel context.CancelFunc
	taken  atomic.Bool
}

type stopperKey struct{}

func (st *stopper) relay(sigs <-chan os.Signal) {
	for range sigs {
		if !st.taken.Load() {
			st.cancel()
			continue
		}
		select {
		case st.ch <- struct{}{}:
		default: // two are waiting already: a third says nothing new
		}
	}
}

// Stops takes the SIGINT and SIGTERM signals of a context Main made: from
// then on each is one value on the channel returned, and no longer ends
// the context, so a program can stop in steps (vkmd drains on the first
// and stops on the second). Under any other context it returns nil, a
// channel that never receives.
func Stops(ctx context.Context) <-chan struct{} {
	st, ok := ctx.Value(stopperKey{}).(*stopper)
	if !ok {
		return nil
	}
	st.taken.Store(true)
	return st.ch
}

// ExitCode prints err (if any) as the one line "prog: err" and returns the
// exit code: 0, 2 for a UsageError, 1 otherwise. An error of several lines
// (errors.Join) is printed on one, its lines joined by "; ".
func ExitCode(prog string, err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "%s: %s\n", prog, strings.ReplaceAll(err.Error(), "\n", "; "))
	var u UsageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

// Logger builds the text logger for --log-level.
func Logger(level string, w io.Writer) (*slog.Logger, error) {
	return FormatLogger(level, "text", w)
}

// FormatLogger builds the logger for --log-level and --log-format: "text"
// (key=value, for a terminal) or "json" (one JSON object a line, for a log
// collector).
func FormatLogger(level, format string, w io.Writer) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, Usagef("--log-level: %v", err)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, Usagef("--log-format %q: text or json", format)
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

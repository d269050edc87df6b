//go:build !js

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"strings"
	"syscall"
	"testing"
)

func TestExitCodePrintsOneLine(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
		want string
	}{
		{nil, 0, ""},
		{Usagef("unexpected argument %q", "x"), 2, "prog: unexpected argument \"x\"\n"},
		{errors.New("host: the socket closed"), 1, "prog: host: the socket closed\n"},
		{errors.Join(errors.New("host: bot client 1: a"), errors.New("host: bot client 2: b")), 1, "prog: host: bot client 1: a; host: bot client 2: b\n"},
	} {
		var b bytes.Buffer
		if code := ExitCode("prog", tc.err, &b); code != tc.code || b.String() != tc.want {
			t.Errorf("%v: exit %d, printed %q; want %d, %q", tc.err, code, b.String(), tc.code, tc.want)
		}
	}
}

func TestParseTakesTheDirectoryFirst(t *testing.T) {
	c := Command{Name: "prog", Exits: "  0  fine\n"}
	fs := flag.NewFlagSet("prog", flag.ContinueOnError)
	port := fs.Int("port", 0, "a port")
	var out bytes.Buffer
	dir, done, err := c.Parse(fs, []string{"projects/arena", "--port", "9000"}, &out)
	if dir != "projects/arena" || done || err != nil || *port != 9000 || out.Len() != 0 {
		t.Fatalf("dir %q done %v err %v port %d out %q", dir, done, err, *port, out.String())
	}
}

// TestStopsTakesTheSignals: a signal ends Main's context until the program
// takes them with Stops; after that each is a value on the channel, and
// the context lives on.
func TestStopsTakesTheSignals(t *testing.T) {
	if Stops(context.Background()) != nil {
		t.Fatal("Stops of a context Main did not make is not nil")
	}
	for _, take := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		st := &stopper{ch: make(chan struct{}, 2), cancel: cancel}
		ctx = context.WithValue(ctx, stopperKey{}, st)
		var stops <-chan struct{}
		if take {
			stops = Stops(ctx)
		}
		sigs := make(chan os.Signal, 3)
		sigs <- os.Interrupt
		sigs <- syscall.SIGTERM
		sigs <- os.Interrupt
		close(sigs)
		st.relay(sigs)
		if !take {
			if ctx.Err() == nil {
				t.Error("a signal did not end the context")
			}
			continue
		}
		if ctx.Err() != nil {
			t.Error("a signal ended the context after Stops")
		}
		if n := len(stops); n != 2 {
			t.Errorf("%d stops waiting, want 2", n)
		}
	}
}

// TestLogFormats: text is key=value, json one object a line with the
// level and the attributes; any other format is a usage error.
func TestLogFormats(t *testing.T) {
	var text, js bytes.Buffer
	l, err := FormatLogger("info", "text", &text)
	if err != nil {
		t.Fatal(err)
	}
	l.Info("serving", "port", 27960)
	l.Debug("hidden")
	if got := text.String(); !strings.Contains(got, "level=INFO msg=serving port=27960\n") || strings.Contains(got, "hidden") {
		t.Errorf("text: %q", got)
	}
	if l, err = FormatLogger("debug", "json", &js); err != nil {
		t.Fatal(err)
	}
	l.Info("serving", "port", 27960)
	l.Debug("shown")
	lines := strings.Split(strings.TrimSpace(js.String()), "\n")
	var rec struct {
		Level, Msg string
		Port       int
	}
	if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &rec) != nil || rec.Level != "INFO" || rec.Msg != "serving" || rec.Port != 27960 {
		t.Errorf("json: %q, want two objects, the first {level INFO, msg serving, port 27960}", js.String())
	}
	var u UsageError
	if _, err := FormatLogger("info", "xml", &js); !errors.As(err, &u) {
		t.Errorf("--log-format xml: %v, want a usage error", err)
	}
}

// TestUsageListsTheCommands: a Command's other commands follow the
// synopsis, before the flags.
func TestUsageListsTheCommands(t *testing.T) {
	c := Command{Name: "prog", Exits: "  0  fine\n", Commands: "  prog check DIR\n    \tcheck it\n"}
	var out bytes.Buffer
	if err := c.Usage(flag.NewFlagSet("prog", flag.ContinueOnError), &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "usage: prog <project-dir> [flags]\n\ncommands:\n  prog check DIR\n    \tcheck it\n\nflags:\n") {
		t.Errorf("usage:\n%s", got)
	}
}

// TestVersionSetAtLinkTime: a version set with -ldflags -X is the build's
// version, in --version's line and BuildVersion (vkm_build_info's label).
func TestVersionSetAtLinkTime(t *testing.T) {
	if got := BuildVersion(); got != "devel" {
		t.Errorf("a test binary's version is %q, want devel", got)
	}
	version = "v1.4.0"
	defer func() { version = "" }()
	if got := BuildVersion(); got != "v1.4.0" {
		t.Errorf("BuildVersion() = %q with the version set, want v1.4.0", got)
	}
	if got := Version("vkmd"); !strings.HasPrefix(got, "vkmd v1.4.0 (protocol ") {
		t.Errorf("Version = %q, want it to start vkmd v1.4.0", got)
	}
}

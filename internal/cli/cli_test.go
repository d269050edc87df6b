package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
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

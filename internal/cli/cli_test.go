package cli

import (
	"bytes"
	"errors"
	"flag"
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

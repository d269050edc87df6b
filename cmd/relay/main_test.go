package main

import "testing"

// -h is not a failure; a flag or an argument it does not know is.
func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
	}{{[]string{"-h"}, 0}, {[]string{"--no-such-flag"}, 2}, {[]string{"extra"}, 2}, {[]string{"--log-level", "loud"}, 2}} {
		if got := run(c.args); got != c.want {
			t.Errorf("relay %v exits %d, want %d", c.args, got, c.want)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"vkm/internal/cli"
)

func TestBadCommandLinesAreUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--fleet redis://HOST:PORT is required"},
		{[]string{"--fleet", "redis://127.0.0.1:1"}, "--key FILE is required"},
		{[]string{"--fleet", "redis://127.0.0.1:1", "--key", "k", "--token-life", "1s"}, "too short"},
		{[]string{"--fleet", "redis://127.0.0.1:1", "extra"}, `unexpected argument "extra"`},
		{[]string{"--bogus"}, "-bogus"},
	} {
		var out, errs bytes.Buffer
		err := run(context.Background(), tc.args, &out, &errs)
		if _, ok := err.(cli.UsageError); !ok || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want a usage error saying %q", tc.args, err, tc.want)
		}
	}
}

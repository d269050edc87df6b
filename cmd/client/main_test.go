package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vkm/host"
	"vkm/internal/cli"
)

func TestUsageErrorsExitTwoWithAReason(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "project directory comes first"},
		{[]string{"--headless", "../../projects/arena"}, "project directory comes first"},
		{[]string{"../../projects/arena", "--headles"}, "headles"},
		{[]string{"../../projects/arena", "--headless", "--bot", "wander", "extra"}, `unexpected argument "extra"`},
		{[]string{"../../projects/arena", "--headless"}, "--bot wander"},
		{[]string{"../../projects/arena", "--headless", "--bot", "sleeper"}, `unknown bot "sleeper"`},
		{[]string{"../../projects/arena", "--headless", "--bots", "-1"}, "--bots -1"},
		{[]string{"../../projects/arena", "--headless", "--bots", "2", "--lite"}, "--lite is for bot clients of a server"},
	} {
		var stderr bytes.Buffer
		err := run(context.Background(), tc.args, &stderr, &stderr)
		if code := cli.ExitCode("x", err, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%v)", tc.args, code, err)
			continue
		}
		if !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: stderr %q does not say %q", tc.args, stderr.String(), tc.want)
		}
	}
}

func TestHeadlessBotWritesTheReport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	var stderr bytes.Buffer
	args := []string{"../../projects/arena", "--headless", "--bot", "wander", "--bot-seed", "1",
		"--duration", "250ms", "--report", out, "--log-level", "warn"}
	if err := run(context.Background(), args, &stderr, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep host.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Clients) != 1 {
		t.Fatalf("report has %d clients", len(rep.Clients))
	}
	c := rep.Clients[0]
	t.Logf("%+v", c)
	if c.State != "offline" || c.TickRate != 64 || c.Ticks == 0 || c.Errors != 0 || c.Events == nil {
		t.Fatalf("report %+v", c)
	}
	if stderr.Len() != 0 {
		t.Fatalf("--log-level warn still printed: %s", stderr.String())
	}
}

func TestBotsWriteOneEntryEach(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	var stderr bytes.Buffer
	args := []string{"../../projects/arena", "--headless", "--bots", "3", "--bot-seed", "5",
		"--duration", "100ms", "--report", out, "--log-level", "warn"}
	if err := run(context.Background(), args, &stderr, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep host.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Clients) != 3 {
		t.Fatalf("report has %d clients, want 3", len(rep.Clients))
	}
	for i, c := range rep.Clients {
		if c.State != "offline" || c.Errors != 0 {
			t.Errorf("client %d: %+v", i+1, c)
		}
	}
}

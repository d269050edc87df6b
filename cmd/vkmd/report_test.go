package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// freePort returns a UDP port nothing listened on a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

func TestReportGivesTheProcessAndTheTicks(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	var stderr bytes.Buffer
	args := []string{"../../projects/arena", "--port", strconv.Itoa(freePort(t)), "--duration", "200ms", "--report", out, "--log-level", "warn"}
	if err := run(context.Background(), args, &bytes.Buffer{}, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep map[string]any
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", data)
	for _, key := range []string{"cpu_s", "wall_s", "max_rss_mb", "tick_p50_us", "tick_p99_us", "tick_max_us", "send_p50_us", "send_p99_us", "allocs_per_tick", "ticks", "peers"} {
		if _, ok := rep[key]; !ok {
			t.Errorf("the report has no %s", key)
		}
	}
	if runtime.GOOS != "windows" && (rep["cpu_s"].(float64) <= 0 || rep["max_rss_mb"].(float64) <= 0) {
		t.Errorf("cpu_s %v, max_rss_mb %v: the process's figures are missing", rep["cpu_s"], rep["max_rss_mb"])
	}
}

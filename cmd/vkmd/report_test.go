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

// TestTickLogListsTheSlowestTicks: --tick-log writes a row a tick and
// puts the slowest ticks in the report; the report counts the collections.
func TestTickLogListsTheSlowestTicks(t *testing.T) {
	dir := t.TempDir()
	out, log := filepath.Join(dir, "r.json"), filepath.Join(dir, "ticks.csv")
	var stderr bytes.Buffer
	args := []string{"../../projects/arena", "--port", strconv.Itoa(freePort(t)), "--duration", "200ms", "--report", out, "--tick-log", log, "--log-level", "warn"}
	if err := run(context.Background(), args, &bytes.Buffer{}, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Ticks   int              `json:"ticks"`
		GCs     *int             `json:"gcs"`
		Slowest []map[string]any `json:"slowest_ticks"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	rows, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(rows, []byte("\n"))
	if rep.Ticks == 0 || lines != rep.Ticks+1 || len(rep.Slowest) == 0 || rep.GCs == nil {
		t.Errorf("%d ticks, %d lines in the tick log, %d slowest ticks listed, gcs %v", rep.Ticks, lines, len(rep.Slowest), rep.GCs)
	}
}

func TestIdleGCIsOnUnlessTurnedOff(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{{nil, true}, {[]string{"--idle-gc=false"}, false}} {
		o, err := parse(append([]string{"../../projects/arena"}, c.args...), &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		if o.serve.IdleGC != c.want {
			t.Errorf("%v: IdleGC %v", c.args, o.serve.IdleGC)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vkm/host/fleet"
	"vkm/internal/redistest"
)

// lockedBuffer is a log vkmd writes from several goroutines and the test
// reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// httpGet returns a GET's status and body ("" and 0 when it fails).
func httpGet(url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitFor polls cond every 20 ms until it holds, failing the test after
// limit with what it last said.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	end := time.Now().Add(limit)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("%s: not within %v; last: %s", what, limit, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAFleetSurvivesRedisGoingAway serves the arena with --fleet and
// --admin, then stops the real redis-server for 10 s (2 s with -short) and
// starts it again on its port. While it is gone, /metrics says
// vkm_fleet_registered 0 and counts connection errors, /readyz is 503
// saying the server is not listed, and the loss is logged once; within a
// second of Redis's return the server is in the directory again, /readyz
// is 200 and the return is logged once.
func TestAFleetSurvivesRedisGoingAway(t *testing.T) {
	outage := 10 * time.Second
	if testing.Short() {
		outage = 2 * time.Second
	}
	rs := redistest.New(t)
	var key bytes.Buffer
	if err := runKeygen(nil, &key); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "game.key")
	if err := os.WriteFile(keyFile, key.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	port, admin := strconv.Itoa(freePort(t)), strconv.Itoa(freeTCP(t))
	public := "127.0.0.1:" + port
	base := "http://127.0.0.1:" + admin
	logs := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"../../projects/arena", "--port", port, "--key", keyFile, "--public", public,
			"--admin", "127.0.0.1:" + admin, "--fleet", rs.URL, "--drain", "0", "--log-level", "debug"}, io.Discard, logs)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("vkmd: %v", err)
		}
	})
	// The directory as a lobby reads it, through a client of its own for
	// each look, so the test's own client has no broken connection to
	// recover from after the outage.
	listed := func() (bool, string) {
		rdb, err := fleet.Open(context.Background(), rs.URL)
		if err != nil {
			return false, err.Error()
		}
		defer rdb.Close()
		ss, err := fleet.NewDirectory(rdb).Servers(context.Background(), "arena")
		if err != nil {
			return false, err.Error()
		}
		return len(ss) == 1 && ss[0].Addr == public, strconv.Itoa(len(ss)) + " servers listed"
	}
	metric := func(name string) (float64, bool) {
		_, body := httpGet(base + "/metrics")
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(body)
		if m == nil {
			return 0, false
		}
		v, err := strconv.ParseFloat(m[1], 64)
		return v, err == nil
	}
	waitFor(t, 30*time.Second, "listed at start", listed)
	waitFor(t, 5*time.Second, "ready and registered in /metrics", func() (bool, string) {
		code, body := httpGet(base + "/readyz")
		v, _ := metric("vkm_fleet_registered")
		return code == 200 && v == 1, body
	})

	rs.Stop()
	stopped := time.Now()
	waitFor(t, 5*time.Second, "/readyz says the server is not listed", func() (bool, string) {
		code, body := httpGet(base + "/readyz")
		return code == 503 && strings.Contains(body, "not listed in the fleet directory"), body
	})
	waitFor(t, 5*time.Second, "/metrics shows the loss", func() (bool, string) {
		reg, ok1 := metric("vkm_fleet_registered")
		errs, ok2 := metric(`vkm_fleet_errors_total{kind="connection"}`)
		return ok1 && ok2 && reg == 0 && errs >= 1, "registered " + strconv.FormatFloat(reg, 'g', -1, 64) + ", connection errors " + strconv.FormatFloat(errs, 'g', -1, 64)
	})
	time.Sleep(time.Until(stopped.Add(outage))) // the outage itself, not a wait for anything
	if code, body := httpGet(base + "/readyz"); code != 503 {
		t.Errorf("/readyz after %v without Redis: %d %s", outage, code, body)
	}

	rs.Restart()
	back := time.Now()
	waitFor(t, 5*time.Second, "listed again", listed)
	took := time.Since(back)
	t.Logf("Redis away %v; listed again %v after it returned", back.Sub(stopped).Round(time.Millisecond), took.Round(time.Millisecond))
	if took > time.Second {
		t.Errorf("listed again %v after Redis returned, want within a second", took)
	}
	waitFor(t, 3*time.Second, "ready again", func() (bool, string) {
		code, body := httpGet(base + "/readyz")
		return code == 200, body
	})
	waitFor(t, 3*time.Second, "registered again in /metrics", func() (bool, string) {
		v, _ := metric("vkm_fleet_registered")
		return v == 1, ""
	})
	out := logs.String()
	lost := strings.Count(out, "fleet: lost the directory")
	backs := strings.Count(out, "fleet: back in the directory")
	if lost != 1 || backs != 1 || strings.Count(out, "level=ERROR") != 1 {
		t.Errorf("the log has %d lines saying the fleet was lost, %d saying it is back and %d errors, want 1, 1, 1:\n%s",
			lost, backs, strings.Count(out, "level=ERROR"), out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "fleet:") || strings.Contains(l, "redis") {
			t.Log(l)
		}
	}
}

// freeTCP returns a TCP port nothing listened on a moment ago.
func freeTCP(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

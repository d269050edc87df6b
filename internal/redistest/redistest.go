// Package redistest starts a throwaway redis-server for tests.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Require is the environment variable that, set to 1, makes Start fail a
// test when redis-server is missing instead of skipping it (the CI sets
// it after installing the package).
const Require = "VKM_REQUIRE_REDIS"

// Start runs redis-server on 127.0.0.1 at a free port, in a temporary
// directory, without persistence, until the test ends, and returns its
// URL (redis://127.0.0.1:PORT).
func Start(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(Require) == "1" {
			t.Fatalf("redis-server is not installed, and %s=1 requires it", Require)
		}
		t.Skipf("redis-server is not installed (apt-get install redis-server); set %s=1 to fail instead", Require)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", t.TempDir(),
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", "")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	// The server says when it takes connections; read its log up to that.
	ready := make(chan error, 1)
	go func() {
		var log strings.Builder
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "Ready to accept connections") {
				ready <- nil
				for sc.Scan() {
				}
				return
			}
		}
		ready <- fmt.Errorf("redis-server exited before it was ready:\n%s", log.String())
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("redis-server was not ready within 30 s")
	}
	return fmt.Sprintf("redis://127.0.0.1:%d", port)
}

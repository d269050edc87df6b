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
func Start(t testing.TB) string { return New(t).URL }

// Server is a redis-server a test runs, which it may stop and start again
// on the same port (a Redis that goes away and comes back).
type Server struct {
	// URL is redis://127.0.0.1:PORT.
	URL string

	t    testing.TB
	bin  string
	port int
	dir  string
	cmd  *exec.Cmd
}

// New runs redis-server as Start does, and returns it.
func New(t testing.TB) *Server {
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
	s := &Server{URL: fmt.Sprintf("redis://127.0.0.1:%d", port), t: t, bin: bin, port: port, dir: t.TempDir()}
	t.Cleanup(s.Stop)
	s.Restart()
	return s
}

// Stop kills the server and waits for it to exit: its port refuses
// connections from then on. Stopping a stopped server does nothing.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}

// Restart starts the server (again) on its port, with nothing in it, and
// returns once it takes connections. The port may have been taken in the
// meantime: then the test fails.
func (s *Server) Restart() {
	s.t.Helper()
	if s.cmd != nil {
		s.t.Fatal("redistest: Restart of a running server")
	}
	cmd := exec.Command(s.bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(s.port), "--dir", s.dir,
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", "")
	out, err := cmd.StdoutPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.cmd = cmd
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
			s.t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		s.t.Fatal("redis-server was not ready within 30 s")
	}
}

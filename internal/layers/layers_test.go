// Package layers holds the test that keeps the module's package
// boundaries: one table of every package, in order from the one that
// imports nothing of ours to the one that composes them all, with what each
// may import and whether it may touch the clock, goroutines or the system.
package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layer is one package (a directory of the module) and its rules.
type layer struct {
	dir string
	// uses are the module's packages it may import, besides internal/
	// helpers; each comes earlier in the table.
	uses []string
	// bans are standard (or x/) packages it may not import, and why.
	bans map[string]string
	// sansIO packages take the time as an argument and start no
	// goroutine: no time.Now, Sleep, timers or go statements in their
	// source, which is what lets their tests run on a synthetic clock.
	sansIO bool
}

// The reasons a ban gives.
var (
	noSockets  = "sockets are transport/udp's and the host's"
	noOS       = "the host owns the process, its files and its clock"
	noSyscalls = "system calls are transport/udp's, named through x/sys"
	pure       = map[string]string{"net": noSockets, "os": noOS, "syscall": noSyscalls, "golang.org/x/sys/unix": noSyscalls}
	// The session decides who sends what and when; the bytes are netmsg's.
	noBytes = "the session's datagram formats are host/session/netmsg's"
	session = map[string]string{"net": noSockets, "os": noOS, "syscall": noSyscalls, "golang.org/x/sys/unix": noSyscalls,
		"encoding/binary": noBytes, "hash/fnv": noBytes}
)

// house is every package of the module, in layering order.
var house = []layer{
	{dir: "scripts", sansIO: true},
	{dir: "wire", bans: pure, sansIO: true},
	{dir: "transport/cookie", bans: pure, sansIO: true},
	{dir: "transport/handshake", bans: pure, sansIO: true},
	// Sealing of datagrams under session keys (x/crypto's AEAD).
	{dir: "transport/seal", bans: pure, sansIO: true},
	// Connect tokens: minted by a backend, opened by a server; names are
	// checked by the handshake's rules.
	{dir: "transport/token", uses: []string{"transport/handshake"}, bans: pure, sansIO: true},
	{dir: "transport", uses: []string{"wire", "transport/cookie", "transport/handshake", "transport/seal", "transport/token"}, bans: pure, sansIO: true},
	{dir: "transport/memnet", uses: []string{"transport"}, bans: pure, sansIO: true},
	// Join codes: the relay, a server's side and a joiner's, and the
	// tunnel between them (sealed by transport/seal).
	{dir: "transport/relay", uses: []string{"transport", "transport/seal"}, bans: pure, sansIO: true},
	// The one place below the host that opens sockets.
	{dir: "transport/udp", uses: []string{"transport"}, bans: map[string]string{"os": noOS}},
	{dir: "replication", uses: []string{"wire"}, bans: pure, sansIO: true},
	{dir: "prediction", uses: []string{"wire"}, bans: pure, sansIO: true},
	{dir: "physics", bans: pure, sansIO: true},
	// A behavior's time budget reads the clock; nothing else does.
	{dir: "scripting", uses: []string{"scripts", "replication", "prediction"}, bans: pure},
	// Reads project folders from disk (os.DirFS), and nothing else of the
	// system.
	{dir: "host/project", uses: []string{"physics", "prediction"}, bans: map[string]string{"net": noSockets, "syscall": noSyscalls, "golang.org/x/sys/unix": noSyscalls}, sansIO: true},
	{dir: "host/store", uses: []string{"replication", "host/project"}, bans: pure, sansIO: true},
	{dir: "host/bot", uses: []string{"prediction"}, bans: pure, sansIO: true},
	// The world and its tick; the session builds the handshake, so the game
	// knows nothing of the transport.
	{dir: "host/game", uses: []string{"wire", "replication", "prediction", "physics", "scripting", "host/project", "host/store"}, bans: pure, sansIO: true},
	// An end's figures, described once for its report, its status line
	// and /metrics.
	{dir: "host/figures", bans: pure, sansIO: true},
	// The serving loop's clock and CPU machinery: a timerfd on the
	// runtime's poller, the thread CPU clock, the collector run between
	// ticks; the wall clock and the kernel, but no sockets.
	{dir: "host/loop", uses: []string{"host/game", "host/figures"}, bans: map[string]string{"net": noSockets}},
	// The loops' datagram sockets: UDP, an in-process network, the link
	// simulator in real time; goroutines and the wall clock of their own.
	{dir: "host/netio", uses: []string{"transport", "transport/memnet", "transport/udp", "transport/relay"}, bans: map[string]string{"os": noOS, "syscall": noSyscalls, "golang.org/x/sys/unix": noSyscalls}},
	// A relay on a socket and the wall clock (cmd/relay's, and tests').
	{dir: "host/relayd", uses: []string{"transport", "transport/relay", "transport/udp", "host/netio"}, bans: map[string]string{"os": noOS, "syscall": noSyscalls, "golang.org/x/sys/unix": noSyscalls}},
	// Polls a project's files through its fs.FS.
	{dir: "host/watch", uses: []string{"transport"}, bans: pure, sansIO: true},
	// The session's own datagram formats: the payload's framing around the
	// reliable channel's sections, the relay, the messages a server sends.
	{dir: "host/session/netmsg", uses: []string{"wire", "transport", "transport/handshake"}, bans: pure, sansIO: true},
	{dir: "host/session", uses: []string{"transport", "transport/handshake", "transport/token", "replication", "prediction", "physics", "scripting", "host/project", "host/store", "host/game", "host/session/netmsg"}, bans: session, sansIO: true},
	// A server's match written down as it goes and played again offline:
	// the recording's file format, its writer and reader, and the player
	// that hands a Replayer its inputs; it reads and writes files, and
	// takes the time it is given.
	{dir: "host/record", uses: []string{"wire", "prediction", "host/project", "host/game", "host/session"},
		bans: map[string]string{"net": noSockets, "syscall": noSyscalls, "golang.org/x/sys/unix": noSyscalls}, sansIO: true},
	// The reference client's web page: an HTTP server of its own.
	{dir: "host/view", bans: map[string]string{"syscall": noSyscalls, "golang.org/x/sys/unix": noSyscalls}},
	// The admin listener: an HTTP handler of metrics, health and profiles,
	// fed by the serving loop (its figures among them); it knows nothing
	// of the session.
	{dir: "host/admin", uses: []string{"host/figures"}, bans: map[string]string{"os": noOS, "syscall": noSyscalls, "golang.org/x/sys/unix": noSyscalls}},
	// The fleet's directory in Redis and the lobby's handler: goroutines,
	// the wall clock and network clients of their own.
	{dir: "host/fleet", uses: []string{"transport/handshake", "transport/token"}, bans: map[string]string{"os": noOS, "syscall": noSyscalls, "golang.org/x/sys/unix": noSyscalls}},
	// A server's link to Agones: the SDK server's HTTP API, from
	// goroutines of its own, around a sans-IO core.
	{dir: "host/agones", bans: map[string]string{"syscall": noSyscalls, "golang.org/x/sys/unix": noSyscalls}},
	// The browsers' gateway: WebRTC data channels and WebSocket carrying
	// datagrams; goroutines, sockets and the wall clock of its own.
	{dir: "host/web", uses: []string{"transport", "transport/handshake", "transport/udp"}, bans: map[string]string{"os": noOS, "syscall": noSyscalls, "golang.org/x/sys/unix": noSyscalls}},
	// The host's side of a browser: a client's view, the browser client's
	// page and build, the web listener as a server's socket and a native
	// client's link through it, the in-page client's link.
	{dir: "host/browser", uses: []string{"transport", "prediction", "host/project", "host/game", "host/figures", "host/netio", "host/session", "host/view", "host/web", "physics"},
		bans: map[string]string{"syscall": noSyscalls, "golang.org/x/sys/unix": noSyscalls}},
	// A server's access list (bans and allows by client id and address),
	// kept in a file of its own that survives restarts.
	{dir: "host/access", bans: map[string]string{"net": noSockets, "syscall": noSyscalls, "golang.org/x/sys/unix": noSyscalls}, sansIO: true},
	// The LAN discovery datagram: a client's request and a server's
	// answer, and how often one source is answered.
	{dir: "host/lan", bans: pure, sansIO: true},
	// The composing root: the programs' serving and playing loops, wired
	// from the packages above; goroutines, timers and the wall clock.
	{dir: "host", uses: []string{"transport", "transport/handshake", "transport/token", "transport/memnet", "replication",
		"host/project", "host/bot", "host/game", "host/figures", "host/loop", "host/netio", "host/watch", "host/session", "host/admin", "host/browser", "host/access", "host/agones", "host/record", "host/lan", "host/relayd", "transport/relay"}},
	{dir: "cmd/vkmd", uses: []string{"host", "host/project", "host/fleet", "host/figures", "host/record", "host/lan"}},
	{dir: "cmd/client", uses: []string{"host", "host/bot", "host/project", "host/fleet", "transport/token", "host/record", "host/lan"}},
	{dir: "cmd/lobby", uses: []string{"host", "host/fleet"}},
	{dir: "cmd/relay", uses: []string{"host/relayd", "transport/relay"}},
	// The browser client: the client session compiled to WebAssembly.
	{dir: "cmd/webclient", uses: []string{"host", "host/project", "transport/token"}},
}

// clock is what a sans-IO package may not call in package time.
var clock = map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
	"AfterFunc": true, "Tick": true, "NewTimer": true, "NewTicker": true}

func root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func TestEveryPackageKeepsToItsLayer(t *testing.T) {
	dir := root()
	for i, l := range house {
		for _, u := range l.uses {
			if j := slices.IndexFunc(house, func(o layer) bool { return o.dir == u }); j < 0 || j >= i {
				t.Errorf("the table lets %s use %s, which does not come before it", l.dir, u)
			}
		}
		files, err := filepath.Glob(filepath.Join(dir, l.dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Errorf("%s: no Go files (%v)", l.dir, err)
			continue
		}
		for _, file := range files {
			if !strings.HasSuffix(file, "_test.go") {
				checkFile(t, l, file)
			}
		}
	}
}

// checkFile checks one source file of l against l's rules.
func checkFile(t *testing.T, l layer, file string) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(l.dir, filepath.Base(file))
	timeName := ""
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if why, ok := l.bans[p]; ok {
			t.Errorf("%s imports %s: %s", name, p, why)
		}
		if own, ok := strings.CutPrefix(p, "vkm/"); ok && !strings.HasPrefix(own, "internal/") && !slices.Contains(l.uses, own) {
			t.Errorf("%s imports %s, which %s may not use", name, p, l.dir)
		}
		if p == "time" {
			timeName = "time"
			if imp.Name != nil {
				timeName = imp.Name.Name
			}
		}
	}
	if !l.sansIO {
		return
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			t.Errorf("%s: a go statement: only the host starts goroutines", fset.Position(n.Pos()))
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && timeName != "" && id.Name == timeName && clock[n.Sel.Name] {
				t.Errorf("%s: time.%s: a sans-IO package takes the time as an argument", fset.Position(n.Pos()), n.Sel.Name)
			}
		}
		return true
	})
}

// TestTheTableHasEveryPackage fails when a package is added without a row.
func TestTheTableHasEveryPackage(t *testing.T) {
	dir := root()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || strings.HasPrefix(rel, "internal") || strings.HasPrefix(rel, "bench") {
			if rel != "." {
				return filepath.SkipDir
			}
		}
		if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && rel != "." {
			// A module of its own (conformance/, which imports nothing of
			// this one) is not a room of this house.
			return filepath.SkipDir
		}
		src, _ := filepath.Glob(filepath.Join(p, "*.go"))
		src = slices.DeleteFunc(src, func(f string) bool { return strings.HasSuffix(f, "_test.go") })
		if len(src) > 0 && !slices.ContainsFunc(house, func(l layer) bool { return l.dir == rel }) {
			t.Errorf("package %s has no row in the layering table", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

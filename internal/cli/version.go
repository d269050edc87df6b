package cli

// The version alone is built for js: the browser client names its build in
// the recordings it writes, and links neither the flag package nor the
// signals (command.go, cli.go).

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"vkm/transport/handshake"
)

// Version returns the line --version prints: the program, its build and
// the protocol version it speaks, e.g. "vkmd devel (protocol 4, go1.26.8)".
// Two builds play together when their protocol versions match (a server
// refuses a client at another one).
func Version(prog string) string {
	return fmt.Sprintf("%s %s (protocol %d, %s)", prog, buildVersion(), handshake.Version, runtime.Version())
}

// version, when set at link time (go build
// -ldflags=-X=vkm/internal/cli.version=v1.4.0), is the build's version in
// place of what the go command stamped.
var version string

// BuildVersion is the build's version, as --version and /metrics's
// vkm_build_info give it.
func BuildVersion() string { return buildVersion() }

// buildVersion is the version set at link time, or else the version the go
// command stamped into the binary: a
// release tag, or a pseudo-version naming the commit (and +dirty) for a
// build from a checkout, so two binaries can be told apart without a
// number anyone has to remember to raise. `go run`, `go test` and builds
// without version control information say "devel".
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

package layers

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// webClient is the browser client's main package, built for js/wasm.
const webClient = "vkm/cmd/webclient"

// notInTheBrowser are packages the browser client must not link, by
// import path or path prefix (ending in "/"), and why. Every player
// downloads the client before the first frame: a server's package there
// is megabytes for nothing. Importing net/http alone adds 2.2 MB of
// WebAssembly (its client, TLS, x509), though the page, not the client,
// fetches the project and opens the link.
var notInTheBrowser = map[string]string{
	"net/http":                    "the page fetches the project and opens the link; the client speaks no HTTP (the page's and the admin listener's servers are the server's)",
	"crypto/tls":                  "TLS is the browser's",
	"crypto/x509":                 "certificates are the browser's",
	"net/http/pprof":              "profiles are the admin listener's",
	"runtime/pprof":               "profiles are the admin listener's",
	"expvar":                      "the admin listener's",
	"github.com/prometheus/":      "/metrics is the admin listener's (host/admin)",
	"google.golang.org/protobuf/": "Prometheus's exposition format, the admin listener's",
	"github.com/redis/":           "the fleet's directory is the server's and the lobby's (host/fleet)",
	"github.com/golang-jwt/":      "the lobby's player tokens",
	"github.com/pion/":            "the server's side of WebRTC (host/web); the browser has its own",
	"vkm/host/admin":              "the admin listener",
	"vkm/host/fleet":              "the fleet's directory and the lobby",
	"vkm/host/web":                "the browsers' gateway, a server's",
	// Not a server's, but half a megabyte with the Unicode tables it
	// names, for one expression (scripting's findWhere scans by hand).
	"regexp": "half a megabyte of WebAssembly; scan by hand",
	// The project's files: the server reads them with these, and the
	// browser client with small readers of its own (host/project's
	// storedzip.go and tomlparse.go), 0.6 MB less to download.
	"archive/zip":                "the browser's archive is stored, and read by host/project's storedzip.go",
	"compress/flate":             "the browser's archive is stored; the server gzips the download",
	"github.com/BurntSushi/toml": "the browser client decodes TOML with host/project's parseTOML",
}

// TestTheBrowserClientLinksNoServer lists the packages the browser client
// links (go list -deps under GOOS=js GOARCH=wasm) and fails on any of
// notInTheBrowser, naming the packages of ours that import it.
func TestTheBrowserClientLinksNoServer(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain on PATH to list the browser client's packages with")
	}
	cmd := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}}: {{join .Imports \" \"}}", webClient)
	cmd.Dir = root()
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s for js/wasm: %v\n%s", webClient, err, out)
	}
	banned := func(p string) (string, bool) {
		for b := range notInTheBrowser {
			if p == b || strings.HasSuffix(b, "/") && strings.HasPrefix(p, b) {
				return b, true
			}
		}
		return "", false
	}
	var all []string
	found := map[string][]string{} // entry of notInTheBrowser → the packages it matched
	edges := map[string][]string{} // entry → "ours → theirs" imports that bring it in
	for line := range strings.Lines(string(out)) {
		pkg, imports, _ := strings.Cut(line, ":")
		all = append(all, pkg)
		if b, ok := banned(pkg); ok {
			found[b] = append(found[b], pkg)
		}
		if !strings.HasPrefix(pkg, "vkm/") {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if b, ok := banned(imp); ok {
				edges[b] = append(edges[b], pkg+" → "+imp)
			}
		}
	}
	t.Logf("the browser client links %d packages", len(all))
	for b, pkgs := range found {
		by := "through packages not of this module"
		if len(edges[b]) > 0 {
			by = "imported as " + strings.Join(edges[b], ", ")
		}
		t.Errorf("the browser client links %s (%d packages; %s): %s. Leave it out of js/wasm builds (a file of its own with //go:build !js, as host/admin.go is)",
			b, len(pkgs), by, notInTheBrowser[b])
	}
}

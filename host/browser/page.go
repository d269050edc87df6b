//go:build !js

package browser

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"

	"vkm/host/project"
	"vkm/host/view"
)

// The browser client's files, served beside the gateway by vkmd --web:
//
//	/                  the page (host/view's, loading the client in the tab)
//	/vkm.js, /vkm.css  its drawing and style
//	/vkm-hud.js        the game's HUD
//	/vkm-controls.js   the controls overlay
//	/vkm-camera.js     the camera
//	/vkm-looks.js      looks that change as the game runs
//	/vkm-sprites.js    sprites
//	/vkm-sound.js      sounds
//	/vkm-voice.js      the players' voice
//	/asset/PATH        the project's images and sounds (PNG, OGG, WAV)
//	/favicon.ico       the project's icon (project.toml's icon), or the
//	                   engine's
//	/vkm-web.js        its start: the link to the server, the client's run
//	/wasm_exec.js      Go's WebAssembly support, from the toolchain that
//	                   built the client
//	/vkm/client.wasm   the client (cmd/webclient), Brotli-compressed for a
//	                   browser that takes br, else gzipped when accepted
//	/vkm/project.zip   the project's files, extends and all, stored and the
//	                   download gzipped (project.WriteZipStored),
//	                   read from disk at each request: a reload of the page
//	                   takes what a dev server runs now
//	/vkm/web.json      {"dev": the server is a dev server, "project": name,
//	                   "voice": {"mode", "range", "pushToTalk", "keys"}, with
//	                   [voice] alone: the page then offers audio}

// webClientPkg is the browser client's main package.
const webClientPkg = "./cmd/webclient"

// webClientFlags are the go build flags of the browser client: no symbol
// table or debug information (-s -w; a panic's trace still names its
// functions), no file paths of the machine that built it (-trimpath),
// which every player downloads for nothing, and no inlining but in
// webClientInlined.
var webClientFlags = webClientBuildFlags()

// webClientInlined are the packages of the browser client compiled with
// inlining: the runtime and what a tick and a replay spend their time in
// (the physics, replication, prediction, the wire and the cipher). Every
// other package is compiled without it (-l): a call the compiler would
// have copied into its callers stays one function, which makes the client
// slightly larger raw but about a tenth smaller compressed, since many
// small copies compress worse than one. The cost is the Lua interpreter's
// and the game's glue running about a tenth slower (BENCHMARKS.md, "The
// browser client's download").
var webClientInlined = []string{
	"runtime", "internal/runtime/...", "errors", "bytes", "io",
	"github.com/ByteArena/box2d", "vkm/physics", "vkm/replication", "vkm/prediction",
	"vkm/wire", "vkm/transport", "vkm/internal/entity",
	"crypto/...", "golang.org/x/crypto/...",
}

// webClientBuildFlags returns webClientFlags: for packages matched by more
// than one -gcflags pattern, the go command takes the last.
func webClientBuildFlags() []string {
	flags := []string{"-trimpath", "-ldflags=-s -w", "-gcflags=all=-l"}
	for _, p := range webClientInlined {
		flags = append(flags, "-gcflags="+p+"=")
	}
	return flags
}

// BuildWebClient builds the browser client as vkmd --web does and writes
// it to file, with the go toolchain's wasm_exec.js beside it: what
// --wasm serves without building at start (vkmd wasm writes them).
func BuildWebClient(file string) error {
	goBin, src, err := webClientSource()
	if err != nil {
		return err
	}
	wasm, err := buildWebClient(goBin, src)
	if err != nil {
		return fmt.Errorf("browser: the browser client: %w", err)
	}
	execJS, err := goWasmExec(goBin)
	if err != nil {
		return fmt.Errorf("browser: the browser client: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(file, wasm, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(filepath.Dir(file), "wasm_exec.js"), execJS, 0o644)
}

// webClient is the browser client's code, ready to serve.
type webClient struct {
	wasm, wasmGz []byte
	wasmBr       []byte
	execJS       []byte
	etag         string
}

// registerPage adds the browser client's page and files to mux.
func registerPage(mux *http.ServeMux, cfg PageConfig) error {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	client, err := webClientFor(cfg.WebClient, log)
	if err != nil {
		return err
	}
	pageFiles := view.PageFiles()
	index := view.InTabPage()
	serveWith := func(ctype string, b []byte, policy func(*http.Request) string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h.Set("Content-Type", ctype)
			h.Set("Cache-Control", "no-cache")
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Content-Security-Policy", policy(r))
			w.Write(b)
		}
	}
	serveBytes := func(ctype string, b []byte) http.HandlerFunc {
		return serveWith(ctype, b, func(*http.Request) string { return view.InTabSecurityPolicy })
	}
	mux.HandleFunc("GET /{$}", serveWith("text/html; charset=utf-8", index, func(r *http.Request) string {
		return inTabPolicy(r.Host, cfg.WebTransportPort)
	}))
	for name, ctype := range map[string]string{"vkm.js": "text/javascript; charset=utf-8", "vkm-web.js": "text/javascript; charset=utf-8", "vkm-hud.js": "text/javascript; charset=utf-8", "vkm-controls.js": "text/javascript; charset=utf-8", "vkm-camera.js": "text/javascript; charset=utf-8", "vkm-looks.js": "text/javascript; charset=utf-8", "vkm-sprites.js": "text/javascript; charset=utf-8", "vkm-sound.js": "text/javascript; charset=utf-8", "vkm-voice.js": "text/javascript; charset=utf-8", "vkm.css": "text/css; charset=utf-8"} {
		b, err := fs.ReadFile(pageFiles, name)
		if err != nil {
			return fmt.Errorf("browser: the page's %s: %w", name, err)
		}
		mux.HandleFunc("GET /"+name, serveBytes(ctype, b))
	}
	// The client's two files wait for its build.
	ready := func(serve func(*webClient, http.ResponseWriter, *http.Request)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			wc, err := client(r.Context())
			if err != nil {
				http.Error(w, "vkm: "+err.Error(), http.StatusServiceUnavailable)
				return
			}
			serve(wc, w, r)
		}
	}
	mux.HandleFunc("GET /wasm_exec.js", ready(func(wc *webClient, w http.ResponseWriter, r *http.Request) {
		serveBytes("text/javascript; charset=utf-8", wc.execJS)(w, r)
	}))
	mux.HandleFunc("GET /vkm/client.wasm", ready((*webClient).serve))
	settings, _ := json.Marshal(struct {
		Dev     bool          `json:"dev"`
		Project string        `json:"project"`
		Voice   *voiceSetting `json:"voice,omitempty"`
	}{cfg.Dev, cfg.Project.Name, voiceSettings(cfg.Project)})
	mux.HandleFunc("GET /vkm/web.json", serveBytes("application/json", settings))
	if cfg.LAN != nil {
		mux.Handle("GET /vkm/lan", newLANList(cfg.LAN, log))
	}
	// Read at each request, as the archive is: a dev server's page takes
	// the icon saved last.
	mux.HandleFunc("GET /asset/{path...}", func(w http.ResponseWriter, r *http.Request) {
		view.ServeAsset(w, r, cfg.Project.FS, r.PathValue("path"))
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		view.ServeIcon(w, projectIcon(cfg.Project, log))
	})
	// The archive's files are stored and the download gzipped: the
	// browser client links no zip decompressor (project.WriteZipStored).
	mux.HandleFunc("GET /vkm/project.zip", func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		if err := project.WriteZipStored(&b, cfg.Project); err != nil {
			log.Error("packing the project for a browser", "err", err)
			http.Error(w, "vkm: the project cannot be packed: "+err.Error(), http.StatusInternalServerError)
			return
		}
		body := b.Bytes()
		w.Header().Add("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			var z bytes.Buffer
			gw, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed)
			gw.Write(body)
			gw.Close()
			w.Header().Set("Content-Encoding", "gzip")
			body = z.Bytes()
		}
		serveBytes("application/zip", body)(w, r)
	})
	return nil
}

// serve sends the client: Brotli-compressed to a browser that takes br
// (browsers offer it over HTTPS and to localhost), a fifth of the size;
// gzipped to one that takes gzip, a quarter; and not again to one that
// has this build already.
func (wc *webClient) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/wasm")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Add("Vary", "Accept-Encoding")
	b, etag := wc.wasm, wc.etag
	switch ae := r.Header.Get("Accept-Encoding"); {
	case accepts(ae, "br"):
		h.Set("Content-Encoding", "br")
		b, etag = wc.wasmBr, wc.etag+"-br"
	case acceptsGzip(ae):
		h.Set("Content-Encoding", "gzip")
		b, etag = wc.wasmGz, wc.etag+"-gz"
	}
	h.Set("ETag", `"`+etag+`"`)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
}

// acceptsGzip reports whether an Accept-Encoding header takes gzip.
func acceptsGzip(header string) bool { return accepts(header, "gzip") }

// accepts reports whether an Accept-Encoding header takes the content
// coding named.
func accepts(header, coding string) bool {
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), coding) {
			return strings.ReplaceAll(strings.TrimSpace(params), " ", "") != "q=0"
		}
	}
	return false
}

// errNoGo says the browser client cannot be built here.
var errNoGo = errors.New("the go toolchain is not on PATH")

// webBuild is the browser client built from source, once a process: every
// server of the process (tests serve many) shares it.
var webBuild struct {
	once sync.Once
	done chan struct{} // closed when wc or err is set
	wc   *webClient
	err  error
}

// webClientFor returns what hands out the browser client: the one in file,
// read now, or, when file is empty, the one built from the module's
// source. That build starts now, in the background: the server serves its
// players meanwhile and the client's files wait for it. What would stop it
// (no go toolchain, no source) is an error now.
func webClientFor(file string, log *slog.Logger) (func(ctx context.Context) (*webClient, error), error) {
	if file != "" {
		wc, err := readWebClient(file)
		if err != nil {
			return nil, err
		}
		return func(context.Context) (*webClient, error) { return wc, nil }, nil
	}
	goBin, src, err := webClientSource()
	if err != nil {
		return nil, err
	}
	webBuild.once.Do(func() {
		webBuild.done = make(chan struct{})
		go func() {
			defer close(webBuild.done)
			start := time.Now()
			log.Info("building the browser client", "package", webClientPkg, "source", src)
			wasm, err := buildWebClient(goBin, src)
			var execJS []byte
			if err == nil {
				execJS, err = goWasmExec(goBin)
			}
			if err != nil {
				webBuild.err = fmt.Errorf("browser: the browser client: %w", err)
				log.Error("the browser client cannot be built", "err", err)
				return
			}
			webBuild.wc = readyWebClient(wasm, execJS)
			log.Info("built the browser client", "bytes", len(wasm), "took", time.Since(start).Round(time.Millisecond))
		}()
	})
	return func(ctx context.Context) (*webClient, error) {
		select {
		case <-webBuild.done:
			return webBuild.wc, webBuild.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}, nil
}

// readWebClient reads the browser client from file, with the wasm_exec.js
// beside it or the go toolchain's.
func readWebClient(file string) (*webClient, error) {
	wasm, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("browser: the browser client (--wasm): %w", err)
	}
	if !bytes.HasPrefix(wasm, []byte("\x00asm")) {
		return nil, fmt.Errorf("browser: the browser client (--wasm) %s is not a WebAssembly file", file)
	}
	execJS, err := os.ReadFile(filepath.Join(filepath.Dir(file), "wasm_exec.js"))
	if err != nil {
		goBin, lerr := exec.LookPath("go")
		if lerr == nil {
			execJS, err = goWasmExec(goBin)
		} else {
			err = errNoGo
		}
		if err != nil {
			return nil, fmt.Errorf("browser: the browser client (--wasm) %s needs wasm_exec.js beside it (from the lib/wasm folder of the Go that built it): %s holds none, and %w", file, filepath.Dir(file), err)
		}
	}
	return readyWebClient(wasm, execJS), nil
}

// brotliQuality is the Brotli quality the client is compressed at: 6
// takes about as long as gzip's best (0.9 s for 11.7 MB) for a download
// 17 % smaller than gzip's; 9 saves another 2 % in 2.4 s, 11 another 15 %
// in 31 s of the server's start.
const brotliQuality = 6

// readyWebClient compresses the client, with gzip and with Brotli, and
// names its build. It is compressed once, gzip as hard as it goes: every
// player's download is the smaller for it.
func readyWebClient(wasm, execJS []byte) *webClient {
	wc := webClient{wasm: wasm, execJS: execJS}
	var br bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		bw := brotli.NewWriterOptions(&br, brotli.WriterOptions{Quality: brotliQuality, LGWin: 24})
		bw.Write(wc.wasm)
		bw.Close()
	}()
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(wc.wasm)
	zw.Close()
	wc.wasmGz = gz.Bytes()
	<-done
	wc.wasmBr = br.Bytes()
	sum := sha256.Sum256(wc.wasm)
	wc.etag = hex.EncodeToString(sum[:8])
	return &wc
}

// webClientSource finds the go toolchain and vkm's source (the working
// folder or one above it), or says why the client cannot be built.
func webClientSource() (goBin, src string, err error) {
	howto := "; build it with `go run ./cmd/vkmd wasm -o web/client.wasm` in vkm's source (it writes wasm_exec.js beside it) and pass --wasm web/client.wasm"
	goBin, err = exec.LookPath("go")
	if err != nil {
		return "", "", fmt.Errorf("browser: the browser client is built when the server starts, and %w%s", errNoGo, howto)
	}
	src, err = moduleSource()
	if err != nil {
		return "", "", fmt.Errorf("browser: the browser client is built from vkm's source, and %w%s", err, howto)
	}
	return goBin, src, nil
}

// buildWebClient builds cmd/webclient for js/wasm in src into a temporary
// folder and returns the file. The go toolchain's build cache makes a
// second start quick.
func buildWebClient(goBin, src string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "vkm-webclient-")
	if err != nil {
		return nil, fmt.Errorf("browser: building the browser client: %w", err)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "client.wasm")
	cmd := exec.Command(goBin, append(append([]string{"build"}, webClientFlags...), "-o", out, webClientPkg)...)
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building it in %s: %v\n%s", src, err, msg)
	}
	return os.ReadFile(out)
}

// moduleSource finds vkm's source: the working folder or the nearest one
// above it whose go.mod declares module vkm.
func moduleSource() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if f, err := os.Open(filepath.Join(dir, "go.mod")); err == nil {
			sc := bufio.NewScanner(f)
			mod := ""
			for sc.Scan() {
				if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
					mod = strings.Trim(strings.TrimSpace(m), `"`)
					break
				}
			}
			f.Close()
			if mod == "vkm" {
				return dir, nil
			}
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("neither the working folder nor one above it holds vkm's go.mod")
		}
		dir = up
	}
}

// goWasmExec returns the go toolchain's wasm_exec.js.
func goWasmExec(goBin string) ([]byte, error) {
	out, err := exec.Command(goBin, "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	root := strings.TrimSpace(string(out))
	for _, rel := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} { // Go 1.24 moved it to lib
		if b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel))); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("the go toolchain at %s has no lib/wasm/wasm_exec.js", root)
}

// inTabPolicy is the in-tab page's security policy for a page the browser
// asked host for: view.InTabSecurityPolicy, letting it connect to the
// WebTransport port on that host too when there is one. A host that is
// not plainly a name or an address gets the policy alone: its page uses
// WebRTC.
func inTabPolicy(host string, wtPort int) string {
	if wtPort == 0 {
		return view.InTabSecurityPolicy
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if a, err := netip.ParseAddr(host); err == nil {
		host = a.String()
		if a.Is6() {
			host = "[" + a.WithZone("").String() + "]"
		}
	} else if host == "" || strings.Trim(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") != "" {
		return view.InTabSecurityPolicy
	}
	src := "https://" + host + ":" + strconv.Itoa(wtPort)
	return strings.Replace(view.InTabSecurityPolicy, "connect-src 'self'", "connect-src 'self' "+src, 1)
}

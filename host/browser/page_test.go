package browser

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"

	"vkm/host/project"
	"vkm/host/view"
)

// fakeClient writes a file that passes for the browser client (WebAssembly's
// magic number and some bytes) and a wasm_exec.js beside it, and returns
// the client's path.
func fakeClient(t *testing.T) (file string, wasm []byte) {
	t.Helper()
	dir := t.TempDir()
	wasm = append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("vkm client "), 4000)...)
	file = filepath.Join(dir, "client.wasm")
	if err := os.WriteFile(file, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "wasm_exec.js"), []byte("// go's"), 0o644); err != nil {
		t.Fatal(err)
	}
	return file, wasm
}

func get(t *testing.T, h http.Handler, path string, header ...string) *http.Response {
	t.Helper()
	r := httptest.NewRequest("GET", path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func body(t *testing.T, r *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWebPageServesTheClientInTheTab: the page loads Go's support, the
// in-tab start and the drawing in that order; the client comes gzipped
// to a browser that takes gzip, whole to one that does not, and not again
// to one that has it; the project's archive loads as the project; the
// settings say the server is a dev server.
func TestWebPageServesTheClientInTheTab(t *testing.T) {
	file, wasm := fakeClient(t)
	p := loadCrowd(t)
	mux := http.NewServeMux()
	if err := registerPage(mux, PageConfig{Project: p, Dev: true, WebClient: file}); err != nil {
		t.Fatal(err)
	}

	r := get(t, mux, "/")
	page := string(body(t, r))
	i, j, k := strings.Index(page, `src="/wasm_exec.js"`), strings.Index(page, `src="/vkm-web.js"`), strings.Index(page, `src="/vkm.js"`)
	if r.StatusCode != 200 || i < 0 || !(i < j && j < k) || !strings.Contains(r.Header.Get("Content-Security-Policy"), "'wasm-unsafe-eval'") {
		t.Fatalf("the page (%d, CSP %q) loads its scripts at %d, %d, %d:\n%s", r.StatusCode, r.Header.Get("Content-Security-Policy"), i, j, k, page)
	}
	for _, path := range []string{"/vkm.js", "/vkm-web.js", "/vkm.css", "/wasm_exec.js"} {
		if r := get(t, mux, path); r.StatusCode != 200 || len(body(t, r)) == 0 {
			t.Errorf("%s: %d", path, r.StatusCode)
		}
	}

	r = get(t, mux, "/vkm/client.wasm", "Accept-Encoding", "gzip, deflate, br, zstd")
	brBody := body(t, r)
	if r.Header.Get("Content-Type") != "application/wasm" || r.Header.Get("Content-Encoding") != "br" || !strings.HasSuffix(r.Header.Get("ETag"), `-br"`) {
		t.Fatalf("client to a browser taking br: %v", r.Header)
	}
	if got, err := io.ReadAll(brotli.NewReader(bytes.NewReader(brBody))); err != nil || !bytes.Equal(got, wasm) {
		t.Fatalf("the Brotli-compressed client is not the client (%v)", err)
	}
	r = get(t, mux, "/vkm/client.wasm", "Accept-Encoding", "br;q=0, gzip")
	gz := body(t, r)
	if r.Header.Get("Content-Type") != "application/wasm" || r.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("client: %v", r.Header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(zr); !bytes.Equal(got, wasm) {
		t.Fatal("the gzipped client is not the client")
	}
	t.Logf("client %d bytes, %d gzipped, %d with Brotli", len(wasm), len(gz), len(brBody))
	if r := get(t, mux, "/vkm/client.wasm", "Accept-Encoding", "gzip;q=0"); r.Header.Get("Content-Encoding") != "" || !bytes.Equal(body(t, r), wasm) {
		t.Fatal("a browser refusing gzip got something else than the client")
	}
	etag := r.Header.Get("ETag")
	if r := get(t, mux, "/vkm/client.wasm", "Accept-Encoding", "gzip", "If-None-Match", etag); r.StatusCode != http.StatusNotModified {
		t.Fatalf("a browser with the client (%s) got %d", etag, r.StatusCode)
	}

	// The archive: its files stored (the browser client has no zip
	// decompressor), the download gzipped for a browser that takes it.
	r = get(t, mux, "/vkm/project.zip", "Accept-Encoding", "gzip")
	arch := body(t, r)
	if r.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("the archive is sent %q", r.Header.Get("Content-Encoding"))
	}
	if zr, err = gzip.NewReader(bytes.NewReader(arch)); err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	ar, err := zip.NewReader(bytes.NewReader(plain), int64(len(plain)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.File {
		if f.Method != zip.Store {
			t.Fatalf("%s is compressed in the archive (method %d)", f.Name, f.Method)
		}
	}
	t.Logf("archive %d bytes, %d gzipped", len(plain), len(arch))
	r = get(t, mux, "/vkm/project.zip")
	if b := body(t, r); r.Header.Get("Content-Encoding") != "" || !bytes.Equal(b, plain) {
		t.Fatal("a browser that takes no gzip got something else than the archive")
	}
	got, err := project.LoadZip(plain)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != p.Name || got.Players != p.Players || got.EntryScene != p.EntryScene || len(got.Folders) != 2 {
		t.Fatalf("the archive loads as %+v", got)
	}

	var settings struct {
		Dev     bool
		Project string
	}
	if err := json.Unmarshal(body(t, get(t, mux, "/vkm/web.json")), &settings); err != nil || !settings.Dev || settings.Project != p.Name {
		t.Fatalf("settings %+v, %v", settings, err)
	}
}

// TestWebPageSaysWhyThereIsNoClient: with no go toolchain on PATH and no
// client named, and with a client that is not WebAssembly, the error says
// what to do.
func TestWebPageSaysWhyThereIsNoClient(t *testing.T) {
	p := loadArena(t)
	t.Setenv("PATH", t.TempDir())
	err := registerPage(http.NewServeMux(), PageConfig{Project: p})
	if err == nil || !strings.Contains(err.Error(), "not on PATH") || !strings.Contains(err.Error(), "--wasm") {
		t.Fatalf("without go: %v", err)
	}
	t.Log(err)
	notWasm := filepath.Join(t.TempDir(), "client.wasm")
	os.WriteFile(notWasm, []byte("#!/bin/sh"), 0o644)
	err = registerPage(http.NewServeMux(), PageConfig{Project: p, WebClient: notWasm})
	if err == nil || !strings.Contains(err.Error(), "not a WebAssembly file") {
		t.Fatalf("not wasm: %v", err)
	}
	t.Log(err)
}

func TestAcceptsGzip(t *testing.T) {
	for h, want := range map[string]bool{"": false, "gzip": true, "br, gzip, deflate": true, "GZIP;q=0.5": true, "gzip;q=0": false, "deflate": false, "x-gzip": false} {
		if got := acceptsGzip(h); got != want {
			t.Errorf("acceptsGzip(%q) = %v", h, got)
		}
	}
}

func TestAcceptsBrotli(t *testing.T) {
	for h, want := range map[string]bool{"": false, "gzip": false, "gzip, deflate, br, zstd": true, "BR;q=0.5": true, "br;q=0, gzip": false, "brotli": false} {
		if got := accepts(h, "br"); got != want {
			t.Errorf("accepts(%q, br) = %v", h, got)
		}
	}
}

// TestWebPageOffersVoiceWithAVoiceTable: web.json carries [voice] (the
// push-to-talk button's keys with it) when the project has one, and
// nothing otherwise, and the page loads vkm-voice.js.
func TestWebPageOffersVoiceWithAVoiceTable(t *testing.T) {
	file, _ := fakeClient(t)
	p := loadArena(t)
	type settings struct {
		Voice *struct {
			Mode, PushToTalk string
			Range            float64
			Keys             []string
		}
	}
	read := func() settings {
		t.Helper()
		mux := http.NewServeMux()
		if err := registerPage(mux, PageConfig{Project: p, WebClient: file}); err != nil {
			t.Fatal(err)
		}
		if page := string(body(t, get(t, mux, "/"))); !strings.Contains(page, `src="/vkm-voice.js"`) {
			t.Fatalf("the page does not load vkm-voice.js:\n%s", page)
		}
		if r := get(t, mux, "/vkm-voice.js"); r.StatusCode != 200 || !strings.Contains(string(body(t, r)), "window.vkmVoice") {
			t.Fatalf("/vkm-voice.js: %d", r.StatusCode)
		}
		var s settings
		if err := json.Unmarshal(body(t, get(t, mux, "/vkm/web.json")), &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := read(); s.Voice != nil {
		t.Fatalf("a project without [voice] offers voice: %+v", s.Voice)
	}
	p.Voice = project.Voice{Mode: "nearby", Range: 12, PushToTalk: "jump"}
	s := read()
	if s.Voice == nil || s.Voice.Mode != "nearby" || s.Voice.Range != 12 || s.Voice.PushToTalk != "jump" || strings.Join(s.Voice.Keys, " ") != "Space KeyW ArrowUp" {
		t.Fatalf("voice settings %+v", s.Voice)
	}
}

// The page may connect to the WebTransport port on the host it was asked
// for, and nowhere else; a host that is not plainly a name or an address
// adds nothing to the policy.
func TestThePagesPolicyNamesTheWebTransportPort(t *testing.T) {
	for _, c := range []struct {
		host string
		port int
		want string
	}{
		{"127.0.0.1:8080", 8081, "connect-src 'self' https://127.0.0.1:8081;"},
		{"example.com:8080", 8081, "connect-src 'self' https://example.com:8081;"},
		{"example.com", 4433, "connect-src 'self' https://example.com:4433;"},
		{"[::1]:8080", 8081, "connect-src 'self' https://[::1]:8081;"},
		{"127.0.0.1:8080", 0, "connect-src 'self';"},
		{"evil; script-src *:8080", 8081, "connect-src 'self';"},
		{"", 8081, "connect-src 'self';"},
	} {
		p := inTabPolicy(c.host, c.port)
		if !strings.Contains(p, c.want) || strings.Count(p, "connect-src") != 1 || strings.Count(p, ";") != strings.Count(view.InTabSecurityPolicy, ";") {
			t.Errorf("host %q port %d: %q, want it to say %q", c.host, c.port, p, c.want)
		}
	}
}

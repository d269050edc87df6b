//go:build !js

package view

import (
	"bytes"
	"io/fs"
)

// The page for a client that runs in the tab (the browser client compiled
// to WebAssembly, which `vkmd --web` serves): the same files, with Go's
// WebAssembly support (wasm_exec.js, which the Go toolchain ships) and
// vkm-web.js loaded before vkm.js. vkm-web.js starts the client and gives
// vkm.js the in-tab link through window.vkmWeb; vkm.js then draws as it
// does for a client behind the WebSocket.

// pageScript is how index.html loads vkm.js.
const pageScript = `<script src="/vkm.js"></script>`

// InTabPage returns index.html for a client running in the tab. Its
// scripts are /wasm_exec.js, /vkm-web.js and /vkm.js, in that order.
func InTabPage() []byte {
	b, err := pageFS.ReadFile("page/index.html")
	if err != nil || bytes.Count(b, []byte(pageScript)) != 1 {
		panic("view: index.html does not load vkm.js once") // the embedded page is broken
	}
	return bytes.Replace(b, []byte(pageScript),
		[]byte(`<script src="/wasm_exec.js"></script>`+"\n"+`<script src="/vkm-web.js"></script>`+"\n"+`<script src="/vkm-voice.js"></script>`+"\n"+pageScript), 1)
}

// PageFiles returns the page's files: vkm.js, vkm.css, vkm-web.js and
// index.html (which loads vkm.js alone: InTabPage is the in-tab one).
func PageFiles() fs.FS {
	sub, err := fs.Sub(pageFS, "page")
	if err != nil {
		panic("view: " + err.Error())
	}
	return sub
}

// InTabSecurityPolicy is the Content-Security-Policy of the in-tab page:
// the view's, with WebAssembly allowed to compile.
const InTabSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

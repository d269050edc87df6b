//go:build !js

package host

import "vkm/host/browser"

// BuildWebClient builds the browser client as a server with --web does at
// start, with the same flags, and writes it to file with the go
// toolchain's wasm_exec.js beside it: what --wasm serves (vkmd wasm).
func BuildWebClient(file string) error {
	return browser.BuildWebClient(file)
}

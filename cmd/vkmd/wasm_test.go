package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vkmd wasm writes a WebAssembly client and the wasm_exec.js that runs
// it, which --wasm then serves; without a file it is a usage error.
func TestWasmWritesTheClientAndItsLoader(t *testing.T) {
	if code, _, stderr := runMain(t, "wasm"); code != 2 || !strings.Contains(stderr, "no file to write") {
		t.Fatalf("vkmd wasm with no file: exit %d, %q", code, stderr)
	}
	if testing.Short() {
		t.Skip("builds the browser client (-short)")
	}
	file := filepath.Join(t.TempDir(), "web", "client.wasm")
	code, stdout, stderr := runMain(t, "wasm", file)
	if code != 0 {
		t.Fatalf("vkmd wasm: exit %d, %s", code, stderr)
	}
	wasm, err := os.ReadFile(file)
	if err != nil || !bytes.HasPrefix(wasm, []byte("\x00asm")) {
		t.Fatalf("%s: %d bytes, not WebAssembly (%v)", file, len(wasm), err)
	}
	js, err := os.ReadFile(filepath.Join(filepath.Dir(file), "wasm_exec.js"))
	if err != nil || !bytes.Contains(js, []byte("Go")) {
		t.Fatalf("wasm_exec.js: %v", err)
	}
	if !strings.Contains(stdout, "--wasm "+file) {
		t.Errorf("stdout %q does not say how to serve it", stdout)
	}
}

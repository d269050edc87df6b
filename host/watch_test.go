package host

import (
	"io/fs"
	"testing"
	"testing/fstest"
)

// TestWatcherReadsOnlyRegularFiles: a pipe or a device named like a
// script is not watched (reading one would wait or never end), and a
// script over the largest bundle is an error, not read whole.
func TestWatcherReadsOnlyRegularFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"scripts/main.lua": {Data: []byte("return 1\n")},
		"scripts/pipe.lua": {Mode: fs.ModeNamedPipe},
		"scripts/zero.lua": {Mode: fs.ModeDevice | fs.ModeCharDevice},
	}
	w, err := newWatcher(fsys)
	if err != nil {
		t.Fatal(err)
	}
	for p := range w.stamp {
		if p != "scripts/main.lua" {
			t.Errorf("watches %s", p)
		}
	}
	fsys["scripts/big.lua"] = &fstest.MapFile{Data: make([]byte, maxWatchedFile+1)}
	if w.poll(1) || !w.poll(1+WatchQuiet) {
		t.Fatal("the new file was not seen")
	}
	if files, err := w.changed(); err == nil {
		t.Fatalf("read %d changed files, one over %d bytes", len(files), maxWatchedFile)
	}
}

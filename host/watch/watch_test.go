package watch

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"
	"vkm/host/project"
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
	w, err := New(fsys)
	if err != nil {
		t.Fatal(err)
	}
	for p := range w.stamp {
		if p != "scripts/main.lua" {
			t.Errorf("watches %s", p)
		}
	}
	fsys["scripts/big.lua"] = &fstest.MapFile{Data: make([]byte, maxWatchedFile+1)}
	if w.Poll(1) || !w.Poll(1+Quiet) {
		t.Fatal("the new file was not seen")
	}
	if files, err := w.Changed(); err == nil {
		t.Fatalf("read %d changed files, one over %d bytes", len(files), maxWatchedFile)
	}
}

// TestWatcherSeesTheExtendedFolder: a dev server of a project that extends
// another watches both folders as one: a save in the folder extended is a
// change, and so is a file of the project's own that comes to hide one.
func TestWatcherSeesTheExtendedFolder(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"arena", "crowd"} {
		if err := os.CopyFS(filepath.Join(root, name), os.DirFS(filepath.Join("..", "..", "projects", name))); err != nil {
			t.Fatal(err)
		}
	}
	p, err := project.LoadProject(filepath.Join(root, "crowd"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(p.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"scripts/main.lua", "scripts/walker.lua", "scripts/join.lua", "prefabs/player.toml"} {
		if _, ok := w.stamp[name]; !ok {
			t.Errorf("%s is not watched (watched: %v)", name, w.stamp)
		}
	}
	now := time.Duration(0)
	settle := func() map[string][]byte {
		t.Helper()
		for range 10 {
			now += Every
			if w.Poll(now) {
				files, err := w.Changed()
				if err != nil {
					t.Fatal(err)
				}
				return files
			}
		}
		t.Fatal("no change seen")
		return nil
	}
	walker := filepath.Join(root, "arena", "scripts", "walker.lua")
	if err := os.WriteFile(walker, []byte("-- base walker, faster\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(walker, time.Now().Add(time.Second), time.Now().Add(time.Second))
	if files := settle(); len(files) != 1 || string(files["scripts/walker.lua"]) != "-- base walker, faster\n" {
		t.Errorf("after a save in the folder extended: %q", files)
	}
	if err := os.WriteFile(filepath.Join(root, "crowd", "scripts", "walker.lua"), []byte("-- the game's own walker\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if files := settle(); len(files) != 1 || string(files["scripts/walker.lua"]) != "-- the game's own walker\n" {
		t.Errorf("after a file of the project's own hid the one extended: %q", files)
	}
}

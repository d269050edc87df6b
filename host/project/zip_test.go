package project

import (
	"archive/zip"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// zipOf packs the project in dir and returns the archive.
func zipOf(t testing.TB, dir string) []byte {
	t.Helper()
	p, err := LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteZip(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// settings is what a project is played with, without where it was read.
func settings(p *Project) Project {
	q := *p
	q.Dir, q.Folders, q.FS, q.File, q.Extends = "", nil, nil, "", ""
	return q
}

// TestZipLoadsAsTheSameProject: the arena and the crowd (which extends
// the arena) packed and loaded from the archive are the projects loaded
// from disk: every setting, and every file read the same through FS.
func TestZipLoadsAsTheSameProject(t *testing.T) {
	for _, dir := range []string{"../../projects/arena", "../../projects/crowd"} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			disk, err := LoadProject(dir)
			if err != nil {
				t.Fatal(err)
			}
			b := zipOf(t, dir)
			p, err := LoadZip(b)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := settings(p), settings(disk); !reflect.DeepEqual(got, want) {
				t.Fatalf("from the archive:\n%+v\nfrom disk:\n%+v", got, want)
			}
			t.Logf("%s: %d bytes, folders %v", dir, len(b), p.Folders)
			n := 0
			err = fs.WalkDir(disk.FS, ".", func(name string, e fs.DirEntry, err error) error {
				if err != nil || e.IsDir() {
					return err
				}
				if strings.HasPrefix(e.Name(), ".") {
					return nil // an editor's settings, left out
				}
				want, err := fs.ReadFile(disk.FS, name)
				if err != nil {
					return err
				}
				got, err := fs.ReadFile(p.FS, name)
				if err != nil {
					return err
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs in the archive", name)
				}
				n++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if n < 5 {
				t.Fatalf("only %d files compared", n)
			}
		})
	}
}

// TestZipLeavesOutHiddenFiles: a dot-file or dot-folder of the project is
// not packed.
func TestZipLeavesOutHiddenFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "game")
	writeFiles(t, dir, map[string]string{
		"project.toml":      minimalProject,
		"scenes/arena.toml": "",
		"scripts/main.lua":  "",
		".git/config":       "secret",
		"scripts/.swp":      "editor",
	})
	zr, err := zip.NewReader(bytes.NewReader(zipOf(t, dir)), int64(len(zipOf(t, dir))))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "game/project.toml game/scenes/arena.toml game/scripts/main.lua" || zr.Comment != "game" {
		t.Fatalf("packed %q with comment %q", got, zr.Comment)
	}
}

// TestLoadFSExtendsStaysInside: extends cannot lead out of the file
// system a project is loaded from; the error names project.toml's line.
func TestLoadFSExtendsStaysInside(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"game/project.toml": "extends = \"../../elsewhere\"\n" + minimalProject,
	})
	_, err := LoadFS(os.DirFS(dir), "game")
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key != "extends" || ce.Line != 1 || ce.File != "game/project.toml" {
		t.Fatalf("err = %v", err)
	}
	t.Log(err)
}

// FuzzLoadZip: an archive is bytes from the network; whatever they are,
// LoadZip returns a project or an error and never panics.
func FuzzLoadZip(f *testing.F) {
	f.Add(zipOf(f, "../../projects/arena"))
	f.Add(zipOf(f, "../../projects/crowd"))
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := LoadZip(b)
		if err == nil && (p.Players < 1 || p.EntryScene == "") {
			t.Fatalf("loaded %+v", p)
		}
	})
}

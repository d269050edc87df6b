package project

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Bounds on what WriteZip packs: a project is its settings, scenes,
// prefabs and scripts, which are text; a folder far past these holds
// something else (a build, a video) that a client should not download.
const (
	MaxZipFiles = 4096
	MaxZipBytes = 64 << 20
)

// WriteZip writes p's files to w as a zip archive that LoadZip loads as the
// same project: every folder p reads from (Folders: its own and those it
// extends), each at its place relative to the others, so that extends
// leads from one to the next inside the archive as it does on disk. The
// archive's comment is the path of p's own folder in it. Files and
// folders whose names start with "." (.git, an editor's) are left out, as
// the dev watcher leaves them out. More than MaxZipFiles files or
// MaxZipBytes bytes is an error naming the folder.
//
// The browser client downloads the archive: a project and the projects
// it extends are one file, read the way the server reads them.
func WriteZip(w io.Writer, p *Project) error {
	abs := make([]string, len(p.Folders))
	for i, d := range p.Folders {
		a, err := filepath.Abs(d)
		if err != nil {
			return fmt.Errorf("project: %s: %w", d, err)
		}
		abs[i] = a
	}
	// The archive's root is the folder above every project folder, so
	// each is a named folder in it.
	base := filepath.Dir(abs[0])
	for _, a := range abs[1:] {
		for !within(base, a) {
			base = filepath.Dir(base)
		}
	}
	zw := zip.NewWriter(w)
	written := map[string]bool{}
	files, total := 0, int64(0)
	for i, d := range p.Folders {
		rel, err := filepath.Rel(base, abs[i])
		if err != nil {
			return fmt.Errorf("project: %s: %w", d, err)
		}
		prefix := filepath.ToSlash(rel)
		err = fs.WalkDir(os.DirFS(d), ".", func(name string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if name != "." && strings.HasPrefix(e.Name(), ".") {
				if e.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if e.IsDir() {
				return nil
			}
			full := path.Join(prefix, name)
			if written[full] { // a folder extended that lies inside another
				return nil
			}
			b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(name)))
			if err != nil {
				var pe *fs.PathError
				if errors.As(err, &pe) && e.Type()&fs.ModeSymlink != 0 {
					return nil // a link to nothing, or to a folder: not a file of the project
				}
				return err
			}
			files++
			total += int64(len(b))
			if files > MaxZipFiles || total > MaxZipBytes {
				return fmt.Errorf("more than %d files or %d MiB: a project folder holds its settings, scenes, prefabs and scripts", MaxZipFiles, MaxZipBytes>>20)
			}
			written[full] = true
			f, err := zw.CreateHeader(&zip.FileHeader{Name: full, Method: zip.Deflate})
			if err != nil {
				return err
			}
			_, err = f.Write(b)
			return err
		})
		if err != nil {
			return fmt.Errorf("project: packing %s: %w", d, err)
		}
	}
	rel, _ := filepath.Rel(base, abs[0])
	if err := zw.SetComment(filepath.ToSlash(rel)); err != nil {
		return err
	}
	return zw.Close()
}

// within reports whether folder a is dir or inside it.
func within(dir, a string) bool {
	rel, err := filepath.Rel(dir, a)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// LoadZip loads the project of an archive WriteZip wrote: the folder its
// comment names, with LoadFS. Errors name files by their paths in the
// archive.
func LoadZip(b []byte) (*Project, error) {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("project: reading the project's archive: %w", err)
	}
	if zr.Comment == "" || !fs.ValidPath(zr.Comment) {
		return nil, fmt.Errorf("project: the project's archive does not name its folder (its comment is %q)", zr.Comment)
	}
	return LoadFS(zr, zr.Comment)
}

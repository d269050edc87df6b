package project

import (
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

// packZip walks p's files as WriteZip packs them, handing each to add
// with its path in the archive, and returns the archive's comment: the
// path of p's own folder in it.
func packZip(p *Project, add func(name string, data []byte) error) (string, error) {
	abs := make([]string, len(p.Folders))
	for i, d := range p.Folders {
		a, err := filepath.Abs(d)
		if err != nil {
			return "", fmt.Errorf("project: %s: %w", d, err)
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
	written := map[string]bool{}
	files, total := 0, int64(0)
	for i, d := range p.Folders {
		rel, err := filepath.Rel(base, abs[i])
		if err != nil {
			return "", fmt.Errorf("project: %s: %w", d, err)
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
			return add(full, b)
		})
		if err != nil {
			return "", fmt.Errorf("project: packing %s: %w", d, err)
		}
	}
	rel, _ := filepath.Rel(base, abs[0])
	return filepath.ToSlash(rel), nil
}

// WriteZipStored writes what WriteZip does with every file stored rather
// than compressed: the archive the browser client downloads, which its
// server gzips whole, and which LoadZip loads in every build (the
// browser's reads only this form).
func WriteZipStored(w io.Writer, p *Project) error {
	z := &storedZipWriter{w: w}
	comment, err := packZip(p, func(name string, data []byte) error {
		z.add(name, data)
		return z.err
	})
	if err != nil {
		return err
	}
	return z.close(comment)
}

// within reports whether folder a is dir or inside it.
func within(dir, a string) bool {
	rel, err := filepath.Rel(dir, a)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

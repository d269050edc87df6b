// Package watch tells a dev server when a project's scripts and prefabs
// have been saved, and what they hold now: a poll of the project's files,
// settled over a quiet spell so a burst of saves is one change.
package watch

import (
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"strings"
	"time"

	"vkm/transport"
)

// Quiet is how long the files must stay unchanged after a change
// before a reload is made of them: an editor's save can be several
// writes, and a developer saving three files at once means one reload.
const Quiet = 150 * time.Millisecond

// Every is how often a dev server looks at the project's files. A
// poll stats a few dozen files; ten a second costs nothing measurable and
// keeps a save's reload well inside a second.
const Every = 100 * time.Millisecond

// maxWatchedFile is the largest script or prefab a reload reads: a bundle
// holding a larger one could not be sent (see checkBundle).
const maxWatchedFile = transport.DefaultReliableMaxMessage

// Watcher polls a project's scripts (*.lua anywhere) and prefabs (*.toml
// under prefabs/) for changes. It reads the project's FS, so a project
// that extends another is watched in every folder it reads from: a save
// in the folder extended is a change too, and so is a file of the
// project's own that comes to hide one there.
//
// Polling rather than OS file events: editors that save by writing a new
// file and renaming it over the old, folders on network or container
// mounts, and a project read through an fs.FS all look the same to a
// poll, the cost at ten polls a second is a few dozen stats, and nothing
// outside the standard library is needed.
type Watcher struct {
	fsys fs.FS
	// start is every watched file's content when the server started:
	// a bundle carries what differs from it.
	start map[string][]byte
	stamp map[string]stamp
	// dirty is when the files were last seen to change (0: settled).
	dirty time.Duration
}

type stamp struct {
	size int64
	mod  time.Time
}

// New starts watching fsys: what it holds now is what Changed compares
// with.
func New(fsys fs.FS) (*Watcher, error) {
	w := &Watcher{fsys: fsys, start: map[string][]byte{}}
	st, err := w.scan()
	if err != nil {
		return nil, err
	}
	w.stamp = st
	for p := range st {
		b, err := readWatched(fsys, p)
		if err != nil {
			return nil, err
		}
		w.start[p] = b
	}
	return w, nil
}

// watched reports whether p is a file a reload carries.
func watched(p string) bool {
	switch path.Ext(p) {
	case ".lua":
		return true
	case ".toml":
		return strings.HasPrefix(p, "prefabs/")
	}
	return false
}

func (w *Watcher) scan() (map[string]stamp, error) {
	out := map[string]stamp{}
	err := fs.WalkDir(w.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if !watched(p) {
			return nil
		}
		info, err := d.Info()
		if err == nil && d.Type()&fs.ModeSymlink != 0 {
			info, err = fs.Stat(w.fsys, p)
		}
		if err != nil {
			return nil // gone between the listing and the stat
		}
		if !info.Mode().IsRegular() {
			return nil // a pipe or a device: a read could wait, or never end
		}
		out[p] = stamp{info.Size(), info.ModTime()}
		return nil
	})
	return out, err
}

// Poll looks at the files and reports true once, when a change has been
// followed by Quiet of calm.
func (w *Watcher) Poll(now time.Duration) bool {
	st, err := w.scan()
	if err != nil {
		return false
	}
	if !maps.Equal(st, w.stamp) {
		w.stamp, w.dirty = st, max(now, 1)
		return false
	}
	if w.dirty != 0 && now-w.dirty >= Quiet {
		w.dirty = 0
		return true
	}
	return false
}

// Changed returns every watched file whose content differs from the
// start, and every file added since.
func (w *Watcher) Changed() (map[string][]byte, error) {
	out := map[string][]byte{}
	for p := range w.stamp {
		b, err := readWatched(w.fsys, p)
		if err != nil {
			return nil, err
		}
		if old, ok := w.start[p]; !ok || string(old) != string(b) {
			out[p] = b
		}
	}
	return out, nil
}

// readWatched reads a watched file, refusing one over maxWatchedFile
// rather than read it whole.
func readWatched(fsys fs.FS, p string) ([]byte, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxWatchedFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxWatchedFile {
		return nil, fmt.Errorf("watch: %s is over %d bytes", p, maxWatchedFile)
	}
	return b, nil
}

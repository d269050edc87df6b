package project

import (
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"
)

// layeredFS reads the folders of a project that extends others as one
// folder (see Project.Folders): a name is read from the first layer that
// has it, so a project's own file hides the file of the same path in the
// project it extends, and a folder lists what every layer holds in it.
// Everything that reads a project (its scenes, prefabs and scripts, the dev
// watcher, a reload's bundle) goes through it, so all of them see the same
// files.
//
// Where a name is a file in one layer and a folder in another, the first
// layer that has the name decides what it is; the others' are hidden, and
// so is what a hidden folder holds (the layers are folders on disk, where
// a path through a file is an error, not a miss).
type layeredFS struct {
	layers []fs.FS
}

// Open implements fs.FS. A folder that more than one layer holds opens as
// a folder whose ReadDir lists all of them.
func (l layeredFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	file, dirs, err := l.find("open", name)
	switch {
	case err != nil:
		return nil, err
	case file != nil:
		return file.Open(name)
	case len(dirs) == 1:
		return dirs[0].Open(name)
	}
	f, err := dirs[0].Open(name) // Stat and Close are the first layer's
	if err != nil {
		return nil, err
	}
	return &layeredDir{File: f, fsys: l, name: name}, nil
}

// find says where name is read from: file is the layer that holds it as a
// file, when the first layer holding name holds a file; otherwise dirs are
// the layers that hold it as a folder, in order, down to the first that
// holds a file of that name instead. When no layer holds name, the error
// is fs.ErrNotExist.
func (l layeredFS) find(op, name string) (file fs.FS, dirs []fs.FS, err error) {
	for _, f := range l.layers {
		info, err := fs.Stat(f, name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return nil, nil, err
		case !info.IsDir() && len(dirs) == 0:
			return f, nil, nil
		case !info.IsDir():
			return nil, dirs, nil
		}
		dirs = append(dirs, f)
	}
	if len(dirs) == 0 {
		return nil, nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return nil, dirs, nil
}

// Stat implements fs.StatFS: the name as the first layer holding it has it.
func (l layeredFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	for _, f := range l.layers {
		info, err := fs.Stat(f, name)
		if !errors.Is(err, fs.ErrNotExist) {
			return info, err
		}
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// ReadFile implements fs.ReadFileFS: the file of the first layer holding
// the name.
func (l layeredFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: fs.ErrInvalid}
	}
	for _, f := range l.layers {
		b, err := fs.ReadFile(f, name)
		if !errors.Is(err, fs.ErrNotExist) {
			return b, err
		}
	}
	return nil, &fs.PathError{Op: "readfile", Path: name, Err: fs.ErrNotExist}
}

// ReadDir implements fs.ReadDirFS: every layer's entries of the folder,
// the first layer's where two hold the same name, sorted by name.
func (l layeredFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	file, dirs, err := l.find("readdir", name)
	switch {
	case err != nil:
		return nil, err
	case file != nil:
		return fs.ReadDir(file, name) // the error reading a file as a folder gives
	}
	var out []fs.DirEntry
	seen := map[string]bool{}
	for _, d := range dirs {
		list, err := fs.ReadDir(d, name)
		if err != nil {
			return nil, err
		}
		for _, e := range list {
			if !seen[e.Name()] {
				seen[e.Name()] = true
				out = append(out, e)
			}
		}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// layeredDir is a folder that more than one layer holds, open: its
// entries are all of theirs.
type layeredDir struct {
	fs.File
	fsys    layeredFS
	name    string
	entries []fs.DirEntry // nil until the first ReadDir
	read    bool
}

// ReadDir implements fs.ReadDirFile over the merged entries.
func (d *layeredDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		list, err := d.fsys.ReadDir(d.name)
		if err != nil {
			return nil, err
		}
		d.entries, d.read = list, true
	}
	if n <= 0 {
		list := d.entries
		d.entries = nil
		return list, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	list := d.entries[:n:n]
	d.entries = d.entries[n:]
	return list, nil
}

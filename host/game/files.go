package game

import (
	"bytes"
	"io/fs"
	"path"
	"slices"
	"time"
)

// overlayFS is a project folder with a bundle's files laid over it: what a
// reloaded end reads its scripts and prefabs from.
type overlayFS struct {
	base  fs.FS
	files map[string][]byte
}

// ReadFile implements fs.ReadFileFS.
func (o overlayFS) ReadFile(name string) ([]byte, error) {
	if b, ok := o.files[name]; ok {
		return slices.Clone(b), nil
	}
	return fs.ReadFile(o.base, name)
}

// Open implements fs.FS.
func (o overlayFS) Open(name string) (fs.File, error) {
	if b, ok := o.files[name]; ok {
		return &memFile{name: path.Base(name), r: bytes.NewReader(b), size: int64(len(b))}, nil
	}
	return o.base.Open(name)
}

// memFile is one overlaid file, open for reading.
type memFile struct {
	name string
	r    *bytes.Reader
	size int64
}

func (f *memFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *memFile) Close() error               { return nil }
func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{f}, nil }

type memInfo struct{ f *memFile }

func (i memInfo) Name() string       { return i.f.name }
func (i memInfo) Size() int64        { return i.f.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

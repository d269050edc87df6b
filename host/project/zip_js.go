//go:build js

package project

import (
	"fmt"
	"io"
	"io/fs"
)

// WriteZip writes p's files to w as WriteZipStored does: a browser build
// links no compressor (storedzip.go).
func WriteZip(w io.Writer, p *Project) error { return WriteZipStored(w, p) }

// LoadZip loads the project of an archive WriteZipStored wrote: the
// folder its comment names, with LoadFS. A browser build reads stored
// archives only (storedzip.go); errors name files by their paths in the
// archive.
func LoadZip(b []byte) (*Project, error) {
	fsys, comment, err := readStoredZip(b)
	if err != nil {
		return nil, fmt.Errorf("project: reading the project's archive: %w", err)
	}
	if comment == "" || !fs.ValidPath(comment) {
		return nil, fmt.Errorf("project: the project's archive does not name its folder (its comment is %q)", comment)
	}
	return LoadFS(fsys, comment)
}

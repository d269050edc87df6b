//go:build !js

package project

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"io/fs"
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
// A recording carries the archive: a project and the projects it
// extends are one file, read the way the server reads them. The browser
// client downloads the same files stored (WriteZipStored).
func WriteZip(w io.Writer, p *Project) error {
	zw := zip.NewWriter(w)
	comment, err := packZip(p, func(name string, data []byte) error {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	if err := zw.SetComment(comment); err != nil {
		return err
	}
	return zw.Close()
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

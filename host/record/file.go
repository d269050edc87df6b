package record

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"vkm/host/game"
)

// Ext is a recording file's extension.
const Ext = ".vkmrec"

// File is a recording being written to a file of its own.
type File struct {
	*Writer
	f    *os.File
	Path string
}

// Create starts the recording of the match g is about to play in a new
// file in dir (made if missing), named after the project and cfg.Started
// (UTC): arena-20260102-150405.vkmrec. Hand the File to the server
// (session.Server.Record) before its first tick, and Close it when the
// match ends.
func Create(dir string, g *game.Game, cfg Config) (*File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	base := safeName(g.Project().Name) + "-" + cfg.Started.UTC().Format("20060102-150405")
	var f *os.File
	var err error
	for i := 1; ; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		f, err = os.OpenFile(filepath.Join(dir, name+Ext), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil || !errors.Is(err, fs.ErrExist) || i == 100 {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	w, err := NewWriter(f, g, cfg)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &File{Writer: w, f: f, Path: f.Name()}, nil
}

// Close ends the recording (Writer.Close) and closes its file.
func (f *File) Close() error {
	err := f.Writer.Close()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// safeName is a project's name as a file name: letters, digits, '-' and
// '_' kept, anything else '_'.
func safeName(name string) string {
	s := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, name)
	if s == "" {
		return "match"
	}
	return s
}

//go:build !js

package browser

import (
	"bytes"
	"io/fs"
	"log/slog"

	"vkm/host/project"
)

// pngMagic starts every PNG file.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// projectIcon reads p's icon, or returns nil (the engine's icon) when p
// names none or its file is not a PNG any more, which log is told.
func projectIcon(p *project.Project, log *slog.Logger) []byte {
	if p == nil || p.Icon == "" {
		return nil
	}
	b, err := fs.ReadFile(p.FS, p.Icon)
	if err != nil || !bytes.HasPrefix(b, pngMagic) {
		log.Warn("the project's icon is not a PNG file; serving the engine's", "icon", p.Icon, "err", err)
		return nil
	}
	return b
}

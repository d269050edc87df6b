//go:build !js

package view

import (
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// assetTypes are the files of a project the page may fetch, by extension:
// images for sprites, sounds, and a project's own renderer's scripts.
// Anything else (Lua scripts, scenes) is not served here: the page draws,
// it does not run the game.
var assetTypes = map[string]string{
	".png": "image/png",
	".ogg": "audio/ogg",
	".wav": "audio/wav",
	".js":  "text/javascript; charset=utf-8", // a project's renderer and its libraries
}

// ServeAsset writes the project file name (a slash-separated path inside
// fsys) for the page's /asset/ URLs: a PNG, OGG, WAV or JavaScript file, read at each
// request so a dev server's page takes the file saved last. Any other
// name, or one that is not a valid path inside fsys, is not found.
func ServeAsset(w http.ResponseWriter, r *http.Request, fsys fs.FS, name string) {
	ctype, ok := assetTypes[strings.ToLower(path.Ext(name))]
	if !ok || fsys == nil || !fs.ValidPath(name) {
		http.NotFound(w, r)
		return
	}
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	w.Write(b)
}

package project

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"testing"

	"vkm/prediction"
)

// Project files are untrusted input: whatever one contains, the parsers
// return a value or a *ConfigError and never panic, and what they accept
// validates. (The store's fuzz targets load what they accept.)

// addSeeds adds the test project's and the example game's files matching
// glob, and each of srcs, to f's corpus.
func addSeeds(f *testing.F, glob string, srcs ...string) {
	for _, dir := range []string{"testdata/project", "../../projects/arena", "../../projects/coins"} {
		files, _ := filepath.Glob(filepath.Join(dir, glob))
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
	for _, s := range srcs {
		f.Add([]byte(s))
	}
}

// checkConfigError fails unless err is a *ConfigError for file whose line is
// inside data.
func checkConfigError(t *testing.T, err error, file string, data []byte) {
	t.Helper()
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is a %T, not a *ConfigError", err, err)
	}
	if ce.File != file || ce.Line < 0 || ce.Line > bytes.Count(data, []byte("\n"))+1 || ce.Reason == "" {
		t.Fatalf("bad error %#v", ce)
	}
}

func FuzzParseProject(f *testing.F) {
	addSeeds(f, "project.toml", minimalProject,
		minimalProject+"tickRate = 200\n",
		minimalProject+"reach = 24.0\n",
		minimalProject+"reach = -1e309\n",
		minimalProject+"[[axis]]\nname = \"run\"\nnegative = [\"KeyA\"]\n[[button]]\nname = \"run\"\n",
		"players = 4\nentryScene = \"../s.toml\"\n",
		minimalProject+"axis = [{ name = \"a\", mouse = \"x\" }, { name = \"b\" }]\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProject("project.toml", data)
		if err != nil {
			checkConfigError(t, err, "project.toml", data)
			return
		}
		if p.Players < 1 || p.Players > MaxPlayers || p.TickRate < 1 || p.TickRate > MaxTickRate ||
			p.Port < 1 || p.Port > 65535 || p.Reach < 0 || p.Reach > MaxReach || math.IsNaN(p.Reach) || len(p.Axes) > prediction.MaxAxes || len(p.Buttons) > prediction.MaxButtons ||
			!fs.ValidPath(p.EntryScene) || !fs.ValidPath(p.EntryScript) {
			t.Fatalf("accepted an invalid project: %+v", p)
		}
	})
}

func FuzzParseScene(f *testing.F) {
	addSeeds(f, "scenes/*.toml")
	for _, tt := range sceneErrorTests {
		f.Add([]byte(tt.src))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseScene("scene.toml", data)
		if err != nil {
			checkConfigError(t, err, "scene.toml", data)
			return
		}
		if err := sc.Validate(); err != nil {
			t.Fatalf("a parsed scene does not validate: %v", err)
		}
	})
}

func FuzzParsePrefab(f *testing.F) {
	addSeeds(f, "prefabs/*.toml",
		"[[entity]]\nuid = 1\n[[entity]]\nuid = 2\nparent = 1\n[[entity]]\nuid = 3\nparent = 2\n",
		"[[entity]]\nuid = 1\nparent = 2\n[[entity]]\nuid = 2\nparent = 1\n",
		"[[entity]]\nuid = 1\n[entity.body]\ntype = \"dynamic\"\n[[entity.body.shape]]\ncircle = 0.4\n[entity.controller]\nmode = \"topdown\"\nfriction = 30\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePrefab("prefab.toml", data)
		if err != nil {
			checkConfigError(t, err, "prefab.toml", data)
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("a parsed prefab does not validate: %v", err)
		}
	})
}

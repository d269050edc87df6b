package project

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// writeFiles writes each path → content under dir, making the folders.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLayeredFSIsOneFolder: a name is read from the first layer holding
// it, folders list every layer's entries, and the whole passes the
// standard library's file system checks.
func TestLayeredFSIsOneFolder(t *testing.T) {
	own, base := t.TempDir(), t.TempDir()
	writeFiles(t, own, map[string]string{
		"project.toml":        "own",
		"prefabs/player.toml": "own player",
		"scenes/crowd.toml":   "crowd",
		"shadow":              "a file hiding a folder",
	})
	writeFiles(t, base, map[string]string{
		"project.toml":        "base",
		"prefabs/player.toml": "base player",
		"prefabs/pickup.toml": "base pickup",
		"scripts/walker.lua":  "return {}",
		"shadow/hidden.lua":   "hidden",
	})
	l := layeredFS{layers: []fs.FS{os.DirFS(own), os.DirFS(base)}}
	for name, want := range map[string]string{
		"project.toml":        "own",
		"prefabs/player.toml": "own player",
		"prefabs/pickup.toml": "base pickup",
		"scripts/walker.lua":  "return {}",
		"shadow":              "a file hiding a folder",
	} {
		if b, err := fs.ReadFile(l, name); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", name, b, err, want)
		}
	}
	if _, err := fs.ReadFile(l, "shadow/hidden.lua"); err == nil {
		t.Error("read a file under a folder the first layer hides with a file")
	}
	if _, err := fs.ReadFile(l, "missing.lua"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	entries, err := fs.ReadDir(l, "prefabs")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"pickup.toml", "player.toml"}) {
		t.Errorf("prefabs lists %v", names)
	}
	if err := fstest.TestFS(l, "project.toml", "prefabs/player.toml", "prefabs/pickup.toml",
		"scenes/crowd.toml", "scripts/walker.lua", "shadow"); err != nil {
		t.Fatal(err)
	}
}

// extendsFixture writes a base project and a project extending it, in
// base/ and game/ of a temporary folder, and returns that folder.
func extendsFixture(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, filepath.Join(root, "base"), map[string]string{
		"project.toml": `name = "base"
players = 4
port = 9000
tickRate = 32
reach = 12.0
entryScene = "scenes/level.toml"
entryScript = "scripts/main.lua"
[[axis]]
name = "run"
[[button]]
name = "jump"
`,
		"scenes/level.toml":   "",
		"scripts/main.lua":    "-- base main\n",
		"scripts/walker.lua":  "-- base walker\n",
		"prefabs/player.toml": "# base player\n",
	})
	writeFiles(t, filepath.Join(root, "game"), map[string]string{
		"project.toml": `# builds on the base
extends = "../base"
players = 16
port = 9001
`,
		"prefabs/player.toml": "# game player\n",
	})
	return root
}

// TestLoadProjectExtends: a project that extends another takes every
// setting it leaves out from it (not the name), reads every file it does
// not hold from its folder, and names where each file really is.
func TestLoadProjectExtends(t *testing.T) {
	root := extendsFixture(t)
	dir := filepath.Join(root, "game")
	p, err := LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(root, "base")
	if !slices.Equal(p.Folders, []string{dir, base}) || p.Extends != "../base" {
		t.Errorf("Folders %v, Extends %q", p.Folders, p.Extends)
	}
	if p.Name != "game" || p.Players != 16 || p.Port != 9001 || p.TickRate != 32 || p.Reach != 12 {
		t.Errorf("settings: name %q, players %d, port %d, tickRate %d, reach %v", p.Name, p.Players, p.Port, p.TickRate, p.Reach)
	}
	if p.EntryScene != "scenes/level.toml" || p.EntryScript != "scripts/main.lua" {
		t.Errorf("entry %q, %q", p.EntryScene, p.EntryScript)
	}
	if len(p.Axes) != 1 || p.Axes[0].Name != "run" || len(p.Buttons) != 1 || p.Buttons[0].Name != "jump" {
		t.Errorf("actions %+v %+v", p.Axes, p.Buttons)
	}
	for name, want := range map[string]string{
		"prefabs/player.toml": "# game player\n",
		"scripts/walker.lua":  "-- base walker\n",
	} {
		if got := string(mustRead(t, p.FS, name)); got != want {
			t.Errorf("%s reads %q, want %q", name, got, want)
		}
	}
	if w := p.Where("scripts/walker.lua"); w != filepath.Join(base, "scripts", "walker.lua") {
		t.Errorf("Where(walker) = %s", w)
	}
	if w := p.Where("prefabs/player.toml"); w != filepath.Join(dir, "prefabs", "player.toml") {
		t.Errorf("Where(player) = %s", w)
	}

	// Listing an action replaces all of the base's.
	writeFiles(t, dir, map[string]string{"project.toml": "extends = \"../base\"\n[[button]]\nname = \"fire\"\n"})
	if p, err = LoadProject(dir); err != nil {
		t.Fatal(err)
	}
	if len(p.Axes) != 0 || len(p.Buttons) != 1 || p.Buttons[0].Name != "fire" || p.Players != 4 {
		t.Errorf("own actions: %+v %+v, players %d", p.Axes, p.Buttons, p.Players)
	}
}

// TestLoadProjectExtendsChains: a project may extend one that extends
// another; a chain that comes back to a project already in it is refused,
// naming every project on the way round.
func TestLoadProjectExtendsChains(t *testing.T) {
	root := extendsFixture(t)
	writeFiles(t, filepath.Join(root, "mod"), map[string]string{
		"project.toml":       "extends = \"../game\"\nname = \"mod\"\n",
		"scripts/walker.lua": "-- mod walker\n",
	})
	p, err := LoadProject(filepath.Join(root, "mod"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("folders: %v", p.Folders)
	if len(p.Folders) != 3 || p.Players != 16 || p.TickRate != 32 {
		t.Errorf("folders %v, players %d, tickRate %d", p.Folders, p.Players, p.TickRate)
	}
	for name, want := range map[string]string{
		"scripts/walker.lua":  "-- mod walker\n",
		"prefabs/player.toml": "# game player\n",
		"scripts/main.lua":    "-- base main\n",
	} {
		if got := string(mustRead(t, p.FS, name)); got != want {
			t.Errorf("%s reads %q, want %q", name, got, want)
		}
	}

	// base extends mod: mod → game → base → mod.
	baseFile := filepath.Join(root, "base", ProjectFile)
	src, err := os.ReadFile(baseFile)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, filepath.Join(root, "base"), map[string]string{ProjectFile: "extends = \"../mod\"\n" + string(src)})
	_, err = LoadProject(filepath.Join(root, "mod"))
	wantConfigError(t, err, baseFile, 1, "extends", "goes round in a circle",
		filepath.Join(root, "mod")+" extends "+filepath.Join(root, "game")+" extends "+filepath.Join(root, "base")+" extends "+filepath.Join(root, "mod"))
	t.Logf("a cycle: %v", err)
}

// TestLoadProjectExtendsErrors: what extends may not name is refused with
// project.toml, the line, the key and the reason.
func TestLoadProjectExtendsErrors(t *testing.T) {
	root := extendsFixture(t)
	dir := filepath.Join(root, "game")
	file := filepath.Join(dir, ProjectFile)
	writeFiles(t, root, map[string]string{"notes/readme.txt": "not a project", "a-file": ""})
	for _, tt := range []struct {
		extends string
		frags   []string
	}{
		{"../nowhere", []string{`"../nowhere": there is no folder ` + filepath.Join(root, "nowhere")}},
		{"../notes", []string{"is not a project folder: it holds no project.toml"}},
		{"../a-file", []string{"is a file"}},
		{".", []string{"this project's own folder"}},
		{"../game", []string{"goes round in a circle", dir + " extends " + dir}},
		{"/srv/arena", []string{"is absolute"}},
		{`..\base`, []string{"backslash"}},
		{"", []string{"is empty"}},
	} {
		writeFiles(t, dir, map[string]string{ProjectFile: "# a variant\nextends = \"" + strings.ReplaceAll(tt.extends, `\`, `\\`) + "\"\n"})
		_, err := LoadProject(dir)
		wantConfigError(t, err, file, 2, "extends", tt.frags...)
		if err != nil {
			t.Logf("extends = %q: %v", tt.extends, err)
		}
	}
	// An error in the project extended names that project's file.
	writeFiles(t, dir, map[string]string{ProjectFile: "extends = \"../base\"\n"})
	writeFiles(t, filepath.Join(root, "base"), map[string]string{ProjectFile: "players = 0\nentryScene = \"scenes/level.toml\"\nentryScript = \"scripts/main.lua\"\n"})
	_, err := LoadProject(dir)
	wantConfigError(t, err, filepath.Join(root, "base", ProjectFile), 1, "players", "below 1")
}

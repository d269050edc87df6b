package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTitleAndIcon(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"scenes/level.toml": "", "scripts/main.lua": "",
		"project.toml": "players = 2\nentryScene = \"scenes/level.toml\"\nentryScript = \"scripts/main.lua\"\n",
	} {
		file := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != p.Name || p.Icon != "" {
		t.Errorf("without title and icon: title %q (name %q), icon %q", p.Title, p.Name, p.Icon)
	}
	file := filepath.Join(dir, "project.toml")
	src, _ := os.ReadFile(file)
	withIcon := string(src) + "title = \"Coin Yard\"\nicon = \"art/./icon.png\"\n"
	if err := os.WriteFile(file, []byte(withIcon), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadProject(dir)
	wantConfigError(t, err, file, 5, "icon", "art/icon.png does not exist in "+dir)
	if err := os.MkdirAll(filepath.Join(dir, "art"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "art", "icon.png"), []byte("\x89PNG"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err = LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Coin Yard" || p.Icon != "art/icon.png" {
		t.Errorf("title %q, icon %q", p.Title, p.Icon)
	}
	for _, tc := range []struct{ src, key, frag string }{
		{"title = \" \"\n", "title", "is empty"},
		{"icon = \"icon.gif\"\n", "icon", "does not end in .png"},
		{"icon = \"../icon.png\"\n", "icon", "leaves the project folder"},
	} {
		_, err := ParseProject("project.toml", []byte(minimalProject+tc.src))
		wantConfigError(t, err, "project.toml", 4, tc.key, tc.frag)
	}
}

func TestParseCamera(t *testing.T) {
	p, err := ParseProject("project.toml", []byte(minimalProject))
	if err != nil {
		t.Fatal(err)
	}
	if p.Camera.Mode != "follow" {
		t.Errorf("default camera %+v; want follow", p.Camera)
	}
	p, err = ParseProject("project.toml", []byte(minimalProject+"[camera]\nmode = \"fit\"\nbox = [[-14, -9], [14, 9.5]]\nminWidth = 10\nmaxWidth = 60\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c := p.Camera; c.Mode != "fit" || c.Box[0].X != -14 || c.Box[1].Y != 9.5 || c.MinWidth != 10 || c.MaxWidth != 60 {
		t.Errorf("fit camera %+v", c)
	}
	p, err = ParseProject("project.toml", []byte(minimalProject+"[camera]\nmode = \"fixed\"\ncenter = [3, 4]\n"))
	if err != nil || p.Camera.Center.X != 3 || p.Camera.Center.Y != 4 {
		t.Errorf("fixed camera %+v, %v", p.Camera, err)
	}
	for _, tc := range []struct {
		src      string
		line     int
		key, msg string
	}{
		{"mode = \"orbit\"", 5, "camera.mode", `"orbit" is not a camera mode`},
		{"mode = \"fixed\"", 5, "camera.mode", "needs center"},
		{"center = [1, 2]", 5, "camera.center", "only a fixed camera"},
		{"mode = \"fit\"\nbox = [[1, 1]]", 6, "camera.box", "two corners"},
		{"mode = \"fit\"\nbox = [[1, 1], [0, 3]]", 6, "camera.box", "below and left"},
		{"box = [[0, 0], [1, 1]]", 5, "camera.box", "only a fit camera"},
		{"minWidth = 0.5", 5, "camera.minWidth", "not a width from 1 to 8192"},
		{"minWidth = 20\nmaxWidth = 10", 6, "camera.maxWidth", "below minWidth"},
		{"zoom = 2", 5, "camera.zoom", "unknown key"},
	} {
		_, err := ParseProject("project.toml", []byte(minimalProject+"[camera]\n"+tc.src+"\n"))
		wantConfigError(t, err, "project.toml", tc.line, tc.key, tc.msg)
	}
}

func TestParseLookFields(t *testing.T) {
	const head = "[[entity]]\nid = 1\n[entity.look]\n" // the look's keys start on line 4
	sc, err := ParseScene("scenes/test.toml", []byte(head+"label = \"{player} {Health.hp}\"\ncolorBy = \"Team.side\"\ncolors = [\"#e44\", \"#48f\"]\nvisibleBy = \"Life.alive\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	l := sc.Entities[0].Look
	if !l.Changes() || len(l.LabelFields.Refs()) != 2 || l.ColorBy != (Ref{Type: "Team", Field: "side"}) || len(l.Colors) != 2 || l.VisibleBy != (Ref{Type: "Life", Field: "alive"}) {
		t.Errorf("look %+v", l)
	}
	sc, err = ParseScene("scenes/test.toml", []byte(head+"label = \"{player} ★\"\n"))
	if err != nil || sc.Entities[0].Look.Changes() {
		t.Errorf("a label naming only the player changes: %+v, %v", sc.Entities[0].Look, err)
	}
	for _, tc := range []struct {
		src, key, frag string
	}{
		{"colorBy = \"Team.side\"", "entity.look.colorBy", "which this look does not list"},
		{"colors = [\"#e44\"]", "entity.look.colors", "which this look does not set"},
		{"colorBy = \"Team\"\ncolors = [\"#e44\"]", "entity.look.colorBy", "is not a component field"},
		{"colorBy = \"Team.side\"\ncolors = [\"red\"]", "entity.look.colors", `"red" is not a colour`},
		{"visibleBy = \"name\"", "entity.look.visibleBy", "is not a component field"},
		{"label = \"{Score\"", "entity.look.label", "is not closed"},
	} {
		_, err := ParseScene("scenes/test.toml", []byte(head+tc.src+"\n"))
		line := 4 + strings.Count(tc.src, "\n")*boolInt(tc.key == "entity.look.colors")
		wantConfigError(t, err, "scenes/test.toml", line, tc.key, tc.frag)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

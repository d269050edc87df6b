package project

import (
	"os"
	"path/filepath"
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

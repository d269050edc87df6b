package project

import (
	"errors"
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

func TestParseSprite(t *testing.T) {
	const head = "[[entity]]\nid = 1\n[entity.look.sprite]\n" // the sprite's keys start on line 4
	sc, err := ParseScene("scenes/test.toml", []byte(head+"image = \"art/./coin.png\"\nsize = [0.8, 0.8]\nframes = [4, 1]\nanimations = { spin = [0, 1, 2, 3], still = [0] }\nanimation = \"spin\"\nfps = 10\nstateBy = \"Coin.state\"\nstates = [\"still\", \"spin\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	sp := sc.Entities[0].Look.Sprite
	if sp == nil || sp.Image != "art/coin.png" || sp.Size.X != 0.8 || sp.Columns != 4 || sp.Rows != 1 || len(sp.Animations["spin"]) != 4 ||
		sp.Animation != "spin" || sp.FPS != 10 || sp.StateBy.Field != "state" || len(sp.States) != 2 || !sc.Entities[0].Look.Changes() {
		t.Errorf("sprite %+v", sp)
	}
	for _, tc := range []struct {
		src, key, frag string
	}{
		{"size = [1, 1]", "entity.look.sprite.image", "a sprite needs image"},
		{"image = \"a.gif\"", "entity.look.sprite.image", "does not end in .png"},
		{"image = \"../a.png\"", "entity.look.sprite.image", "leaves the project folder"},
		{"image = \"a.png\"\nframe = 2", "entity.look.sprite.frame", "frame 2 is not in the sheet's 1 frames"},
		{"image = \"a.png\"\nframes = [2.5, 1]", "entity.look.sprite.frames", "not a grid"},
		{"image = \"a.png\"\nanimations = { run = [0, 5] }", "entity.look.sprite.animations.run", "frame 5 is not in the sheet"},
		{"image = \"a.png\"\nanimation = \"run\"", "entity.look.sprite.animation", `"run" is not one of animations`},
		{"image = \"a.png\"\nstateBy = \"A.s\"", "entity.look.sprite.stateBy", "which this sprite does not list"},
		{"image = \"a.png\"\nfps = 0", "entity.look.sprite.fps", "not a rate"},
		{"image = \"a.png\"\nsheet = 1", "entity.look.sprite.sheet", "unknown key"},
	} {
		_, err := ParseScene("scenes/test.toml", []byte(head+tc.src+"\n"))
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Key != tc.key || !strings.Contains(ce.Reason, tc.frag) || ce.Line < 3 {
			t.Errorf("%q: error %v; want %s: ...%s", tc.src, err, tc.key, tc.frag)
		}
	}
}

func TestParseSounds(t *testing.T) {
	p, err := ParseProject("project.toml", []byte(minimalProject+"[[sound]]\nevent = \"pickup\"\nfile = \"sounds/./pickup.wav\"\n[[sound]]\nevent = \"shove\"\nfile = \"s.ogg\"\nvolume = 0.5\nrange = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sounds) != 2 || p.Sounds[0] != (Sound{Event: "pickup", File: "sounds/pickup.wav", Volume: 1, Range: DefaultSoundRange, Line: 4}) ||
		p.Sounds[1].Volume != 0.5 || p.Sounds[1].Range != 0 {
		t.Errorf("sounds %+v", p.Sounds)
	}
	for _, tc := range []struct {
		src      string
		line     int
		key, msg string
	}{
		{"file = \"a.wav\"", 4, "sound", "needs event"},
		{"event = \"a\"", 4, "sound.file", "needs file"},
		{"event = \"a\"\nfile = \"a.mp3\"", 6, "sound.file", "not an OGG or WAV file"},
		{"event = \"a\"\nfile = \"../a.wav\"", 6, "sound.file", "leaves the project folder"},
		{"event = \"a\"\nfile = \"a.wav\"\nvolume = 2", 7, "sound.volume", "not a volume from 0 to 1"},
		{"event = \"a\"\nfile = \"a.wav\"\nrange = -1", 7, "sound.range", "not a distance"},
		{"event = \"a\"\nfile = \"a.wav\"\n[[sound]]\nevent = \"a\"\nfile = \"b.wav\"", 8, "sound.event", `"a" already has a sound (at line 4)`},
		{"event = \"a\"\nfile = \"a.wav\"\nloop = true", 7, "sound.loop", "unknown key"},
	} {
		_, err := ParseProject("project.toml", []byte(minimalProject+"[[sound]]\n"+tc.src+"\n"))
		wantConfigError(t, err, "project.toml", tc.line, tc.key, tc.msg)
	}
}

func TestParseRenderer(t *testing.T) {
	p, err := ParseProject("project.toml", []byte(minimalProject+"renderer = \"web/./draw.js\"\n"))
	if err != nil || p.Renderer != "web/draw.js" {
		t.Errorf("renderer %q, %v", p.Renderer, err)
	}
	_, err = ParseProject("project.toml", []byte(minimalProject+"renderer = \"web/draw.ts\"\n"))
	wantConfigError(t, err, "project.toml", 4, "renderer", "does not end in .js")
}

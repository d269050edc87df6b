package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestCheckIsCleanOnEveryProject(t *testing.T) {
	files, _ := filepath.Glob("../../projects/*/project.toml")
	if len(files) == 0 {
		t.Fatal("no projects")
	}
	for _, f := range files {
		dir := filepath.Dir(f)
		code, stdout, stderr := runMain(t, "check", dir)
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, dir+": ok (") || strings.Count(stdout, "\n") != 1 {
			t.Errorf("check %s: exit %d, stdout %q, stderr %q; want 0 and one line saying ok", dir, code, stdout, stderr)
		}
	}
}

func TestCheckPrintsEveryMistakeAndExitsOne(t *testing.T) {
	dir := copyArena(t, func(name string, data []byte) []byte {
		switch name {
		case "prefabs/pickup.toml":
			return bytes.Replace(data, []byte(`behavior = "pickup"`), []byte(`behavior = "pikcup"`), 1)
		case "scenes/arena.toml":
			return bytes.Replace(data, []byte("\nname = "), []byte("\nnmae = "), 1)
		}
		return data
	})
	scene, err := os.ReadFile(filepath.Join(dir, "scenes", "arena.toml"))
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Count(string(scene[:bytes.Index(scene, []byte("nmae"))]), "\n") + 1
	code, stdout, stderr := runMain(t, "check", dir)
	want := filepath.Join(dir, "prefabs", "pickup.toml") + `:2: entity.behavior: unknown behavior "pikcup"; did you mean "pickup"? (vkmRegisterBehaviors registers pickup, spawner, walker)` + "\n" +
		filepath.Join(dir, "scenes", "arena.toml") + ":" + strconv.Itoa(line) + `: entity.nmae: unknown key (did you mean "name"?); the keys here are id, name, parent, transform, behavior, props, body, controller, components, look` + "\n"
	if code != 1 || !sameLines(stdout, want) {
		t.Errorf("exit %d, stdout:\n%s\nwant 1 and:\n%s", code, stdout, want)
	}
	if wantErr := "vkmd: " + dir + ": 2 errors (1 scene, 2 prefabs, 6 scripts)\n"; stderr != wantErr {
		t.Errorf("stderr %q, want %q", stderr, wantErr)
	}
}

// sameLines reports whether a and b hold the same lines in any order.
func sameLines(a, b string) bool {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(x) != len(y) {
		return false
	}
	for _, l := range x {
		if !strings.Contains("\n"+b, "\n"+l+"\n") && l != "" {
			return false
		}
	}
	return true
}

func TestAFolderNamedCheckIsStillServed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "check")
	if err := os.CopyFS(dir, os.DirFS("../../projects/arena")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Dir(dir))
	code, stdout, stderr := runMain(t, "./check", "--schema")
	if code != 0 || !strings.Contains(stdout, "fingerprint") {
		t.Errorf("vkmd ./check --schema: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, stdout, _ := runMain(t, "check", "check"); code != 0 || stdout != "check: ok (1 scene, 2 prefabs, 6 scripts)\n" {
		t.Errorf("vkmd check check: exit %d, stdout %q", code, stdout)
	}
	code, stdout, stderr = runMain(t, "check")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "vkmd ./check") {
		t.Errorf("vkmd check: exit %d, stdout %q, stderr %q; want 2 and the usage", code, stdout, stderr)
	}
}

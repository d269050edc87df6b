package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vkm/host"
	"vkm/host/project"
	"vkm/internal/cli"
)

// TestNewWritesAProjectThatChecksAndPlays writes a project with vkmd new,
// checks it as vkmd check does (clean, and the files counted), and plays
// it offline with a wandering bot for 256 ticks, four seconds of game
// time: no script error, the character ran about, and it dashed (the one
// behavior's event).
func TestNewWritesAProjectThatChecksAndPlays(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mygame")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"new", dir}, &out, &out); err != nil {
		t.Fatalf("vkmd new: %v\n%s", err, out.String())
	}
	t.Logf("vkmd new printed:\n%s", out.String())
	for _, f := range []string{"project.toml", "scenes/yard.toml", "prefabs/player.toml", "scripts/main.lua", "scripts/join.lua", "scripts/runner.lua"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("vkmd new did not write %s: %v", f, err)
		}
	}
	out.Reset()
	if err := runCheck([]string{dir}, &out); err != nil {
		t.Fatalf("vkmd check of the new project: %v\n%s", err, out.String())
	}
	if got := out.String(); !strings.Contains(got, "ok (1 scene, 1 prefab, 3 scripts)") {
		t.Errorf("vkmd check printed %q", got)
	}
	t.Logf("vkmd check printed: %s", strings.TrimSpace(out.String()))

	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "mygame" {
		t.Errorf("the project's name is %q, want the folder's, mygame", p.Name)
	}
	// Offline, a run of a duration plays exactly the ticks it bought,
	// however late the machine runs them: 4 s at 64 Hz is 256.
	const ticks = 256
	rep, err := host.PlayBots(context.Background(), host.BotsConfig{Kind: "wander", Seed: 1, Count: 1,
		Play: host.PlayConfig{Project: p, Duration: 4 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Clients[0]
	t.Logf("played offline: state %s, exit %s, %d ticks, %.1f m run, events %v, %d script errors", c.State, c.Exit, c.Ticks, c.DistanceM, c.Events, c.Errors)
	if c.State != "offline" || c.Exit != "ok" || c.Errors != 0 || c.Ticks < ticks {
		t.Errorf("played %+v, want offline, ok, no script error, at least %d ticks", c, ticks)
	}
	if c.DistanceM < 1 || c.Events["dash"] == 0 {
		t.Errorf("ran %.1f m with %d dash events: want its behavior to run it about and dash", c.DistanceM, c.Events["dash"])
	}
}

// TestNewRefusesWhatItCannotWrite: no name, a bad name and a folder
// already holding files are refused, and nothing is written over.
func TestNewRefusesWhatItCannotWrite(t *testing.T) {
	full := filepath.Join(t.TempDir(), "taken")
	if err := os.Mkdir(full, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		usage bool
		says  string
	}{
		{[]string{"new"}, true, "usage: vkmd new <name>"},
		{[]string{"new", "a", "b"}, true, "usage: vkmd new <name>"},
		{[]string{"new", filepath.Join(t.TempDir(), "my game")}, true, "must be a letter"},
		{[]string{"new", full}, false, "exists and is not empty"},
	} {
		var out bytes.Buffer
		err := run(context.Background(), tc.args, &out, &out)
		var u cli.UsageError
		if err == nil || errors.As(err, &u) != tc.usage || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("vkmd %s: %v (usage error %v), want one saying %q (usage error: %v)", strings.Join(tc.args, " "), err, errors.As(err, &u), tc.says, tc.usage)
		}
	}
	if b, err := os.ReadFile(filepath.Join(full, "keep.txt")); err != nil || string(b) != "mine" {
		t.Errorf("the folder refused was changed: %q %v", b, err)
	}
	if entries, _ := os.ReadDir(full); len(entries) != 1 {
		t.Errorf("the folder refused holds %d entries, want its one", len(entries))
	}
}

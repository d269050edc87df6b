//go:build browser && linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestBrowserWatchesAFullMatch fills a two-seat arena with two bots, then
// opens the page's watch link (?watch=1&follow=1): the server lets the
// spectator in though every seat is taken (it says so in its log), and the
// page draws the match with its camera on player 1's character, with no
// character of its own.
func TestBrowserWatchesAFullMatch(t *testing.T) {
	w := openWebProject(t, "arena", func(dir string) {
		f := filepath.Join(dir, "project.toml")
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.Replace(string(b), "players = 4", "players = 2", 1)
		if s == string(b) {
			t.Fatal("the arena's project.toml has no players = 4")
		}
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}, nil, func(w *webClient) string {
		bots := exec.CommandContext(w.ctx, filepath.Join(w.bin, "client"), w.project, "--connect", "127.0.0.1:"+w.port,
			"--headless", "--bots", "2", "--bot-seed", "7", "--duration", "90s")
		if err := bots.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { bots.Process.Kill(); bots.Wait() })
		for range 2 {
			waitLine(t, w.vkmd, regexp.MustCompile(`msg="player joined".* spectator=false`))
		}
		return "?name=watcher&watch=1&follow=1"
	})
	m := waitLine(t, w.vkmd, regexp.MustCompile(`msg="player joined" player=(\d+) name=watcher .*spectator=true`))
	t.Logf("the spectator is number %s on a full server", m[1])
	s := w.until("the page watching player 1", 3*time.Minute, func(s webPageState) bool {
		return s.Connected && s.Frames > 30 && s.Own != nil
	})
	// The camera's entity is player 1's character, which wanders: it
	// moves while the page watches.
	first := *s.Own
	moved := w.until("player 1 moving on the page", 20*time.Second, func(s webPageState) bool {
		return s.Own != nil && (s.Own.X != first.X || s.Own.Y != first.Y)
	})
	t.Logf("watching player 1 go from (%.2f, %.2f) to (%.2f, %.2f)", first.X, first.Y, moved.Own.X, moved.Own.Y)
	if st := w.stats(); st.Report.State != "playing" {
		t.Fatalf("the spectator's session is %q", st.Report.State)
	}
}

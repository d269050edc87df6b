//go:build browser && linux

package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hudItem is one item of the game's HUD as the page last drew it
// (window.vkmHUD.shown).
type hudItem struct {
	At    string   `json:"at"`
	K     string   `json:"k"`
	Text  string   `json:"text"`
	Lines []string `json:"lines"`
}

// TestBrowserShowsTheGameHUD: the coin game's project.toml defines its
// HUD; in a copy whose runners are given a coin a second by the server, the page in the tab shows the round's seconds from the
// scene entity, the player's own coins as the server counts them, and the
// runners' list with the player's line. The component dump is in the
// developer panel, not over the game. With VKM_BROWSER_SCREENSHOT set, the
// page's screenshot is written there (docs/hud.png is one).
func TestBrowserShowsTheGameHUD(t *testing.T) {
	w := openWebProject(t, "coins", func(dir string) {
		file := filepath.Join(dir, "scripts", "runner.lua")
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		const at = "  local c = self:command()\n"
		if !strings.Contains(string(src), at) {
			t.Fatalf("runner.lua no longer holds %q", at)
		}
		// Only the server runs the gift (is_mine is false there): the
		// client's own runner shows what the snapshots carry.
		gift := "  if not self:is_mine() then self:set(\"Score\", \"coins\", math.floor(vkm.tick() / 64) % 1000) end\n"
		if err := os.WriteFile(file, []byte(strings.Replace(string(src), at, gift+at, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}, nil, func(*webClient) string { return "?name=web" })
	w.until("the page shows the player", 3*time.Minute, func(s webPageState) bool {
		return s.Connected && s.Frames > 30 && s.Own != nil
	})
	shown := func() []hudItem {
		var items []hudItem
		v := w.cdp.eval(t, `JSON.stringify(window.vkmHUD ? vkmHUD.shown : null)`)
		if err := json.Unmarshal([]byte(v), &items); err != nil {
			t.Fatalf("HUD %q: %v", v, err)
		}
		return items
	}
	coinsRe := regexp.MustCompile(`^(\d+) coins$`)
	roundRe := regexp.MustCompile(`^round (\d+) · (\d+) s left$`)
	var items []hudItem
	deadline := time.Now().Add(20 * time.Second)
	for {
		items = shown()
		if len(items) == 3 {
			m := coinsRe.FindStringSubmatch(items[1].Text)
			r := roundRe.FindStringSubmatch(items[0].Text)
			if m != nil && r != nil && r[1] != "0" {
				n, _ := strconv.Atoi(m[1])
				if n >= 3 && slices.Contains(items[2].Lines, "web  "+m[1]) {
					break
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the HUD shows %+v; want the round, three coins or more, and web's line with them", items)
		}
		time.Sleep(50 * time.Millisecond) // polling another process
	}
	t.Logf("the HUD shows %+v", items)
	if items[0].At != "top" || items[1].At != "top-left" || items[2].At != "top-right" || items[2].Text != "runners" {
		t.Errorf("HUD places %+v", items)
	}
	dev := w.cdp.eval(t, `document.getElementById('dev').textContent`)
	if !strings.Contains(dev, "Score.coins") {
		t.Errorf("the developer panel lists %q; want the own entity's Score.coins", dev)
	}
	if out := os.Getenv("VKM_BROWSER_SCREENSHOT"); out != "" {
		var shot struct {
			Data string `json:"data"`
		}
		w.cdp.call(t, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
		b, err := base64.StdEncoding.DecodeString(shot.Data)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

//go:build browser && linux

package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestBrowserChat: two players on their pages; one types lines in its
// chat box, the arena's chat judge (scripts/talk.lua, which refuses
// "darn") serves them, and the other page's log shows the kept ones,
// named, the "/ready" vote rewritten, and never the refused one. The
// message of the day greets both.
func TestBrowserChat(t *testing.T) {
	chrome := findChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bin := buildPrograms(t)
	// The arena's chat judge (scripts/talk.lua) refuses "darn".
	project := filepath.Join("..", "..", "projects", "arena")
	port := freeUDPPort(t)
	vkmd := start(t, ctx, filepath.Join(bin, "vkmd"), project, "--port", port, "--motd", "Welcome to the arena.")
	waitLine(t, vkmd, regexp.MustCompile(`msg=serving`))
	type tab struct {
		cdp  *devtools
		name string
	}
	var tabs []tab
	for _, name := range []string{"ada", "bo"} {
		c := start(t, ctx, filepath.Join(bin, "client"), project, "--connect", "127.0.0.1:"+port, "--view", "127.0.0.1:0", "--name", name)
		m := waitLine(t, c, regexp.MustCompile(`view listening.* addr=(\S+)`))
		cdp := launchChromium(t, ctx, chrome)
		cdp.call(t, "Page.enable", nil)
		cdp.call(t, "Page.navigate", map[string]any{"url": "http://" + m[1] + "/"})
		tabs = append(tabs, tab{cdp, name})
	}
	type line struct {
		From int    `json:"from"`
		Name string `json:"name"`
		Text string `json:"text"`
	}
	chat := func(tb tab) []line {
		var ls []line
		v := tb.cdp.eval(t, `JSON.stringify(window.vkm && vkm.chat ? vkm.chat : [])`)
		if err := json.Unmarshal([]byte(v), &ls); err != nil {
			t.Fatalf("chat %q: %v", v, err)
		}
		return ls
	}
	until := func(tb tab, what string, ok func([]line) bool) []line {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			ls := chat(tb)
			if ok(ls) {
				return ls
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s's page: %s not within 20 s; its chat %+v", tb.name, what, ls)
			}
			time.Sleep(50 * time.Millisecond) // polling another process
		}
	}
	for _, tb := range tabs {
		until(tb, "the message of the day", func(ls []line) bool { return len(ls) >= 1 && ls[0].From == 0 && ls[0].Text == "Welcome to the arena." })
	}
	// ada types, as a player does: Enter focuses the box, the line, Enter sends.
	for _, text := range []string{"darn it", "/ready", "gg all"} {
		tabs[0].cdp.eval(t, `(() => { const b = document.getElementById('chat-input'); b.focus(); b.value = `+strconvQuote(text)+`;
			b.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true})); return 'ok'; })()`)
	}
	// The lines go in order on one channel and are judged in order, so
	// once "gg all" shows, a kept "darn it" would be showing before it.
	got := until(tabs[1], "ada's line", func(ls []line) bool { return len(ls) >= 3 && ls[len(ls)-1].Text == "gg all" })
	own := until(tabs[0], "ada's own line", func(ls []line) bool { return len(ls) >= 3 && ls[len(ls)-1].Text == "gg all" })
	t.Logf("bo's page shows %+v; ada's %+v", got, own)
	if len(got) != 3 || got[1].Name != "ada" || got[1].Text != "is ready (1 of 2)" || got[2].Name != "ada" || got[2].Text != "gg all" || len(own) != 3 {
		t.Fatal("want ada's vote and line on both pages, named, and the refused one on neither")
	}
}

// strconvQuote quotes s as a JavaScript string literal.
func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

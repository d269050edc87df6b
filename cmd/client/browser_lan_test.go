//go:build browser && linux

package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// The page's "Search LAN" button lists the games its server finds on
// its network and machine: at least the server itself, with its
// project and seats, and choosing one shows the command that joins it.
func TestBrowserSearchLAN(t *testing.T) {
	w := openWebClient(t, "?name=web")
	addr := "127.0.0.1:" + w.port
	deadline := time.Now().Add(time.Minute)
	for w.cdp.eval(t, `(b => b ? (b.click(), 'clicked') : '')(document.getElementById('lan-search'))`) != "clicked" {
		if time.Now().After(deadline) {
			t.Fatal("the page has no Search LAN button")
		}
		time.Sleep(100 * time.Millisecond) // polling another process
	}
	deadline = time.Now().Add(20 * time.Second)
	for {
		var games []struct {
			Addr, Project  string
			Players, Seats int
		}
		v := w.cdp.eval(t, `JSON.stringify(window.vkmWeb ? vkmWeb.lanGames : [])`)
		if err := json.Unmarshal([]byte(v), &games); err != nil {
			t.Fatalf("lanGames %q: %v", v, err)
		}
		found := false
		for _, g := range games {
			found = found || (g.Addr == addr && g.Project == "arena" && g.Seats == 4)
		}
		if found {
			t.Logf("the page's LAN list: %s", v)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page's LAN list never showed the server at %s: %s", addr, v)
		}
		time.Sleep(100 * time.Millisecond) // polling another process
	}
	w.cdp.eval(t, `document.querySelector('#lan-list button').click(), ''`)
	if got := w.cdp.eval(t, `document.querySelector('#lan-join code').textContent`); !strings.Contains(got, "--connect 127.0.0.1:") {
		t.Errorf("choosing a game shows %q", got)
	}
}

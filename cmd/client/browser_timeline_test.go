//go:build browser && linux

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestBrowserPlaysARecordingWithTheTimeline records a short arena match
// of two bots (vkmd --record), serves the recording with vkmd replay --web
// and opens the page in headless Chromium: from the page's own state, its
// play button plays, its pause button holds the tick, its slider jumps to
// a tick (and steps one on), and following a player puts the camera on
// that player's entity; the free camera lets go of it.
func TestBrowserPlaysARecordingWithTheTimeline(t *testing.T) {
	chrome := findChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bin := buildPrograms(t)
	project := filepath.Join("..", "..", "projects", "arena")
	dir := t.TempDir()
	port := freeUDPPort(t)
	vkmd := exec.CommandContext(ctx, filepath.Join(bin, "vkmd"), project, "--port", port, "--record", dir, "--duration", "7s")
	if err := vkmd.Start(); err != nil {
		t.Fatal(err)
	}
	bots := exec.CommandContext(ctx, filepath.Join(bin, "client"), project, "--connect", "127.0.0.1:"+port,
		"--headless", "--bots", "2", "--bot-seed", "5", "--duration", "5s")
	if out, err := bots.CombinedOutput(); err != nil {
		t.Fatalf("the bots: %v\n%s", err, out)
	}
	if err := vkmd.Wait(); err != nil {
		t.Fatalf("vkmd --record: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.vkmrec"))
	if len(files) != 1 {
		t.Fatalf("recordings in %s: %v", dir, files)
	}
	if st, err := os.Stat(files[0]); err == nil {
		t.Logf("recording %s, %d bytes", filepath.Base(files[0]), st.Size())
	}
	replay := start(t, ctx, filepath.Join(bin, "vkmd"), "replay", files[0], "--web", "127.0.0.1:0")
	m := waitLine(t, replay, regexp.MustCompile(`timeline page is at (\S+)`))
	url := m[1]
	t.Logf("page at %s", url)

	cdp := launchChromium(t, ctx, chrome)
	cdp.call(t, "Page.enable", nil)
	cdp.call(t, "Page.navigate", map[string]any{"url": url})

	type state struct {
		Ready   bool `json:"ready"`
		Draws   int  `json:"draws"`
		Tick    int  `json:"tick"`
		Sim     int  `json:"simulated"`
		Playing bool `json:"playing"`
		Follows int  `json:"follows"`
		Free    bool `json:"free"`
		Players []struct {
			Number int    `json:"number"`
			Entity string `json:"entity"`
		} `json:"players"`
		Camera struct {
			Mode string  `json:"mode"`
			X    float64 `json:"x"`
			Y    float64 `json:"y"`
		} `json:"camera"`
		Followed *struct {
			X, Y float64
		} `json:"followed"`
	}
	read := func() state {
		var s state
		v := cdp.eval(t, `JSON.stringify((() => {
			const tl = window.vkmTimeline;
			if (!tl || !tl.state) return {};
			const s = tl.state, p = s.players.find((q) => q.number === s.follows);
			const e = p && s.ents.find((q) => q.id === p.entity);
			return {ready: tl.ready, draws: tl.draws, tick: s.tick, simulated: s.simulated, playing: s.playing,
				follows: s.follows, free: s.free, players: s.players, camera: tl.camera, followed: e ? {X: e.x, Y: e.y} : null};
		})())`)
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			t.Fatalf("page state %q: %v", v, err)
		}
		return s
	}
	until := func(what string, within time.Duration, ok func(state) bool) state {
		t.Helper()
		deadline := time.Now().Add(within)
		for {
			s := read()
			if ok(s) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within %v; the page says %+v", what, within, s)
			}
			time.Sleep(50 * time.Millisecond) // polling another process
		}
	}
	click := func(id string) { cdp.eval(t, `document.getElementById('`+id+`').click(), ''`) }

	until("the page draws the recording's start", 20*time.Second, func(s state) bool { return s.Ready && s.Draws > 5 && s.Tick == 0 })
	click("play")
	played := until("play", 10*time.Second, func(s state) bool { return s.Playing && s.Tick > 64 })
	t.Logf("playing: tick %d", played.Tick)
	click("play") // the button pauses while playing
	paused := until("pause", 5*time.Second, func(s state) bool { return !s.Playing })
	time.Sleep(300 * time.Millisecond) // wall time passing while paused: the tick must hold
	if s := read(); s.Tick != paused.Tick {
		t.Fatalf("paused at tick %d, the page moved on to %d", paused.Tick, s.Tick)
	}

	// Jump with the slider to a tick, then one step on.
	const target = 150
	cdp.eval(t, `(() => { const s = document.getElementById('seek'); s.max = '100000'; s.value = '150'; s.dispatchEvent(new Event('change')); return ''; })()`)
	until("the jump", 10*time.Second, func(s state) bool { return s.Tick == target && !s.Playing })
	click("step")
	until("the step", 5*time.Second, func(s state) bool { return s.Tick == target+1 })

	// Follow the first player: the camera sits on their entity.
	s := read()
	if len(s.Players) == 0 {
		t.Fatal("the page lists no player to follow")
	}
	n := s.Players[0].Number
	cdp.eval(t, `(() => { const f = document.getElementById('follow'); f.value = '`+itoa(n)+`'; f.dispatchEvent(new Event('change')); return ''; })()`)
	f := until("following a player", 5*time.Second, func(s state) bool {
		return s.Follows == n && s.Camera.Mode == "follow" && s.Followed != nil && s.Draws > 0 &&
			abs(s.Camera.X-s.Followed.X) < 1e-3 && abs(s.Camera.Y-s.Followed.Y) < 1e-3
	})
	t.Logf("following player %d at (%.2f, %.2f)", n, f.Followed.X, f.Followed.Y)
	click("free")
	until("the free camera", 5*time.Second, func(s state) bool { return s.Free && s.Camera.Mode == "free" })
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

//go:build browser && linux

package main

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"vkm/transport"
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
// developer panel, not over the game. The page has the project's title,
// icon and controls, and shows the clients' script error (a dev server's);
// its camera holds the yard; its coins and flower bed are sprites. With VKM_BROWSER_SCREENSHOT set, the
// page's screenshot is written there (docs/hud.png is one).
func TestBrowserShowsTheGameHUD(t *testing.T) {
	screenshot := os.Getenv("VKM_BROWSER_SCREENSHOT") != ""
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
		// And a script error on the clients, which a dev server's page
		// shows: the round's on_update runs on the ends that draw. (Not
		// for the screenshot of docs/, which shows the game.)
		if screenshot {
			return
		}
		file = filepath.Join(dir, "scripts", "round.lua")
		src, err = os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		const fn = "function Round:on_update(dt)\n"
		boom := "  if not self.boomed then self.boomed = true; error(\"boom from the test\") end\n"
		if !strings.Contains(string(src), fn) {
			t.Fatalf("round.lua no longer holds %q", fn)
		}
		if err := os.WriteFile(file, []byte(strings.Replace(string(src), fn, fn+boom, 1)), 0o644); err != nil {
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

	// The page as the project names it: its title, its icon, its
	// controls with the keys as a player reads them.
	if title := w.cdp.eval(t, `document.title`); title != "Coin Yard" {
		t.Errorf("the page's title is %q; want project.toml's", title)
	}
	var icon struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
	}
	w.cdp.call(t, "Runtime.evaluate", map[string]any{"returnByValue": true, "awaitPromise": true,
		"expression": `fetch('/favicon.ico').then((r) => r.arrayBuffer()).then((b) => btoa(String.fromCharCode(...new Uint8Array(b))))`}, &icon)
	want, err := os.ReadFile(filepath.Join(w.project, "icon.png"))
	if err != nil {
		t.Fatal(err)
	}
	if icon.Result.Value != base64.StdEncoding.EncodeToString(want) {
		t.Errorf("/favicon.ico is not the project's icon.png (%d base64 characters)", len(icon.Result.Value))
	}
	var controls struct {
		Lines   []string `json:"lines"`
		Visible bool     `json:"visible"`
		Text    string   `json:"text"`
	}
	v := w.cdp.eval(t, `JSON.stringify({lines: vkmControls.lines, visible: vkmControls.visible, text: (document.getElementById('controls') || {}).textContent || ''})`)
	if err := json.Unmarshal([]byte(v), &controls); err != nil {
		t.Fatal(err)
	}
	t.Logf("controls: %q", controls.Lines)
	if !controls.Visible || !slices.Contains(controls.Lines, "move_x: A / \u2190  \u2212  \u00b7  +  D / \u2192") ||
		!slices.Contains(controls.Lines, "shove: Space / F / left mouse button") || !strings.Contains(controls.Text, "shove: Space / F") {
		t.Errorf("the controls overlay %+v; want the coin game's keys by their names, shown", controls)
	}
	if e := w.cdp.eval(t, `vkmHUD.error`); !screenshot && (!strings.Contains(e, "boom from the test") || !strings.Contains(e, "scripts/round.lua:")) {
		t.Errorf("the dev page's error banner shows %q; want round.lua's error", e)
	}
	// The runner's label follows its coins (runner.toml's look).
	label := w.cdp.eval(t, `(vkm.scene.get(vkm.lastFrame.own) || {}).label || ''`)
	if !regexp.MustCompile(`^web \d+$`).MatchString(label) {
		t.Errorf("the own runner's label is %q; want web and its coins", label)
	}
	// Sprites: the coins from their sheet, the flower bed (a decoration
	// with no body) from its image.
	var drawn map[string]int
	deadline = time.Now().Add(10 * time.Second)
	for {
		if err := json.Unmarshal([]byte(w.cdp.eval(t, `JSON.stringify(vkmSprites.drawn)`)), &drawn); err != nil {
			t.Fatal(err)
		}
		if drawn["art/coin.png"] > 0 && drawn["art/flowers.png"] == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sprites drawn %v (failed %s); want coins and the flower bed", drawn, w.cdp.eval(t, `JSON.stringify(vkmSprites.failed)`))
		}
		time.Sleep(50 * time.Millisecond) // polling another process
	}
	t.Logf("sprites drawn in a frame: %v", drawn)
	// The camera holds the yard's box ([camera] in project.toml) whole.
	var view struct{ X, Y, Width, Height float64 }
	if err := json.Unmarshal([]byte(w.cdp.eval(t, `JSON.stringify(vkmCamera.shown)`)), &view); err != nil {
		t.Fatal(err)
	}
	t.Logf("the camera shows %+v", view)
	if math.Abs(view.X) > 1e-9 || math.Abs(view.Y) > 1e-9 || view.Width < 25-1e-6 || view.Height < 17-1e-6 || (view.Width > 25.01 && view.Height > 17.01) {
		t.Errorf("the camera shows %+v; want the box [-12.5, -8.5]..[12.5, 8.5] fitted", view)
	}
	if out := os.Getenv("VKM_BROWSER_SCREENSHOT"); out != "" {
		w.cdp.eval(t, `vkmControls.onKey('Slash'), ''`) // the game, not its controls
		time.Sleep(200 * time.Millisecond)              // a frame drawn without them
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

// TestBrowserTabThatClosesSaysGoodbye: a tab that leaves the game's page
// says goodbye as it goes, so the server frees its seat at once rather
// than when the link times out. Over WebTransport, where the page's
// goodbye may not get out before the session goes with the page, the
// web listener sees the session end and the server ends the seat then.
func TestBrowserTabThatClosesSaysGoodbye(t *testing.T) {
	w := openWebClientWith(t, []string{"--webtransport"}, func(*webClient) string { return "?name=web" })
	s := w.until("the page shows the player", 3*time.Minute, func(s webPageState) bool {
		return s.Connected && s.Frames > 30 && s.Own != nil
	})
	if s.Transport != "webtransport" {
		t.Fatalf("the page plays over %q, not WebTransport: %s", s.Transport, s.WTFailure)
	}
	t0 := time.Now()
	w.cdp.call(t, "Page.navigate", map[string]any{"url": "about:blank"})
	m := waitLine(t, w.vkmd, regexp.MustCompile(`msg="player left".*reason=(\S+)`))
	took := time.Since(t0)
	t.Logf("the server heard the player leave (%s) %v after the tab left", m[1], took.Round(time.Millisecond))
	// Heard before a silent link would have timed out, so not by the
	// timeout, however late a busy machine runs the page and the server.
	if strings.Contains(m[1], "timeout") || took >= transport.DefaultTimeout {
		t.Fatalf("the player left by %s after %v; want a goodbye, within the link's timeout of %v", m[1], took, transport.DefaultTimeout)
	}
}

// TestBrowserPlaysEachSoundOnce: the coin game maps its shove event to a
// sound. Over a link of 60 ms each way the client predicts its shoves and
// replays ticks when the server corrects it; each shove is one event and
// one sound started, never another on a replay.
func TestBrowserPlaysEachSoundOnce(t *testing.T) {
	w := openWebProject(t, "coins", nil, nil, func(*webClient) string { return "?name=web" })
	w.until("the page shows the player", 3*time.Minute, func(s webPageState) bool {
		return s.Connected && s.Frames > 30 && s.Own != nil
	})
	w.cdp.eval(t, `vkmWeb.fromPage(JSON.stringify({t: "link", latency_ms: 60, jitter_ms: 10, loss_pct: 0})), ""`)
	time.Sleep(time.Second) // the link settles; polling another process
	const shoves = 3
	for range shoves {
		w.cdp.key(t, "keyDown", "KeyD", "d", 68) // moving, so that the server corrects now and then
		w.cdp.key(t, "keyDown", "Space", " ", 32)
		time.Sleep(150 * time.Millisecond) // holding keys for the page
		w.cdp.key(t, "keyUp", "Space", " ", 32)
		time.Sleep(1100 * time.Millisecond) // past the shove's cooldown
		w.cdp.key(t, "keyUp", "KeyD", "d", 68)
	}
	time.Sleep(500 * time.Millisecond) // the last shove's frames; polling another process
	var got struct {
		Started  map[string]int `json:"started"`
		Received map[string]int `json:"received"`
		Failed   []string       `json:"failed"`
		Last     map[string]any `json:"last"`
	}
	v := w.cdp.eval(t, `JSON.stringify({started: vkmSound.started, received: vkm.fx.received, failed: vkmSound.failed, last: vkmSound.last})`)
	if err := json.Unmarshal([]byte(v), &got); err != nil {
		t.Fatal(err)
	}
	st := w.stats()
	t.Logf("sounds %s; replayed %d ticks, %d corrections", v, st.Report.ReplayedTicks, st.Report.Corrections)
	if len(got.Failed) > 0 {
		t.Fatalf("sound files failed to load: %v", got.Failed)
	}
	if got.Received["shove"] != shoves || got.Started["shove"] != shoves {
		t.Fatalf("%d shoves pressed: %d shove events, %d shove sounds; want %d of each", shoves, got.Received["shove"], got.Started["shove"], shoves)
	}
	if st.Report.ReplayedTicks == 0 {
		t.Logf("no tick was replayed in this run: the once-per-event count held without a replay to test it")
	}
}

// rendererScript is a project's own renderer: it draws each entity as a
// dot on the page's canvas and keeps what it was handed for the test.
const rendererScript = `
window.drawnBy = { frames: 0, entities: 0, own: 0, hud: 0 };
vkm.useRenderer({
  hud: true,
  draw(view) {
    const g = view.canvas.getContext('2d');
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.fillStyle = '#203020';
    g.fillRect(0, 0, view.canvas.width, view.canvas.height);
    for (const e of view.entities) {
      const x = view.canvas.width / 2 + (e.x - view.camera.x) * view.camera.ppm;
      const y = view.canvas.height / 2 - (e.y - view.camera.y) * view.camera.ppm;
      g.fillStyle = e.id === view.own ? '#ff0' : '#fff';
      g.fillRect(x - 3, y - 3, 6, 6);
    }
    drawnBy.frames++;
    drawnBy.entities = view.entities.length;
    drawnBy.own = view.own;
    drawnBy.hud = view.hud.length;
  },
});
`

// TestBrowserDrawsWithTheProjectsRenderer: a project that names a renderer
// script draws the game with it: the page loads it from the project, hands
// it each frame's entities, the own one among them, and the HUD (the
// page's own drawing stepping aside is pagecheck.js's to show).
func TestBrowserDrawsWithTheProjectsRenderer(t *testing.T) {
	w := openWebProject(t, "coins", func(dir string) {
		if err := os.MkdirAll(filepath.Join(dir, "web"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "web", "draw.js"), []byte(rendererScript), 0o644); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "project.toml")
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, append([]byte("renderer = \"web/draw.js\"\n"), src...), 0o644); err != nil {
			t.Fatal(err)
		}
	}, nil, func(*webClient) string { return "?name=web" })
	w.until("the page shows the player", 3*time.Minute, func(s webPageState) bool {
		return s.Connected && s.Frames > 30 && s.Own != nil
	})
	var got struct{ Frames, Entities, Own, HUD int }
	deadline := time.Now().Add(10 * time.Second)
	for {
		v := w.cdp.eval(t, `JSON.stringify(window.drawnBy || {})`)
		if err := json.Unmarshal([]byte(v), &got); err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		if got.Frames > 10 && got.Entities > 5 && got.Own != 0 && got.HUD == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the project's renderer drew %+v; want frames with the yard's entities, the own one and the HUD's 3 items", got)
		}
		time.Sleep(50 * time.Millisecond) // polling another process
	}
	t.Logf("the project's renderer drew %+v", got)
}

// TestBrowserDrawsWithPixiJS: projects/pixi is the coin game drawn by a
// renderer of its own with PixiJS, vendored into the project. In the
// tab, Pixi starts, and each frame its stage holds one container for each
// entity the page hands the renderer, the coins drawn from their sprite
// sheet and the own runner with its label; the page's HUD is drawn over
// Pixi's picture. The page's code sends a project message and hears the
// server's answer; the dev page shows a reload the server refused. (Over
// the WebSocket: what is tested is the page, not the transport.) With VKM_BROWSER_SCREENSHOT_PIXI set, the page's
// screenshot is written there (docs/pixi.png is one).
func TestBrowserDrawsWithPixiJS(t *testing.T) {
	w := openWebProject(t, "pixi", func(dir string) {
		// The project extends ../coins: the coin game goes beside it,
		// with a message the page sends and one the server tells back.
		coins := filepath.Join(filepath.Dir(dir), "coins")
		if err := os.CopyFS(coins, os.DirFS(filepath.Join("..", "..", "projects", "coins"))); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(coins, "scripts", "main.lua")
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		const at = "  net.on_message(\"boost\", boost)\n"
		ping := at + `  net.message("ping", { {"n", net.int(0, 1000)} })
  net.message("pong", { {"n", net.int(0, 1000)}, {"ok", net.bool} })
  net.on_message("ping", function(player, m) net.tell(player, "pong", { n = m.n + 1, ok = true }) end)
`
		if !strings.Contains(string(src), at) {
			t.Fatalf("main.lua no longer holds %q", at)
		}
		if err := os.WriteFile(file, []byte(strings.Replace(string(src), at, ping, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}, nil, func(*webClient) string { return "?name=web&net=ws" })
	w.until("the page shows the player", 3*time.Minute, func(s webPageState) bool {
		return s.Connected && s.Frames > 30 && s.Own != nil
	})
	var got struct {
		Frames, Entities, Children, Sprites, Labels int
		Renderer, Failed                            string
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		v := w.cdp.eval(t, `JSON.stringify(window.pixiYard || {})`)
		if err := json.Unmarshal([]byte(v), &got); err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		if got.Failed != "" {
			t.Fatalf("PixiJS did not start: %s", got.Failed)
		}
		if got.Frames > 10 && got.Entities > 5 && got.Children == got.Entities && got.Sprites > 0 && got.Labels > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Pixi drew %+v; want the yard's entities, one child of the stage each, the coins' sprites and the runner's label", got)
		}
		time.Sleep(50 * time.Millisecond) // polling another process
	}
	t.Logf("Pixi (%s) drew %+v", got.Renderer, got)
	// What the page handed the renderer is what Pixi's stage holds: the
	// entities of the frame drawn last.
	n, err := strconv.Atoi(w.cdp.eval(t, `String(vkm.lastFrame.e.length)`))
	if err != nil {
		t.Fatal(err)
	}
	if n < got.Entities-2 || n > got.Entities+2 {
		t.Errorf("the frame holds %d entities, Pixi drew %d", n, got.Entities)
	}
	if title := w.cdp.eval(t, `document.title`); title != "Coin Yard (PixiJS)" {
		t.Errorf("the page's title is %q; want project.toml's", title)
	}
	if items := w.cdp.eval(t, `String(vkmHUD.shown.length)`); items != "3" {
		t.Errorf("the page's HUD over Pixi shows %s items; want the coin game's 3", items)
	}

	// The page's code speaks the project's messages: a ping sent with
	// vkm.send reaches the server's handler, whose net.tell comes back to
	// vkm.onMessage once. A burst of 100 is bounded: the client takes at
	// most 64 of a frame's, and the server its own burst and rate.
	w.cdp.eval(t, `window.pongs = []; vkm.onMessage((name, f) => pongs.push([name, f.n, f.ok])); String(vkm.send('ping', { n: 41 }))`)
	var pongs [][]any
	deadline = time.Now().Add(10 * time.Second)
	for {
		if err := json.Unmarshal([]byte(w.cdp.eval(t, `JSON.stringify(pongs)`)), &pongs); err != nil {
			t.Fatal(err)
		}
		if len(pongs) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no pong came back to the page's vkm.onMessage within 10 s of its vkm.send")
		}
		time.Sleep(50 * time.Millisecond) // polling another process
	}
	time.Sleep(300 * time.Millisecond) // any second pong, which must not come; polling another process
	if err := json.Unmarshal([]byte(w.cdp.eval(t, `JSON.stringify(pongs)`)), &pongs); err != nil {
		t.Fatal(err)
	}
	t.Logf("the page heard %v", pongs)
	if len(pongs) != 1 || pongs[0][0] != "pong" || pongs[0][1] != 42.0 || pongs[0][2] != true {
		t.Fatalf("the page heard %v; want one [pong 42 true]", pongs)
	}
	w.cdp.eval(t, `pongs = []; for (let i = 0; i < 100; i++) vkm.send('ping', { n: i }); vkm.send('no_such_message', {}); ''`)
	deadline = time.Now().Add(10 * time.Second)
	for n := -1; ; {
		if err := json.Unmarshal([]byte(w.cdp.eval(t, `JSON.stringify(pongs)`)), &pongs); err != nil {
			t.Fatal(err)
		}
		if len(pongs) > 0 && len(pongs) == n {
			break // no more for a while
		}
		n = len(pongs)
		if time.Now().After(deadline) {
			t.Fatalf("the burst's pongs did not settle: %d", len(pongs))
		}
		time.Sleep(time.Second) // polling another process
	}
	t.Logf("a burst of 100 pings from the page: %d pongs", len(pongs))
	if len(pongs) >= 100 {
		t.Errorf("a burst of 100 pings from the page: %d pongs; want fewer, the rest dropped by the bounds", len(pongs))
	}
	// A save the dev server refuses (a syntax error) is told to the dev
	// page, with the file and line, over the game; a save that loads
	// takes the banner away.
	coin := filepath.Join(filepath.Dir(w.project), "coins", "scripts", "coin.lua")
	good, err := os.ReadFile(coin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(coin, append([]byte("local VALUE = = 1\n"), good...), 0o644); err != nil {
		t.Fatal(err)
	}
	notice := ""
	deadline = time.Now().Add(15 * time.Second)
	for !strings.Contains(notice, "scripts/coin.lua:1") {
		if time.Now().After(deadline) {
			t.Fatalf("the dev page's notice is %q; want the refused reload naming scripts/coin.lua:1", notice)
		}
		time.Sleep(50 * time.Millisecond) // polling another process
		notice = w.cdp.eval(t, `vkmHUD.notice`)
	}
	t.Logf("the dev page shows: %s", notice)
	if err := os.WriteFile(coin, append([]byte("-- saved again\n"), good...), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(15 * time.Second)
	for notice != "" {
		if time.Now().After(deadline) {
			t.Fatalf("the dev page's notice is still %q after a save that loads", notice)
		}
		time.Sleep(50 * time.Millisecond) // polling another process
		notice = w.cdp.eval(t, `vkmHUD.notice`)
	}
	if out := os.Getenv("VKM_BROWSER_SCREENSHOT_PIXI"); out != "" {
		w.cdp.eval(t, `vkmControls.onKey('Slash'), ''`) // the game, not its controls
		time.Sleep(1500 * time.Millisecond)             // frames drawn without them, the runner moved in
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

//go:build browser && linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"vkm/host"
)

// TestBrowserClientInTheTab is the browser client end to end: vkmd serves
// a copy of the arena with --web and --dev (building the client for
// js/wasm as it starts), headless Chromium opens the one address, and the
// client runs in the tab over WebTransport (HTTP/3 datagrams, the
// server's certificate taken by its hash, no browser flags). Standing on its spawn it is never
// corrected; the page's keys make it run and jump; a native bot client in
// the same match sees it move; and a script saved in the project reaches
// it: its walker then runs at half speed. The developer's inspector shows
// what the dev server says of the player's character.
func TestBrowserClientInTheTab(t *testing.T) {
	w := openWebClientWith(t, []string{"--webtransport"}, func(*webClient) string { return "?name=web" })
	cdp, read, until, stats := w.cdp, w.read, w.until, w.stats
	bin, project, port, ctx := w.bin, w.project, w.port, w.ctx

	// vkmd builds the client as it starts; the page waits for it, long
	// on a cold build cache.
	first := until("the page shows the player", 3*time.Minute, func(s webPageState) bool {
		return s.Connected && s.Frames > 30 && s.Own != nil
	})
	t.Logf("the client in the tab plays over %s (panel: %q)", first.Transport, first.Panel)
	// The client's download, compressed: Brotli where the browser offers
	// br (Chromium does to loopback), else gzip.
	var enc, dec int
	sizes := cdp.eval(t, `(() => { const e = performance.getEntriesByType("resource").find(e => e.name.endsWith("/vkm/client.wasm")); return e ? e.encodedBodySize + "/" + e.decodedBodySize : "none" })()`)
	if fmt.Sscanf(sizes, "%d/%d", &enc, &dec); enc == 0 || enc*4 > dec {
		t.Fatalf("the client's download, compressed/raw: %s bytes", sizes)
	}
	t.Logf("the client's download: %d bytes compressed, %d raw", enc, dec)
	if first.Transport != "webtransport" {
		t.Fatalf("the client went over %q, not WebTransport: %s", first.Transport, first.WTFailure)
	}
	if first.Panel != "over webtransport" {
		t.Fatalf("the network panel says %q", first.Panel)
	}
	last := first
	rest := until("the player landing", 10*time.Second, func(s webPageState) bool {
		landed := s.Frames >= last.Frames+6 && math.Abs(s.Own.Y-last.Own.Y) < 0.001
		if s.Frames >= last.Frames+6 {
			last = s
		}
		return landed
	})
	// Standing on loopback, the server always agrees with the prediction.
	before := stats()
	standUntil := time.Now().Add(2 * time.Second)
	until("two seconds standing", 5*time.Second, func(s webPageState) bool { return time.Now().After(standUntil) })
	after := stats()
	t.Logf("standing: corrections %d → %d, rtt %.1f ms", before.Report.Corrections, after.Report.Corrections, after.Report.RTTms)
	if after.Report.State != "playing" || after.Report.Corrections != before.Report.Corrections || after.Report.Errors != 0 {
		t.Fatalf("standing: %+v then %+v", before.Report, after.Report)
	}

	// A native bot joins the same match and watches.
	report := filepath.Join(t.TempDir(), "bot.json")
	bot := exec.CommandContext(ctx, filepath.Join(bin, "client"), project, "--connect", "127.0.0.1:"+port,
		"--headless", "--bots", "1", "--bot-seed", "5", "--duration", "8s", "--report", report)
	botDone := make(chan error, 1)
	if err := bot.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { botDone <- bot.Wait() }()

	run := func(what string, press func(), hold time.Duration) {
		press()
		end := time.Now().Add(hold)
		until(what, hold+time.Second, func(webPageState) bool { return time.Now().After(end) })
	}
	speed := func(what string) float64 {
		a := read()
		t0 := time.Now()
		run(what, func() { cdp.key(t, "keyDown", "KeyD", "d", 68) }, 600*time.Millisecond)
		b := read()
		cdp.key(t, "keyUp", "KeyD", "d", 68)
		v := (b.Own.X - a.Own.X) / time.Since(t0).Seconds()
		time.Sleep(400 * time.Millisecond) // let it stop; polling another process
		cdp.key(t, "keyDown", "KeyA", "a", 65)
		time.Sleep(600 * time.Millisecond) // back where it was; polling another process
		cdp.key(t, "keyUp", "KeyA", "a", 65)
		return v
	}
	time.Sleep(time.Second) // the bot's join; polling another process
	cdp.key(t, "keyDown", "KeyD", "d", 68)
	moved := until("running right", 5*time.Second, func(s webPageState) bool { return s.Own.X > rest.Own.X+1 })
	cdp.key(t, "keyDown", "Space", " ", 32)
	jumped := until("jumping", 5*time.Second, func(s webPageState) bool { return s.Own.Y > rest.Own.Y+0.5 })
	cdp.key(t, "keyUp", "Space", " ", 32)
	cdp.key(t, "keyUp", "KeyD", "d", 68)
	t.Logf("ran right to x %.2f, jumped to y %.2f", moved.Own.X, jumped.Own.Y)
	cdp.key(t, "keyDown", "KeyA", "a", 65)
	until("running left", 5*time.Second, func(s webPageState) bool { return s.Own.X < moved.Own.X-1 })
	cdp.key(t, "keyUp", "KeyA", "a", 65)

	select {
	case err := <-botDone:
		if err != nil {
			t.Fatalf("the bot client: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the bot client did not end")
	}
	var rep struct {
		Clients []struct {
			State  string             `json:"state"`
			Others map[string]float64 `json:"others_distance_m"`
		} `json:"clients"`
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Clients) != 1 || rep.Clients[0].Others["web"] < 2 {
		t.Fatalf("the bot saw the browser's player move %v m; report %s", rep.Clients[0].Others, b)
	}
	t.Logf("the bot saw the browser's player travel %.2f m", rep.Clients[0].Others["web"])

	// A script saved on the dev server reaches the client in the tab:
	// the walker at half speed.
	v1 := speed("running before the reload")
	walker := filepath.Join(project, "scripts", "walker.lua")
	src, err := os.ReadFile(walker)
	if err != nil {
		t.Fatal(err)
	}
	slow := strings.Replace(string(src), "self:move(run)", "self:move(run * 0.5)", 1)
	if slow == string(src) {
		t.Fatal("the arena's walker no longer moves with self:move(run)")
	}
	if err := os.WriteFile(walker, []byte(slow), 0o644); err != nil {
		t.Fatal(err)
	}
	reloaded := until("the reload reaching the page", 15*time.Second, func(s webPageState) bool {
		return strings.Contains(s.Dev, "scripts reloaded at tick")
	})
	t.Logf("after the save the page shows %s", reloaded.Dev)
	v2 := speed("running after the reload")
	t.Logf("running speed %.2f m/s before the reload, %.2f m/s after", v1, v2)
	if !(v1 > 1 && v2 < 0.75*v1) {
		t.Fatalf("the walker ran at %.2f m/s before the save and %.2f m/s after; want about half", v1, v2)
	}

	// The developer's inspector, on a dev server: the player's own
	// character, with what the server says of it (kind 14).
	cdp.eval(t, `vkm.inspect(vkm.lastFrame.own), ""`)
	var lines map[string]string
	deadline := time.Now().Add(10 * time.Second)
	for {
		v := cdp.eval(t, `JSON.stringify(vkm.inspected ? Object.fromEntries(vkm.inspected.lines) : {})`)
		if err := json.Unmarshal([]byte(v), &lines); err != nil {
			t.Fatalf("inspector %q: %v", v, err)
		}
		if strings.HasSuffix(lines["bytes a second"], " in this client's snapshots") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the inspector shows no server view within 10 s: %q", lines)
		}
		time.Sleep(50 * time.Millisecond) // polling another process
	}
	t.Logf("the inspector: simulated by %q, priority %q, bytes a second %q, last written %q",
		lines["simulated by"], lines["priority"], lines["bytes a second"], lines["last written"])
	if lines["simulated by"] != "this client (its own character)" || strings.HasPrefix(lines["bytes a second"], "0 ") || !strings.HasPrefix(lines["last written"], "server tick ") {
		t.Fatalf("the inspector of the own character: %q", lines)
	}

	st := stats()
	t.Logf("the client in the tab: %+v, perf %v", st.Report, st.Perf)
	if st.Report.State != "playing" || st.Report.Errors != 0 {
		t.Fatalf("the client in the tab ends %+v", st.Report)
	}
}

// TestBrowserClientOverWebSocket: the page asked for the WebSocket
// fall-back (?net=ws, the path a browser takes when WebRTC does not
// connect) plays the same, and says so.
func TestBrowserClientOverWebSocket(t *testing.T) {
	w := openWebClient(t, "?name=ws&net=ws")
	s := w.until("the page shows the player", 3*time.Minute, func(s webPageState) bool {
		return s.Connected && s.Frames > 30 && s.Own != nil
	})
	if s.Transport != "websocket" || s.Panel != "over websocket" {
		t.Fatalf("asked for the WebSocket, the page plays over %q and its panel says %q", s.Transport, s.Panel)
	}
	end := time.Now().Add(3 * time.Second)
	w.until("three seconds", 5*time.Second, func(webPageState) bool { return time.Now().After(end) })
	st := w.stats()
	in := w.cdp.eval(t, `String(vkmWeb.datagramsIn)`)
	t.Logf("over the WebSocket: %+v, %s datagrams in", st.Report, in)
	if st.Report.State != "playing" || st.Report.Errors != 0 || in == "0" {
		t.Fatalf("over the WebSocket: %+v", st.Report)
	}
}

// TestBrowserClientWithAToken: a server with a key admits the page's
// client with the connect token in the address's fragment (the text form
// `vkmd token` writes, standard base64 with its "+" and "/"), and the
// server seats it as the token's client; the page asks for WebRTC
// (?net=rtc, the path a browser without WebTransport takes), which it
// plays over.
func TestBrowserClientWithAToken(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "game.key")
	key, err := host.NewKeyText()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	var tok string
	w := openWebClientWith(t, []string{"--key", keyFile}, func(w *webClient) string {
		out, err := exec.Command(filepath.Join(w.bin, "vkmd"), "token", w.project, "--key", keyFile,
			"--server", "127.0.0.1:"+w.port, "--client-id", "7", "--name", "tok").Output()
		if err != nil {
			t.Fatalf("vkmd token: %v", err)
		}
		tok = strings.TrimSpace(string(out))
		return "?name=ignored&net=rtc#token=" + tok
	})
	t.Logf("token %s", tok)
	s := w.until("the page shows the player", 3*time.Minute, func(s webPageState) bool {
		return s.Connected && s.Frames > 30 && s.Own != nil
	})
	st := w.stats()
	if st.Report.State != "playing" || s.Transport != "webrtc" {
		t.Fatalf("with a token the page's client is %+v over %q", st.Report, s.Transport)
	}
	t.Logf("seated with the token over %s: %+v", s.Transport, st.Report)
}

// webPageState is what the tests read of the page.
type webPageState struct {
	Connected  bool   `json:"connected"`
	Frames     int    `json:"frames"`
	Transport  string `json:"transport"`
	Panel      string `json:"panel"`
	Status     string `json:"status"`
	RTCFailure string `json:"rtcFailure"`
	WTFailure  string `json:"wtFailure"`
	Own        *struct{ X, Y float64 }
	Dev        string `json:"dev"`
}

// webClientStats is the client's figures as vkmWeb.stats gives them.
type webClientStats struct {
	Report struct {
		State         string  `json:"state"`
		Corrections   uint64  `json:"corrections"`
		ReplayedTicks uint64  `json:"replayed_ticks"`
		RTTms         float64 `json:"rtt_ms"`
		Errors        int     `json:"errors"`
	} `json:"report"`
	Perf map[string]float64 `json:"perf"`
}

// webClient is a page of vkmd --web open in headless Chromium.
type webClient struct {
	ctx                context.Context
	bin, project, port string
	vkmd               *proc
	cdp                *devtools
	read               func() webPageState
	until              func(what string, within time.Duration, ok func(webPageState) bool) webPageState
	stats              func() webClientStats
}

// openWebClient builds vkmd and client, serves a copy of the arena with
// --web and --dev (vkmd building the browser client as it starts), and
// opens the page with query in headless Chromium.
func openWebClient(t *testing.T, query string) *webClient {
	return openWebClientWith(t, nil, func(*webClient) string { return query })
}

// openWebClientWith is openWebClient with more of vkmd's flags, and the
// page's query (and fragment) made once vkmd serves.
func openWebClientWith(t *testing.T, flags []string, query func(*webClient) string) *webClient {
	return openWebProject(t, "arena", nil, flags, query)
}

// openWebProject is openWebClientWith for a copy of the example project
// called name, which edit (if not nil) changes before vkmd serves it.
func openWebProject(t *testing.T, name string, edit func(dir string), flags []string, query func(*webClient) string) *webClient {
	chrome := findChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	bin := buildPrograms(t)
	project := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(project, os.DirFS(filepath.Join("..", "..", "projects", name))); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(project)
	}
	port := freeUDPPort(t)
	vkmd := start(t, ctx, filepath.Join(bin, "vkmd"), append([]string{project, "--port", port, "--web", "127.0.0.1:0", "--dev"}, flags...)...)
	m := waitLine(t, vkmd, regexp.MustCompile(`msg="web listening" addr=(\S+)`))
	w := &webClient{ctx: ctx, bin: bin, project: project, port: port, vkmd: vkmd}
	url := "http://" + m[1] + "/" + query(w)
	t.Logf("page at %s", url)

	// No WebTransport flags: the session opens to 127.0.0.1 with the
	// certificate's hash alone. No WebRTC flags, as a player's browser
	// has none: the data channel
	// opens on loopback without --allow-loopback-in-peer-connection or
	// WebRtcHideLocalIpsWithMdns disabled (Chromium 156 here). The
	// gateway's answer holds 127.0.0.1 candidates, and the browser's
	// connectivity checks to them tell the server where it is, whatever
	// candidates the browser itself offered.
	cdp := launchChromium(t, ctx, chrome)
	cdp.call(t, "Page.enable", nil)
	cdp.call(t, "Page.navigate", map[string]any{"url": url})
	w.cdp = cdp
	w.read = func() webPageState {
		var s webPageState
		v := cdp.eval(t, `JSON.stringify(window.vkm && window.vkmWeb ? {connected: vkm.connected, frames: vkm.frames, own: vkm.own,
			transport: vkm.transport, panel: document.getElementById('transport').textContent, status: vkmWeb.status,
			rtcFailure: vkmWeb.rtcFailure, wtFailure: vkmWeb.wtFailure, dev: JSON.stringify(vkm.lastFrame ? vkm.lastFrame.dev : [])} : {})`)
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			t.Fatalf("page state %q: %v", v, err)
		}
		return s
	}
	w.until = func(what string, within time.Duration, ok func(webPageState) bool) webPageState {
		t.Helper()
		deadline := time.Now().Add(within)
		for {
			s := w.read()
			if ok(s) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within %v; the page says %+v", what, within, s)
			}
			time.Sleep(50 * time.Millisecond) // polling another process
		}
	}
	w.stats = func() webClientStats {
		var s webClientStats
		v := cdp.eval(t, `vkmWeb.stats ? vkmWeb.stats() : "{}"`)
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			t.Fatalf("client stats %q: %v", v, err)
		}
		return s
	}
	return w
}

// TestBrowserMeasureClientInTheTab measures the browser client as
// BENCHMARKS.md reports it ("The browser client"); it runs only with
// VKM_BROWSER_MEASURE=1. The page's player runs back and forth and jumps
// for 20 s among three wandering bots over a link of 40 ms each way (the
// page's link sliders), so the server corrects it now and then; then the
// page's draw times, the session's frame and step times and its replays
// are logged.
func TestBrowserMeasureClientInTheTab(t *testing.T) {
	if os.Getenv("VKM_BROWSER_MEASURE") == "" {
		t.Skip("a measurement: set VKM_BROWSER_MEASURE=1")
	}
	w := openWebClient(t, "?name=web")
	w.until("the page shows the player", 3*time.Minute, func(s webPageState) bool {
		return s.Connected && s.Frames > 30 && s.Own != nil
	})
	nBots, latency := "3", "40"
	if v := os.Getenv("VKM_BROWSER_MEASURE_BOTS"); v != "" {
		nBots = v
	}
	if v := os.Getenv("VKM_BROWSER_MEASURE_LATENCY_MS"); v != "" {
		latency = v
	}
	bots := exec.CommandContext(w.ctx, filepath.Join(w.bin, "client"), w.project, "--connect", "127.0.0.1:"+w.port,
		"--headless", "--bots", nBots, "--duration", "30s")
	if err := bots.Start(); err != nil {
		t.Fatal(err)
	}
	defer bots.Wait()
	w.cdp.eval(t, `vkmWeb.fromPage(JSON.stringify({t: "link", latency_ms: `+latency+`, jitter_ms: `+latency+`/10, loss_pct: 0})), ""`)
	end := time.Now().Add(20 * time.Second)
	for i := 0; time.Now().Before(end); i++ {
		key, code, vk := "KeyD", "d", 68
		if i%2 == 1 {
			key, code, vk = "KeyA", "a", 65
		}
		w.cdp.key(t, "keyDown", key, code, vk)
		w.cdp.key(t, "keyDown", "Space", " ", 32)
		time.Sleep(100 * time.Millisecond) // holding a key for the page
		w.cdp.key(t, "keyUp", "Space", " ", 32)
		time.Sleep(900 * time.Millisecond) // holding a key for the page
		w.cdp.key(t, "keyUp", key, code, vk)
	}
	draw := w.cdp.eval(t, `JSON.stringify(vkm.drawTimes())`)
	st := w.stats()
	b, _ := json.Marshal(st.Perf)
	t.Logf("draw %s perf %s corrections %d replayed %d rtt %.1f", draw, b, st.Report.Corrections, st.Report.ReplayedTicks, st.Report.RTTms)
	t.Logf("report %s", w.cdp.eval(t, `vkmWeb.stats()`))
}

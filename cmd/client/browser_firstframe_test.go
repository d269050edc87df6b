//go:build browser && linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"
)

// firstFrameHook runs in the page before its own scripts and notes in
// window.vkmFirst, in milliseconds since the navigation began, when each
// step of the start was reached: the moment the page's scripts set
// vkmWeb.status ("loading the client" once the project is in, then
// "connecting" once the client is compiled, "playing" once the link is
// open and the client starts), vkm.connected, and vkm.frames (the client
// handed the page its first frame); then, at the next animation frame
// (drawn), the client's download as Resource Timing saw it; and the first
// frame that holds the player's own character (own: the server seated it). The page is
// timed as it runs, not by polling it from here.
const firstFrameHook = `(() => {
  const m = window.vkmFirst = {status: {}};
  const now = () => performance.now();
  function watch(obj, key, on) {
    let v = obj[key];
    Object.defineProperty(obj, key, {configurable: true, enumerable: true,
      get() { return v; }, set(x) { v = x; on(x); }});
  }
  function trap(name, on) {
    let o;
    Object.defineProperty(window, name, {configurable: true,
      get() { return o; }, set(x) { o = x; if (x && typeof x === 'object') on(x); }});
  }
  trap('vkmWeb', (web) => watch(web, 'status', (s) => { if (!(s in m.status)) m.status[s] = now(); }));
  trap('vkm', (page) => {
    watch(page, 'connected', (c) => { if (c && !m.connected) m.connected = now(); });
    watch(page, 'frames', (n) => {
      if (n > 1 && page.own && !m.own) m.own = now();
      if (n < 1 || m.handed) return;
      m.handed = now();
      requestAnimationFrame(() => {
        const e = performance.getEntriesByType('resource').find((r) => r.name.endsWith('/vkm/client.wasm'));
        if (e) m.wasm = {fetched: e.responseEnd, transfer: e.transferSize, encoded: e.encodedBodySize, decoded: e.decodedBodySize};
        m.frame = now();
      });
    });
  });
})()`

// firstFrame is one cold load as firstFrameHook saw it.
type firstFrame struct {
	Status    map[string]float64 `json:"status"`
	Connected float64            `json:"connected"`
	Handed    float64            `json:"handed"`
	Frame     float64            `json:"frame"`
	Own       float64            `json:"own"`
	Wasm      struct {
		Fetched  float64 `json:"fetched"`
		Transfer int     `json:"transfer"`
		Encoded  int     `json:"encoded"`
		Decoded  int     `json:"decoded"`
	} `json:"wasm"`
}

// TestBrowserMeasureFirstFrame measures the time from opening vkmd --web's
// address to the first frame of the game in the tab, as BENCHMARKS.md
// reports it ("the browser client's first frame"); it runs only with
// VKM_BROWSER_MEASURE=1. vkmd serves the arena on loopback with the
// client built as it builds it (or the one in VKM_WASM, wasm_exec.js
// beside it, to measure another build), and is waited for until the client
// is ready, so its build is not measured; VKM_FIRST_FRAME_NET=ws takes
// the WebSocket instead of WebRTC. Each of VKM_FIRST_FRAME_RUNS
// loads (3 by default) is a headless Chromium of its own with a new
// profile: nothing cached, neither the download nor the compiled code.
// Each logs when the client had arrived, was compiled, had connected and
// drew its first frame, and how many bytes came over the wire; the last
// line gives the range.
func TestBrowserMeasureFirstFrame(t *testing.T) {
	if os.Getenv("VKM_BROWSER_MEASURE") == "" {
		t.Skip("a measurement: set VKM_BROWSER_MEASURE=1")
	}
	runs := 3
	if v := os.Getenv("VKM_FIRST_FRAME_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("VKM_FIRST_FRAME_RUNS=%q: not a count of runs", v)
		}
		runs = n
	}
	chrome := findChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "vkmd"), "vkm/cmd/vkmd").CombinedOutput(); err != nil {
		t.Fatalf("go build vkmd: %v\n%s", err, out)
	}
	project := filepath.Join(t.TempDir(), "arena")
	if err := os.CopyFS(project, os.DirFS(filepath.Join("..", "..", "projects", "arena"))); err != nil {
		t.Fatal(err)
	}
	args := []string{project, "--port", freeUDPPort(t), "--web", "127.0.0.1:0"}
	wasm := os.Getenv("VKM_WASM")
	if wasm != "" {
		abs, err := filepath.Abs(wasm)
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, "--wasm", abs)
	}
	vkmd := start(t, ctx, filepath.Join(bin, "vkmd"), args...)
	addr := waitLine(t, vkmd, regexp.MustCompile(`msg="web listening" addr=(\S+)`))[1]
	if wasm == "" {
		built := regexp.MustCompile(`msg="built the browser client" bytes=(\d+)`)
		deadline := time.After(5 * time.Minute) // a cold build cache on a loaded machine
	wait:
		for {
			select {
			case l, ok := <-vkmd.lines:
				if !ok {
					t.Fatal("vkmd ended before it built the browser client")
				}
				if m := built.FindStringSubmatch(l); m != nil {
					t.Logf("vkmd built the browser client: %s bytes", m[1])
					break wait
				}
			case <-deadline:
				t.Fatal("vkmd did not build the browser client within 5 minutes")
			}
		}
	} else {
		t.Logf("vkmd serves %s", wasm)
	}
	url := "http://" + addr + "/?name=cold"
	if os.Getenv("VKM_FIRST_FRAME_NET") == "ws" {
		url += "&net=ws"
	}
	var frames, players []float64
	for i := range runs {
		t.Run(fmt.Sprint("load", i+1), func(t *testing.T) {
			cdp := launchChromium(t, ctx, chrome)
			cdp.call(t, "Page.enable", nil)
			cdp.call(t, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": firstFrameHook})
			cdp.call(t, "Page.navigate", map[string]any{"url": url})
			var f firstFrame
			read := func() string {
				v := cdp.eval(t, `JSON.stringify(window.vkmFirst || {})`)
				if err := json.Unmarshal([]byte(v), &f); err != nil {
					t.Fatalf("the page's timings %q: %v", v, err)
				}
				return v
			}
			// The first frame, then the player in it: a minute for each.
			for _, step := range []struct {
				what string
				done func() bool
			}{{"no frame", func() bool { return f.Frame > 0 }}, {"no frame with the player", func() bool { return f.Own > 0 }}} {
				deadline := time.Now().Add(time.Minute)
				for v := read(); !step.done(); v = read() {
					if time.Now().After(deadline) {
						msg := fmt.Sprintf("%s within a minute; the page says %s, status %s, the client %s", step.what, v,
							cdp.eval(t, `String(window.vkmWeb && vkmWeb.status)`), cdp.eval(t, `window.vkmWeb && vkmWeb.stats ? vkmWeb.stats() : ""`))
						if f.Frame == 0 {
							t.Fatal(msg)
						}
						t.Log(msg)
						break
					}
					time.Sleep(100 * time.Millisecond) // polling another process; the page times itself
				}
			}
			t.Logf("project in %.0f ms, client arrived %.0f ms, compiled %.0f ms, link open %.0f ms, connected %.0f ms, first frame handed %.0f ms, drawn %.0f ms, with the player %.0f ms; the client %d bytes, %d over the wire",
				f.Status["loading the client"], f.Wasm.Fetched, f.Status["connecting"], f.Status["playing"], f.Connected, f.Handed, f.Frame, f.Own, f.Wasm.Decoded, f.Wasm.Encoded)
			frames = append(frames, f.Frame)
			if f.Own > 0 {
				players = append(players, f.Own)
			}
			// Leaving the page says goodbye, so the seat frees for the
			// next load.
			cdp.call(t, "Page.navigate", map[string]any{"url": "about:blank"})
		})
	}
	if len(frames) == runs {
		t.Logf("first frame from a cold load, %d loads: %.0f–%.0f ms", runs, slices.Min(frames), slices.Max(frames))
	}
	if len(players) > 0 {
		t.Logf("the first with the player, %d of %d loads: %.0f–%.0f ms", len(players), runs, slices.Min(players), slices.Max(players))
	}
}

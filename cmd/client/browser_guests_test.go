//go:build browser && linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestBrowserGuestsSplitTheKeyboard: a client seats two guests on its
// connection (--guests 2) and serves the page. The page splits the
// keyboard: the arrow keys run guest 1 and the letters the page's own
// player; a gamepad (the browser's Gamepad API, stood in for here) runs
// guest 2. Each local player's input goes apart, and each character runs
// its own way on the page while the others keep theirs.
func TestBrowserGuestsSplitTheKeyboard(t *testing.T) {
	chrome := findChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bin := buildPrograms(t)
	project := filepath.Join("..", "..", "projects", "arena")
	port := freeUDPPort(t)
	vkmd := start(t, ctx, filepath.Join(bin, "vkmd"), project, "--port", port)
	waitLine(t, vkmd, regexp.MustCompile(`msg=serving`))
	client := start(t, ctx, filepath.Join(bin, "client"), project, "--connect", "127.0.0.1:"+port, "--view", "127.0.0.1:0", "--guests", "2", "--name", "ada")
	m := waitLine(t, client, regexp.MustCompile(`view listening.* addr=(\S+)`))
	url := "http://" + m[1] + "/"
	var guest [3]uint64 // the packed entity of each guest, as the page's frames name it
	for i := 1; i <= 2; i++ {
		g := waitLine(t, client, regexp.MustCompile(`guest seated.* guest=`+strconv.Itoa(i)+` .*entity=(\d+)#(\d+)`))
		slot, _ := strconv.ParseUint(g[1], 10, 32)
		gen, _ := strconv.ParseUint(g[2], 10, 32)
		guest[i] = gen<<24 | slot
	}
	t.Logf("page at %s; guests' entities %d and %d", url, guest[1], guest[2])

	cdp := launchChromium(t, ctx, chrome)
	cdp.call(t, "Page.enable", nil)
	cdp.call(t, "Page.navigate", map[string]any{"url": url})

	type pageState struct {
		Frames int                          `json:"frames"`
		Guests int                          `json:"guests"`
		Own    *struct{ X, Y float64 }      `json:"own"`
		Pos    map[string][2]float64        `json:"pos"`
		Inputs []map[string]json.RawMessage `json:"inputs"`
	}
	read := func() pageState {
		var s pageState
		v := cdp.eval(t, fmt.Sprintf(`JSON.stringify(window.vkm ? {frames: vkm.frames, guests: vkm.guests, own: vkm.own, inputs: vkm.inputs,
			pos: Object.fromEntries(((vkm.lastFrame && vkm.lastFrame.e) || []).filter((e) => e[0] === %d || e[0] === %d).map((e) => [String(e[0]), [e[1], e[2]]]))} : {})`, guest[1], guest[2]))
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			t.Fatalf("page state %q: %v", v, err)
		}
		return s
	}
	until := func(what string, ok func(pageState) bool) pageState {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for {
			s := read()
			if ok(s) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 15 s; the page says %+v", what, s)
			}
			time.Sleep(50 * time.Millisecond) // polling another process
		}
	}
	pos := func(s pageState, i int) [2]float64 { return s.Pos[strconv.FormatUint(guest[i], 10)] }
	run := func(s pageState, player int) float64 {
		if player >= len(s.Inputs) || s.Inputs[player] == nil {
			return math.NaN()
		}
		var axes map[string]float64
		json.Unmarshal(s.Inputs[player]["axes"], &axes)
		return axes["run"]
	}
	rest := until("the page showing the three players", func(s pageState) bool {
		return s.Guests == 2 && s.Frames > 60 && s.Own != nil && len(s.Pos) == 2
	})
	// The stand-in gamepad: its left stick pushed left.
	cdp.eval(t, `(() => { navigator.getGamepads = () => [{connected: true, axes: [-1, 0, 0, 0], buttons: [{pressed: false}, {pressed: false}]}]; return 'ok'; })()`)
	cdp.key(t, "keyDown", "ArrowRight", "ArrowRight", 39)
	split := until("the inputs going apart", func(s pageState) bool {
		return run(s, 0) == 0 && run(s, 1) == 1 && run(s, 2) == -1
	})
	t.Logf("inputs: own %v, guest 1 %v, guest 2 %v", run(split, 0), run(split, 1), run(split, 2))
	ran := until("guest 1 running right and guest 2 left", func(s pageState) bool {
		return pos(s, 1)[0] > pos(rest, 1)[0]+1 && pos(s, 2)[0] < pos(rest, 2)[0]-1
	})
	t.Logf("guest 1 %.2f → %.2f, guest 2 %.2f → %.2f, own %.2f → %.2f",
		pos(rest, 1)[0], pos(ran, 1)[0], pos(rest, 2)[0], pos(ran, 2)[0], rest.Own.X, ran.Own.X)
	if math.Abs(ran.Own.X-rest.Own.X) > 0.3 {
		t.Fatalf("the page's own player moved %.2f m on guest 1's keys", ran.Own.X-rest.Own.X)
	}
	cdp.key(t, "keyDown", "KeyA", "a", 65)
	left := until("the own player running left on the letters", func(s pageState) bool {
		return run(s, 0) == -1 && run(s, 1) == 1 && s.Own.X < ran.Own.X-1
	})
	t.Logf("own %.2f → %.2f with guest 1 still running right (%v)", ran.Own.X, left.Own.X, run(left, 1))
	cdp.key(t, "keyUp", "KeyA", "a", 65)
	cdp.key(t, "keyUp", "ArrowRight", "ArrowRight", 39)
}

// TestBrowserGuestsInTheTab: the in-tab client (vkmd --web) with
// ?guests=1 seats a guest on its connection, and its page splits the
// keyboard as the native client's does: the arrow keys are the guest's.
func TestBrowserGuestsInTheTab(t *testing.T) {
	w := openWebClient(t, "?name=ada&guests=1")
	w.until("the page playing", 60*time.Second, func(s webPageState) bool { return s.Connected && s.Frames > 30 && s.Own != nil })
	waitLine(t, w.vkmd, regexp.MustCompile(`guest joined.* name="ada 2" owner=\d+ local=1`))
	w.cdp.key(t, "keyDown", "ArrowLeft", "ArrowLeft", 37)
	deadline := time.Now().Add(10 * time.Second)
	for {
		v := w.cdp.eval(t, `JSON.stringify({guests: vkm.guests, own: vkm.inputs[0] && vkm.inputs[0].axes.run, guest: vkm.inputs[1] && vkm.inputs[1].axes.run})`)
		var s struct{ Guests, Own, Guest float64 }
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			t.Fatalf("page state %q: %v", v, err)
		}
		if s.Guests == 1 && s.Own == 0 && s.Guest == -1 {
			t.Logf("the tab's inputs: own %v, guest %v", s.Own, s.Guest)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tab's inputs did not split within 10 s: %s", v)
		}
		time.Sleep(50 * time.Millisecond) // polling another process
	}
	w.cdp.key(t, "keyUp", "ArrowLeft", "ArrowLeft", 37)
}

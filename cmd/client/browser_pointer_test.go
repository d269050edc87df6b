//go:build browser && linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestBrowserPointerAxes: in a copy of the arena given two axes with
// mouse = "point_x" and "point_y" (reach 8 m), the page in the tab sends
// the pointer's offset from the player over the reach: a little to the
// right of the player, about that many metres over 8 on px and about 0 on
// py; at the canvas's right and left edges, 16 m away at the arena's
// width, held to 1 and -1.
func TestBrowserPointerAxes(t *testing.T) {
	w := openWebProject(t, "arena", func(dir string) {
		f, err := os.OpenFile(filepath.Join(dir, "project.toml"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		f.WriteString("\n[[axis]]\nname = \"px\"\nmouse = \"point_x\"\nreach = 8.0\n\n[[axis]]\nname = \"py\"\nmouse = \"point_y\"\nreach = 8.0\n")
	}, nil, func(*webClient) string { return "?name=web" })
	w.until("the page shows the player", 3*time.Minute, func(s webPageState) bool {
		return s.Connected && s.Frames > 30 && s.Own != nil
	})
	// point moves the pointer to the canvas's width times fx from its
	// left and half its height, and returns the axes the page then sends.
	point := func(fx float64) (px, py float64) {
		t.Helper()
		w.cdp.eval(t, `(() => { const c = document.getElementById('game'), r = c.getBoundingClientRect();
			c.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + r.width * `+jsonNum(fx)+`, clientY: r.top + r.height / 2}));
			return ""; })()`)
		var in struct {
			Axes map[string]float64 `json:"axes"`
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			time.Sleep(100 * time.Millisecond) // the page sends its input at its next animation frame; polling another process
			v := w.cdp.eval(t, `JSON.stringify(vkm.input || {})`)
			if err := json.Unmarshal([]byte(v), &in); err != nil {
				t.Fatalf("input %q: %v", v, err)
			}
			if _, ok := in.Axes["px"]; ok || time.Now().After(deadline) {
				return in.Axes["px"], in.Axes["py"]
			}
		}
	}
	near, nearY := point(0.6) // 10 % of 32 m to the right of the centre: about 3.2 m
	right, _ := point(0.999)
	left, _ := point(0.001)
	t.Logf("the pointer a little right of the player: px %.3f, py %.3f; at the right edge %.3f, the left %.3f", near, nearY, right, left)
	if !(near > 0.2 && near < 0.6) || !(nearY > -0.25 && nearY < 0.25) || right != 1 || left != -1 {
		t.Fatalf("px %.3f, py %.3f a little right of the player; %.3f and %.3f at the edges: want about 0.4 and 0, then 1 and -1", near, nearY, right, left)
	}
}

// jsonNum writes f for a script.
func jsonNum(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

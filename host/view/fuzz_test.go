package view

import (
	"math"
	"testing"
)

// FuzzInput feeds arbitrary bytes to the decoder of the page's messages and
// the input state behind it: nothing panics, and whatever gets through is in
// range.
func FuzzInput(f *testing.F) {
	for _, s := range []string{
		`{"t":"input","axes":{"run":1,"aim_x":0.6,"aim_y":-0.8},"held":{"jump":true,"fire":false}}`,
		`{"t":"input","axes":{"run":-9e307,"fly":1},"held":{"dance":true}}`,
		`{"t":"input","axes":{"run":NaN}}`,
		`{"t":"input","axes":{"run":1e999}}`,
		`{"t":"input","axes":null,"held":null}`,
		`{"t":"link","latency_ms":80,"jitter_ms":10,"loss_pct":2}`,
		`{"t":"link","latency_ms":-1,"jitter_ms":1e308,"loss_pct":100}`,
		`{"t":"link"}`,
		`{"t":"nope"}`,
		`[]`, `null`, `"input"`, `{`, "\xff\xfe", ``,
	} {
		f.Add([]byte(s))
	}
	ix := newActionIndex(&arenaActions)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseMessage(b, ix)
		if err != nil {
			return
		}
		switch m.kind {
		case msgInput:
			for _, a := range m.axes {
				if a.i < 0 || a.i >= len(arenaActions.Axes) || !(a.v >= -1 && a.v <= 1) {
					t.Fatalf("axis %+v out of range", a)
				}
			}
			for _, h := range m.held {
				if h.i < 0 || h.i >= len(arenaActions.Buttons) {
					t.Fatalf("button %+v out of range", h)
				}
			}
			in := newInputState(&arenaActions)
			in.apply(&conn{}, &m)
			axes, held, pressed := in.take()
			if len(axes) != len(arenaActions.Axes) || len(held) != len(arenaActions.Buttons) || len(pressed) != len(held) {
				t.Fatalf("take returned %d, %d, %d actions", len(axes), len(held), len(pressed))
			}
		case msgLink:
			l := m.link.apply(Link{})
			if l.Latency < 0 || l.Latency > MaxLatency || l.Jitter < 0 || l.Jitter > MaxJitter || !(l.Loss >= 0 && l.Loss <= MaxLoss) || math.IsNaN(l.Loss) {
				t.Fatalf("link %+v out of range", l)
			}
		default:
			t.Fatalf("message of kind %d parsed without error", m.kind)
		}
	})
}

package view

import (
	"encoding/json"
	"math"
	"testing"
	"unicode/utf8"

	"vkm/internal/entity"
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
		`{"t":"chat","text":"gg wp"}`,
		`{"t":"chat","text":"\u0000\ud800 é"}`,
		`{"t":"chat","text":7}`,
		`{"t":"send","name":"buy","fields":{"item":3,"now":true}}`,
		`{"t":"send","name":"","fields":{}}`,
		`{"t":"send","name":"buy","fields":{"item":"3"}}`,
		`{"t":"send","name":"buy","fields":{"item":1e999}}`,
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
		case msgChat:
			if len(m.text) > MaxChatText {
				t.Fatalf("a chat text of %d bytes", len(m.text))
			}
		case msgSend:
			if m.send.Name == "" || len(m.send.Name) > MaxSendName || len(m.send.Fields) > MaxSendFields {
				t.Fatalf("a send of %q with %d fields", m.send.Name, len(m.send.Fields))
			}
			for k, v := range m.send.Fields {
				if k == "" || len(k) > MaxSendName || math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("a send's field %q = %v", k, v)
				}
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

// FuzzFrame encodes frames of arbitrary numbers and labels: the message is
// always valid JSON in valid UTF-8, and each number in it is null when it
// was not finite and within rounding of what it was otherwise.
func FuzzFrame(f *testing.F) {
	f.Add(1.5, -2.0, 0.25, "hp")
	f.Add(math.NaN(), math.Inf(1), math.Inf(-1), "\xff\x00\"\\")
	f.Add(1e300, -1e-300, math.Copysign(0, -1), "\u2028<&>")
	f.Fuzz(func(t *testing.T, x, y, v float64, label string) {
		fr := Frame{
			Entities: []Pose{{ID: entity.ID{Slot: 1, Gen: 1}, Transform: entity.Transform{X: x, Y: y, Angle: v, Scale: 1}}},
			Dev:      []Stat{{label, v}},
		}
		b := encodeFrame(1, &fr)
		if !utf8.Valid(b) {
			t.Fatalf("not valid UTF-8: %q", b)
		}
		var got struct {
			E   [][]*float64
			Dev [][2]any
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		check := func(what string, in float64, out *float64) {
			if math.IsNaN(in) || math.IsInf(in, 0) {
				if out != nil {
					t.Errorf("%s %v written as %v", what, in, *out)
				}
				return
			}
			if out == nil || math.Abs(*out-in) > 0.5/precision*(1+1e-9) && math.Abs(*out-in) > math.Abs(in)*1e-15 {
				t.Errorf("%s %v written as %s", what, in, b)
			}
		}
		check("x", x, got.E[0][1])
		check("y", y, got.E[0][2])
		var hv *float64
		if n, ok := got.Dev[0][1].(float64); ok {
			hv = &n
		}
		check("hud", v, hv)
	})
}

package view

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"vkm/internal/entity"
)

// Messages to the page are compact JSON text, written by hand rather than
// through encoding/json: the page is plain JavaScript with no build step, so
// JSON.parse is its fastest decoder and a frame reads as-is in the browser's
// developer tools, while on loopback a few kilobytes a frame cost nothing.
// Writing by hand keeps reflection off the frame loop and turns a NaN or an
// infinity, which encoding/json refuses, into null instead of losing the
// frame.

// precision is what numbers are rounded to on the way to the page: 0.1 mm
// and 0.0001 rad are below a pixel at any zoom the page uses.
const precision = 1e4

// appendNum appends v rounded to 1/precision, or null when v is not finite.
func appendNum(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	if math.Abs(v) < 1e15 {
		v = math.Round(v*precision) / precision
	}
	if v == 0 {
		return append(b, '0') // also turns -0 into 0
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// appendID appends id as one integer, generation<<24 | slot: exact in a
// JavaScript number for every generation below 2^29 (entity.ID.Pack).
func appendID(b []byte, id entity.ID) []byte {
	return strconv.AppendUint(b, uint64(id.Gen)<<24|uint64(id.Slot&entity.MaxSlot), 10)
}

// appendStr appends s as a JSON string. Invalid UTF-8 becomes U+FFFD: a
// WebSocket text message must be valid UTF-8 or the browser drops the
// connection.
func appendStr(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, `\u00`...)
			b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

func appendStrs(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, s)
	}
	return append(b, ']')
}

// appendKey appends ,"k": (or "k": first in an object, when comma is false).
func appendKey(b []byte, k string, comma bool) []byte {
	if comma {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, k...)
	return append(b, '"', ':')
}

// appendPose appends [id,x,y,angle,scale].
func appendPose(b []byte, p *Pose) []byte {
	b = append(b, '[')
	b = appendID(b, p.ID)
	b = append(b, ',')
	return appendTransformTail(b, &p.Transform)
}

// appendTransform appends [x,y,angle,scale].
func appendTransform(b []byte, t *entity.Transform) []byte {
	b = append(b, '[')
	return appendTransformTail(b, t)
}

func appendTransformTail(b []byte, t *entity.Transform) []byte {
	b = appendNum(b, t.X)
	b = append(b, ',')
	b = appendNum(b, t.Y)
	b = append(b, ',')
	b = appendNum(b, t.Angle)
	b = append(b, ',')
	b = appendNum(b, t.Scale)
	return append(b, ']')
}

func appendPoses(b []byte, ps []Pose) []byte {
	b = append(b, '[')
	for i := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendPose(b, &ps[i])
	}
	return append(b, ']')
}

// appendFrame appends the frame message for f, numbered seq.
func appendFrame(b []byte, seq uint64, f *Frame) []byte {
	b = append(b, `{"t":"frame","seq":`...)
	b = strconv.AppendUint(b, seq, 10)
	b = appendKey(b, "tick", true)
	b = strconv.AppendUint(b, uint64(f.Tick), 10)
	b = appendKey(b, "own", true)
	b = appendID(b, f.Own)
	b = appendKey(b, "e", true)
	b = appendPoses(b, f.Entities)
	b = appendKey(b, "hud", true)
	b = append(b, '[')
	for i, s := range f.HUD {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = appendStr(b, s.Label)
		b = append(b, ',')
		b = appendNum(b, s.Value)
		b = append(b, ']')
	}
	b = append(b, ']')
	if f.Net != nil {
		b = appendKey(b, "net", true)
		b = appendNet(b, f.Net)
	}
	if f.Ghost != nil {
		b = appendKey(b, "ghost", true)
		b = appendTransform(b, f.Ghost)
	}
	b = appendKey(b, "leased", true)
	b = append(b, '[')
	for i, id := range f.Leased {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendID(b, id)
	}
	b = append(b, ']')
	b = appendKey(b, "samples", true)
	b = appendPoses(b, f.Samples)
	return append(b, '}')
}

func appendNet(b []byte, n *NetStats) []byte {
	fields := [...]struct {
		k string
		v float64
	}{
		{"rtt_ms", n.RTTms},
		{"loss_permille", n.LossPermille},
		{"bytes_in_per_s", n.BytesInPerS},
		{"bytes_out_per_s", n.BytesOutPerS},
		{"snapshots_per_s", n.SnapshotsPerS},
		{"corrections_per_s", n.CorrectionsPerS},
		{"pacing_low_water", n.PacingLowWater},
		{"pacing_target", n.PacingTarget},
		{"tick_speed", n.TickSpeed},
		{"interp_delay_ticks", n.InterpDelayTicks},
		{"interp_stalls", n.InterpStalls},
	}
	b = append(b, '{')
	for i, f := range fields {
		b = appendKey(b, f.k, i > 0)
		b = appendNum(b, f.v)
	}
	return append(b, '}')
}

// appendScene appends the scene message for sc.
func appendScene(b []byte, sc *Scene) []byte {
	b = append(b, `{"t":"scene","bodies":[`...)
	for i := range sc.Bodies {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendBody(b, &sc.Bodies[i])
	}
	return append(b, "]}"...)
}

func appendBody(b []byte, body *Body) []byte {
	b = append(b, `{"id":`...)
	b = appendID(b, body.ID)
	b = appendKey(b, "name", true)
	b = appendStr(b, body.Name)
	b = appendKey(b, "kind", true)
	b = appendStr(b, body.Kind)
	b = appendKey(b, "color", true)
	b = appendStr(b, body.Color)
	b = appendKey(b, "shapes", true)
	b = append(b, '[')
	for i := range body.Shapes {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendShape(b, &body.Shapes[i])
	}
	return append(b, "]}"...)
}

func appendShape(b []byte, s *Shape) []byte {
	b = append(b, `{"k":`...)
	b = appendStr(b, s.Kind.String())
	b = appendKey(b, "x", true)
	b = appendNum(b, s.Offset.X)
	b = appendKey(b, "y", true)
	b = appendNum(b, s.Offset.Y)
	switch s.Kind {
	case entity.Box:
		b = appendKey(b, "hx", true)
		b = appendNum(b, s.HalfW)
		b = appendKey(b, "hy", true)
		b = appendNum(b, s.HalfH)
		b = appendKey(b, "a", true)
		b = appendNum(b, s.Angle)
	case entity.Circle:
		b = appendKey(b, "r", true)
		b = appendNum(b, s.Radius)
	default:
		b = appendKey(b, "p", true)
		b = append(b, '[')
		for i, p := range s.Points {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = appendNum(b, p.X)
			b = append(b, ',')
			b = appendNum(b, p.Y)
			b = append(b, ']')
		}
		b = append(b, ']')
		b = appendKey(b, "loop", true)
		b = strconv.AppendBool(b, s.Loop)
	}
	b = appendKey(b, "sensor", true)
	b = strconv.AppendBool(b, s.Sensor)
	return append(b, '}')
}

// appendLink appends the link message: the simulator's setting, and whether
// the page may change it.
func appendLink(b []byte, l Link, enabled bool) []byte {
	b = append(b, `{"t":"link","enabled":`...)
	b = strconv.AppendBool(b, enabled)
	b = appendKey(b, "latency_ms", true)
	b = appendNum(b, float64(l.Latency)/float64(time.Millisecond))
	b = appendKey(b, "jitter_ms", true)
	b = appendNum(b, float64(l.Jitter)/float64(time.Millisecond))
	b = appendKey(b, "loss_pct", true)
	b = appendNum(b, l.Loss*100)
	return append(b, '}')
}

// appendHello appends the first message of every connection: the actions
// and their bindings, in command order.
func appendHello(b []byte, a *Actions) []byte {
	b = append(b, `{"t":"hello","axes":[`...)
	for i, ax := range a.Axes {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendStr(b, ax.Name)
		b = appendKey(b, "negative", true)
		b = appendStrs(b, ax.Negative)
		b = appendKey(b, "positive", true)
		b = appendStrs(b, ax.Positive)
		b = appendKey(b, "mouse", true)
		b = appendStr(b, ax.Mouse)
		b = append(b, '}')
	}
	b = append(b, `],"buttons":[`...)
	for i, bt := range a.Buttons {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendStr(b, bt.Name)
		b = appendKey(b, "keys", true)
		b = appendStrs(b, bt.Keys)
		b = appendKey(b, "mouse", true)
		b = appendStr(b, bt.Mouse)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

package view

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"vkm/internal/entity"
)

// Messages to the page are compact JSON written by encoding/json: the page
// is plain JavaScript with no build step, so JSON.parse is its fastest
// decoder and a frame reads as-is in the browser's developer tools, while
// on loopback a few kilobytes a frame cost nothing. Each message has a
// struct below that says its field names; the types in types.go carry no
// tags, since the page's compact forms (an entity is [id,x,y,angle,scale])
// are not theirs.
//
// Every number goes through nums.num: rounded to 1/precision, and nil,
// which encoding/json writes as null, when it is a NaN or an infinity.
// encoding/json refuses those, and one of them (a body flung out of the
// world, a script's 0/0 on the HUD) would otherwise lose the whole frame.
// The page draws a null as it would a NaN: not at all.

// precision is what numbers are rounded to on the way to the page: 0.1 mm
// and 0.0001 rad are below a pixel at any zoom the page uses.
const precision = 1e4

// nums holds the numbers of one message for encoding/json to read through
// pointers. A pointer stays right as the slice grows: it points into the
// array that was current when it was written, which is never written again.
type nums []float64

// num returns v rounded to 1/precision, or nil when v is not finite.
func (ns *nums) num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	if math.Abs(v) < 1e15 {
		v = math.Round(v*precision) / precision
	}
	if v == 0 {
		v = 0 // turns -0 into 0
	}
	return ns.exact(v)
}

// exact returns v as it is.
func (ns *nums) exact(v float64) *float64 {
	*ns = append(*ns, v)
	return &(*ns)[len(*ns)-1]
}

// packID returns id as one integer, generation<<24 | slot: exact in a
// JavaScript number for every generation below 2^29 (entity.ID.Pack).
func packID(id entity.ID) uint64 {
	return uint64(id.Gen)<<24 | uint64(id.Slot&entity.MaxSlot)
}

// marshal encodes a message. The message types hold nothing encoding/json
// can refuse (no NaN, no map, no cycle), so an error is a bug in them.
func marshal(msg any) []byte {
	b, err := json.Marshal(msg)
	if err != nil {
		panic("view: encoding a message: " + err.Error())
	}
	return b
}

// orEmpty returns s, or an empty slice for nil: the page is sent [] rather
// than null for a list with nothing in it.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// frameMsg is the frame message.
type frameMsg struct {
	T       string     `json:"t"` // "frame"
	Seq     uint64     `json:"seq"`
	Tick    uint32     `json:"tick"`
	Own     uint64     `json:"own"`
	E       []pose     `json:"e"`
	Dev     [][2]any   `json:"dev"` // [label, value]
	Net     *netMsg    `json:"net,omitempty"`
	Ghost   *transform `json:"ghost,omitempty"`
	Leased  []uint64   `json:"leased"`
	Samples []pose     `json:"samples"`
	// FX is the effects, each [seq, name, entity, {fields}], written by
	// appendEffect: maps through encoding/json cost a reflection walk and
	// a key sort for every field of every effect, and each effect is sent
	// again in the frames of the next quarter second.
	FX     json.RawMessage `json:"fx,omitempty"`
	HUD    []hudMsg        `json:"hud,omitempty"`
	Errors []string        `json:"errors,omitempty"`
	Looks  [][]any         `json:"looks,omitempty"` // [id, color, label, visible(, state)]
	Errs   int             `json:"errs,omitempty"`
	Notice string          `json:"notice,omitempty"`
	// Killcam is Frame.Killcam.
	Killcam uint16 `json:"killcam,omitempty"`
	// Msgs is the messages the server told, as FX (send.go).
	Msgs json.RawMessage `json:"msgs,omitempty"`
	// Inspect is the inspected entity (inspect.go).
	Inspect *inspectMsg `json:"inspect,omitempty"`
	// Joints are [kind, ax, ay, bx, by] each.
	Joints [][5]any `json:"joints,omitempty"`
}

// hudMsg is one item of the game's HUD.
type hudMsg struct {
	At    string   `json:"at"`
	K     string   `json:"k"`
	Text  string   `json:"text"`
	V     *float64 `json:"v,omitempty"`
	Max   *float64 `json:"max,omitempty"`
	Lines []string `json:"lines,omitempty"`
}

// pose is an entity's pose as [id,x,y,angle,scale].
type pose [5]*float64

// transform is [x,y,angle,scale].
type transform [4]*float64

type netMsg struct {
	RTTms            *float64 `json:"rtt_ms"`
	LossPermille     *float64 `json:"loss_permille"`
	BytesInPerS      *float64 `json:"bytes_in_per_s"`
	BytesOutPerS     *float64 `json:"bytes_out_per_s"`
	SnapshotsPerS    *float64 `json:"snapshots_per_s"`
	CorrectionsPerS  *float64 `json:"corrections_per_s"`
	PacingLowWater   *float64 `json:"pacing_low_water"`
	PacingTarget     *float64 `json:"pacing_target"`
	TickSpeed        *float64 `json:"tick_speed"`
	InterpDelayTicks *float64 `json:"interp_delay_ticks"`
	InterpStalls     *float64 `json:"interp_stalls"`
}

// encodeFrame returns the frame message for f, numbered seq.
func encodeFrame(seq uint64, f *Frame) []byte {
	ns := make(nums, 0, 5*(len(f.Entities)+len(f.Samples))+len(f.Dev)+2*len(f.HUD)+11+4)
	poses := func(ps []Pose) []pose {
		out := make([]pose, len(ps))
		for i := range ps {
			p := &ps[i]
			out[i] = pose{ns.exact(float64(packID(p.ID))), ns.num(p.X), ns.num(p.Y), ns.num(p.Angle), ns.num(p.Scale)}
		}
		return out
	}
	m := frameMsg{
		T:       "frame",
		Seq:     seq,
		Tick:    f.Tick,
		Own:     packID(f.Own),
		E:       poses(f.Entities),
		Dev:     make([][2]any, len(f.Dev)),
		Leased:  make([]uint64, len(f.Leased)),
		Samples: poses(f.Samples),
	}
	for i, s := range f.Dev {
		m.Dev[i] = [2]any{s.Label, ns.num(s.Value)}
	}
	if len(f.Errors) > 0 {
		m.Errors, m.Errs = f.Errors[max(0, len(f.Errors)-MaxErrors):], max(f.Errs, len(f.Errors))
	}
	m.Notice, m.Killcam = f.Notice, f.Killcam
	for _, j := range f.Joints {
		m.Joints = append(m.Joints, [5]any{j.Kind, ns.num(j.AX), ns.num(j.AY), ns.num(j.BX), ns.num(j.BY)})
	}
	if f.Inspect != nil {
		m.Inspect = &inspectMsg{ID: packID(f.Inspect.ID), Lines: f.Inspect.Lines}
	}
	for _, l := range f.Looks {
		lm := []any{packID(l.ID), l.Color, l.Label, l.Visible}
		if l.State != "" {
			lm = append(lm, l.State)
		}
		m.Looks = append(m.Looks, lm)
	}
	for _, h := range f.HUD {
		hm := hudMsg{At: h.At, K: h.Kind, Text: h.Text, Lines: h.Lines}
		if h.Kind == "bar" {
			hm.V, hm.Max = ns.num(h.Value), ns.num(h.Max)
		}
		m.HUD = append(m.HUD, hm)
	}
	if n := f.Net; n != nil {
		m.Net = &netMsg{
			RTTms:            ns.num(n.RTTms),
			LossPermille:     ns.num(n.LossPermille),
			BytesInPerS:      ns.num(n.BytesInPerS),
			BytesOutPerS:     ns.num(n.BytesOutPerS),
			SnapshotsPerS:    ns.num(n.SnapshotsPerS),
			CorrectionsPerS:  ns.num(n.CorrectionsPerS),
			PacingLowWater:   ns.num(n.PacingLowWater),
			PacingTarget:     ns.num(n.PacingTarget),
			TickSpeed:        ns.num(n.TickSpeed),
			InterpDelayTicks: ns.num(n.InterpDelayTicks),
			InterpStalls:     ns.num(n.InterpStalls),
		}
	}
	if g := f.Ghost; g != nil {
		m.Ghost = &transform{ns.num(g.X), ns.num(g.Y), ns.num(g.Angle), ns.num(g.Scale)}
	}
	for i, id := range f.Leased {
		m.Leased[i] = packID(id)
	}
	if len(f.Effects) > 0 {
		buf := make([]byte, 0, 128*len(f.Effects))
		buf = append(buf, '[')
		for i := range f.Effects {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendEffect(buf, &f.Effects[i])
		}
		m.FX = append(buf, ']')
	}
	if len(f.Messages) > 0 {
		buf := make([]byte, 0, 64*len(f.Messages))
		buf = append(buf, '[')
		for i := range f.Messages {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendEffect(buf, &f.Messages[i])
		}
		m.Msgs = append(buf, ']')
	}
	return marshal(&m)
}

// appendEffect appends e as [seq,"name",id,{fields}], the fields in key
// order as encoding/json would write them, numbers rounded as nums.num
// rounds them (null when not finite), values of other types left out.
func appendEffect(b []byte, e *Effect) []byte {
	b = append(b, '[')
	b = strconv.AppendUint(b, e.Seq, 10)
	b = append(b, ',')
	b = appendString(b, e.Name)
	b = append(b, ',')
	b = strconv.AppendUint(b, packID(e.Entity), 10)
	b = append(b, ",{"...)
	var keys [16]string
	ks := keys[:0]
	for k, v := range e.Fields {
		switch v.(type) {
		case float64, string, bool:
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	for i, k := range ks {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		switch v := e.Fields[k].(type) {
		case float64:
			b = appendNum(b, v)
		case string:
			b = appendString(b, v)
		case bool:
			b = strconv.AppendBool(b, v)
		}
	}
	return append(b, "}]"...)
}

// appendNum appends v as nums.num and encoding/json write it.
func appendNum(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	if math.Abs(v) < 1e15 {
		v = math.Round(v*precision) / precision
	}
	if v == 0 {
		v = 0 // turns -0 into 0
	}
	format := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	return strconv.AppendFloat(b, v, format, -1, 64)
}

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD,
// as encoding/json writes it.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// sceneMsg is the scene message.
type sceneMsg struct {
	T      string    `json:"t"` // "scene"
	Bodies []bodyMsg `json:"bodies"`
}

type bodyMsg struct {
	ID     uint64     `json:"id"`
	Name   string     `json:"name"`
	Kind   string     `json:"kind"`
	Color  string     `json:"color"`
	Style  string     `json:"style,omitempty"`
	Label  string     `json:"label,omitempty"`
	Order  int        `json:"order,omitempty"`
	Role   string     `json:"role,omitempty"`
	Shapes []any      `json:"shapes"` // *boxMsg, *circleMsg or *pathMsg
	Sprite *spriteMsg `json:"sprite,omitempty"`
}

// spriteMsg is a body's sprite.
type spriteMsg struct {
	Image      string           `json:"image"`
	W          *float64         `json:"w"`
	H          *float64         `json:"h"`
	X          *float64         `json:"x"`
	Y          *float64         `json:"y"`
	A          *float64         `json:"a"`
	Cols       int              `json:"cols"`
	Rows       int              `json:"rows"`
	Frame      int              `json:"frame"`
	Animations map[string][]int `json:"anims,omitempty"`
	Animation  string           `json:"anim,omitempty"`
	FPS        *float64         `json:"fps"`
}

// A shape's fields are its kind ("box", "circle", "polygon" or "chain"),
// its offset, what that kind has, and whether it is a sensor.

type boxMsg struct {
	K      string   `json:"k"`
	X      *float64 `json:"x"`
	Y      *float64 `json:"y"`
	HX     *float64 `json:"hx"`
	HY     *float64 `json:"hy"`
	A      *float64 `json:"a"`
	Sensor bool     `json:"sensor"`
}

type circleMsg struct {
	K      string   `json:"k"`
	X      *float64 `json:"x"`
	Y      *float64 `json:"y"`
	R      *float64 `json:"r"`
	Sensor bool     `json:"sensor"`
}

// pathMsg is a polygon or a chain: P are its points as [x,y].
type pathMsg struct {
	K      string        `json:"k"`
	X      *float64      `json:"x"`
	Y      *float64      `json:"y"`
	P      [][2]*float64 `json:"p"`
	Loop   bool          `json:"loop"`
	Sensor bool          `json:"sensor"`
}

// encodeScene returns the scene message for sc.
func encodeScene(sc *Scene) []byte {
	var ns nums
	m := sceneMsg{T: "scene", Bodies: make([]bodyMsg, len(sc.Bodies))}
	for i := range sc.Bodies {
		b := &sc.Bodies[i]
		bm := bodyMsg{ID: packID(b.ID), Name: b.Name, Kind: b.Kind, Color: b.Color, Style: b.Style, Label: b.Label,
			Order: b.Order, Role: b.Role, Shapes: make([]any, len(b.Shapes))}
		for j := range b.Shapes {
			s := &b.Shapes[j]
			k, x, y := s.Kind.String(), ns.num(s.Offset.X), ns.num(s.Offset.Y)
			switch s.Kind {
			case entity.Box:
				bm.Shapes[j] = &boxMsg{K: k, X: x, Y: y, HX: ns.num(s.HalfW), HY: ns.num(s.HalfH), A: ns.num(s.Angle), Sensor: s.Sensor}
			case entity.Circle:
				bm.Shapes[j] = &circleMsg{K: k, X: x, Y: y, R: ns.num(s.Radius), Sensor: s.Sensor}
			default:
				p := make([][2]*float64, len(s.Points))
				for n, pt := range s.Points {
					p[n] = [2]*float64{ns.num(pt.X), ns.num(pt.Y)}
				}
				bm.Shapes[j] = &pathMsg{K: k, X: x, Y: y, P: p, Loop: s.Loop, Sensor: s.Sensor}
			}
		}
		if sp := b.Sprite; sp != nil {
			bm.Sprite = &spriteMsg{Image: sp.Image, W: ns.num(sp.W), H: ns.num(sp.H), X: ns.num(sp.Offset.X), Y: ns.num(sp.Offset.Y),
				A: ns.num(sp.Angle), Cols: sp.Columns, Rows: sp.Rows, Frame: sp.Frame, Animations: sp.Animations, Animation: sp.Animation, FPS: ns.num(sp.FPS)}
		}
		m.Bodies[i] = bm
	}
	return marshal(&m)
}

// linkMsg is the link message: the simulator's setting, and whether the
// page may change it.
type linkMsg struct {
	T         string   `json:"t"` // "link"
	Enabled   bool     `json:"enabled"`
	LatencyMS *float64 `json:"latency_ms"`
	JitterMS  *float64 `json:"jitter_ms"`
	LossPct   *float64 `json:"loss_pct"`
}

// encodeLink returns the link message for l.
func encodeLink(l Link, enabled bool) []byte {
	var ns nums
	return marshal(&linkMsg{
		T:         "link",
		Enabled:   enabled,
		LatencyMS: ns.num(float64(l.Latency) / float64(time.Millisecond)),
		JitterMS:  ns.num(float64(l.Jitter) / float64(time.Millisecond)),
		LossPct:   ns.num(l.Loss * 100),
	})
}

// helloMsg is the first message of every connection: the actions and
// their bindings, in command order.
type helloMsg struct {
	T         string      `json:"t"` // "hello"
	Axes      []axisMsg   `json:"axes"`
	Buttons   []buttonMsg `json:"buttons"`
	ViewWidth *float64    `json:"view_width,omitempty"`
	Title     string      `json:"title,omitempty"`
	Camera    *cameraMsg  `json:"camera,omitempty"`
	Sounds    []soundMsg  `json:"sounds,omitempty"`
	Renderer  string      `json:"renderer,omitempty"`
	Guests    int         `json:"guests,omitempty"`
}

type soundMsg struct {
	Event  string  `json:"event"`
	Change string  `json:"change,omitempty"`
	File   string  `json:"file"`
	Volume float64 `json:"volume"`
	Range  float64 `json:"range"`
}

// cameraMsg is the hello's camera; box is [minX, minY, maxX, maxY].
type cameraMsg struct {
	Mode     string      `json:"mode"`
	Center   *[2]float64 `json:"center,omitempty"`
	Box      *[4]float64 `json:"box,omitempty"`
	MinWidth float64     `json:"min_width,omitempty"`
	MaxWidth float64     `json:"max_width,omitempty"`
}

type axisMsg struct {
	Name     string   `json:"name"`
	Negative []string `json:"negative"`
	Positive []string `json:"positive"`
	Mouse    string   `json:"mouse"`
	Reach    float64  `json:"reach,omitempty"` // point_x, point_y
}

type buttonMsg struct {
	Name  string   `json:"name"`
	Keys  []string `json:"keys"`
	Mouse string   `json:"mouse"`
}

// pageHello is what the hello says of the page besides the actions: its
// title ("": the page's own), its camera (nil or a zero Mode: the page's,
// following the own entity), the project's renderer script ("": the
// page's drawing) and sounds.
type pageHello struct {
	Title    string
	Camera   *Camera
	Renderer string
	Sounds   []Sound
}

// encodeHello returns the hello message for a, a view width in metres
// (0: the page's default) and pg.
func encodeHello(a *Actions, viewWidth float64, pg pageHello) []byte {
	title, cam, sounds := pg.Title, pg.Camera, pg.Sounds
	m := helloMsg{T: "hello", Axes: make([]axisMsg, len(a.Axes)), Buttons: make([]buttonMsg, len(a.Buttons)), Title: title, Renderer: pg.Renderer,
		Guests: min(max(a.Guests, 0), MaxLocal-1)}
	if cam != nil && cam.Mode != "" {
		m.Camera = &cameraMsg{Mode: cam.Mode, MinWidth: finiteOr0(cam.MinWidth), MaxWidth: finiteOr0(cam.MaxWidth)}
		switch cam.Mode {
		case "fixed":
			m.Camera.Center = &[2]float64{finiteOr0(cam.Center.X), finiteOr0(cam.Center.Y)}
		case "fit":
			if b := cam.Box; b != ([2]entity.Vec2{}) {
				m.Camera.Box = &[4]float64{finiteOr0(b[0].X), finiteOr0(b[0].Y), finiteOr0(b[1].X), finiteOr0(b[1].Y)}
			}
		}
	}
	if viewWidth > 0 {
		var ns nums
		m.ViewWidth = ns.num(viewWidth)
	}
	for _, so := range sounds {
		m.Sounds = append(m.Sounds, soundMsg{Event: so.Event, Change: so.Change, File: so.File, Volume: finiteOr0(so.Volume), Range: finiteOr0(so.Range)})
	}
	for i, ax := range a.Axes {
		m.Axes[i] = axisMsg{Name: ax.Name, Negative: orEmpty(ax.Negative), Positive: orEmpty(ax.Positive), Mouse: ax.Mouse, Reach: finiteOr0(ax.Reach)}
	}
	for i, bt := range a.Buttons {
		m.Buttons[i] = buttonMsg{Name: bt.Name, Keys: orEmpty(bt.Keys), Mouse: bt.Mouse}
	}
	return marshal(&m)
}

// finiteOr0 is f, or 0 when it is not finite (encoding/json refuses those).
func finiteOr0(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// boardMsg is the board message.
type boardMsg struct {
	T       string        `json:"t"` // "board"
	Columns []string      `json:"cols"`
	Rows    []boardRowMsg `json:"rows"`
	State   [][2]any      `json:"state"` // [label, value]
}

type boardRowMsg struct {
	Name   string     `json:"name"`
	Own    bool       `json:"own"`
	RTTms  *float64   `json:"rtt_ms"`
	Values []*float64 `json:"v"`
}

// encodeBoard returns the board message for b.
func encodeBoard(b *Board) []byte {
	var ns nums
	m := boardMsg{T: "board", Columns: orEmpty(b.Columns), Rows: make([]boardRowMsg, len(b.Rows)), State: make([][2]any, len(b.State))}
	for i, r := range b.Rows {
		vs := make([]*float64, len(r.Values))
		for j, v := range r.Values {
			vs[j] = ns.num(v)
		}
		m.Rows[i] = boardRowMsg{Name: r.Name, Own: r.Own, RTTms: ns.num(r.RTTms), Values: vs}
	}
	for i, st := range b.State {
		m.State[i] = [2]any{st.Label, ns.num(st.Value)}
	}
	return marshal(&m)
}

type correctionsMsg struct {
	T    string  `json:"t"` // "corrections"
	List [][]any `json:"list"`
}

// encodeCorrections returns the corrections message for list, oldest
// first: each [tick, entity, what, size, cause, touched].
func encodeCorrections(list []Correction) []byte {
	var ns nums
	m := correctionsMsg{T: "corrections", List: make([][]any, len(list))}
	for i, c := range list {
		m.List[i] = []any{c.Tick, c.Entity, c.What, ns.num(c.Size), c.Cause, c.Touched}
	}
	return marshal(&m)
}

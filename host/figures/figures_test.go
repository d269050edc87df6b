package figures

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"math"
	"reflect"
	"strings"
	"testing"
)

// report is a report's typed fields, as a host report declares them.
type report struct {
	State  string         `json:"state"`
	Joins  uint64         `json:"joins"`
	Wall   float64        `json:"wall_s"`
	Events map[string]int `json:"events"`
	Idle   uint64         `json:"idle,omitempty"`
	Web    *webPart       `json:"web,omitempty"`
	other  Extra
}

type webPart struct {
	Drops uint64         `json:"drops"`
	Peers map[string]int `json:"peers"`
}

func (r report) MarshalJSON() ([]byte, error) {
	type plain report
	b, err := json.Marshal(plain(r))
	if err != nil {
		return nil, err
	}
	return r.other.AppendTo(b)
}

// testSet is a set of every kind of figure, reading the variables it
// returns a pointer to.
func testSet() (*Set, *struct {
	joins, widgets uint64
	wall, left     float64
	events         map[string]uint64
}) {
	src := &struct {
		joins, widgets uint64
		wall, left     float64
		events         map[string]uint64
	}{joins: 3, widgets: 7, wall: 1.5, left: math.NaN(), events: map[string]uint64{"hit": 2, "coin": 1}}
	s := &Set{}
	prepared := 0
	s.Prepare(func() { prepared++ })
	s.Add(
		Figure{Key: "joins", Metric: "vkm_joins_total", Help: "Players seated.", Status: "joins %d", Uint: func() uint64 { return src.joins }},
		Figure{Status: "draining, %.0fs left", Float: func() float64 { return src.left }},
		Figure{Key: "wall_s", Float: func() float64 { return src.wall }},
		Figure{Key: "events", Metric: "vkm_events_total", Label: "name", Uints: func(each func(string, uint64)) {
			for _, n := range []string{"coin", "hit"} {
				each(n, src.events[n])
			}
		}},
		Figure{Key: "web.drops", Metric: "vkm_web_drops_total", Uint: func() uint64 { return 4 }},
		Figure{Key: "web.peers", Label: "transport", Kind: Gauge, Uints: func(each func(string, uint64)) { each("webrtc", 2) }},
		Figure{Key: "widgets", Metric: "vkm_widgets_total", Status: "widgets %d", Uint: func() uint64 { return src.widgets }},
	)
	return s, src
}

// The report decodes the figures it has fields for into them, nested
// ones too, and writes the others beside them; figures without a Key are
// not in it.
func TestFillDecodesTheReportAndKeepsTheRest(t *testing.T) {
	s, _ := testSet()
	var v Values
	s.Read(&v, Everywhere)
	r := report{State: "served"}
	r.other = Fill(&r, &v)
	if r.Joins != 3 || r.Wall != 1.5 || r.Events["hit"] != 2 || r.Web == nil || r.Web.Drops != 4 || r.Web.Peers["webrtc"] != 2 || r.State != "served" {
		t.Errorf("filled %+v (web %+v)", r, r.Web)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"state":"served","joins":3,"wall_s":1.5,"events":{"coin":1,"hit":2},"web":{"drops":4,"peers":{"webrtc":2}},"widgets":7}`
	if string(b) != want {
		t.Errorf("report\n%s\nwant\n%s", b, want)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, b, "", "  "); err != nil || !strings.Contains(indented.String(), "\n  \"widgets\": 7\n") {
		t.Errorf("indented: %v\n%s", err, indented.String())
	}
	if extra, err := (Extra{}).AppendTo([]byte("{}")); err != nil || string(extra) != "{}" {
		t.Errorf("nothing appended to {}: %s, %v", extra, err)
	}
	if b, err := (Extra{[]keyed{{"a", 1}}}).AppendTo([]byte("{} ")); err != nil || string(b) != `{"a":1}` {
		t.Errorf("one appended to an empty object: %s, %v", b, err)
	}
}

// The status line shows the figures with a Status, in order, leaving out
// a Float that has no value now; a logged status takes them as attributes.
func TestStatusShowsItsFiguresInOrder(t *testing.T) {
	s, src := testSet()
	var v Values
	s.Read(&v, InStatus)
	if got := string(v.AppendStatus(nil)); got != "joins 3 widgets 7" {
		t.Errorf("status %q", got)
	}
	src.left = 12.4
	s.Read(&v, InStatus)
	if got := string(v.AppendStatus([]byte("tick 9"))); got != "tick 9 joins 3 draining, 12s left widgets 7" {
		t.Errorf("status %q", got)
	}
	// A client's figures, whose status is logged.
	logged := &Set{}
	logged.Add(Figure{Status: "rtt_ms", Float: func() float64 { return 12.5 }}, Figure{Status: "corrections", Uint: func() uint64 { return 3 }},
		Figure{Status: "stale", Float: math.NaN})
	logged.Read(&v, InStatus)
	var line bytes.Buffer
	slog.New(slog.NewTextHandler(&line, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey || a.Key == slog.LevelKey {
			return slog.Attr{}
		}
		return a
	}})).Info("status", v.Attrs(nil)...)
	if got := strings.TrimSpace(line.String()); got != `msg=status rtt_ms=12.5 corrections=3` {
		t.Errorf("logged %q", got)
	}
	// Only what was asked for is read.
	s.Read(&v, InStatus)
	if _, ok := v.json(2); ok {
		t.Error("a report-only figure was read for the status line")
	}
}

// The metrics are every figure with a Metric, a sample a label, and a
// copy handed to another goroutine keeps what was read.
func TestSamplesAndCopies(t *testing.T) {
	s, src := testSet()
	var v, c Values
	s.Read(&v, InMetrics)
	c.CopyFrom(&v)
	src.joins = 99
	s.Read(&v, InMetrics)
	got := map[string]float64{}
	for i := range c.Len() {
		f := c.Figure(i)
		c.Samples(i, func(label string, x float64) { got[f.Metric+"/"+label] = x })
	}
	want := map[string]float64{"vkm_joins_total/": 3, "vkm_events_total/coin": 1, "vkm_events_total/hit": 2, "vkm_web_drops_total/": 4, "vkm_widgets_total/": 7}
	if len(got) != len(want) {
		t.Errorf("samples %v, want %v", got, want)
	}
	for k, x := range want {
		if got[k] != x {
			t.Errorf("%s = %v, want %v", k, got[k], x)
		}
	}
}

// Reading a set once it has been read makes no allocation.
func TestReadMakesNoAllocation(t *testing.T) {
	s, _ := testSet()
	var v, c Values
	s.Read(&v, Everywhere)
	c.CopyFrom(&v)
	if n := testing.AllocsPerRun(100, func() {
		s.Read(&v, InStatus|InMetrics)
		c.CopyFrom(&v)
	}); n != 0 {
		t.Errorf("%v allocations a read", n)
	}
}

func TestAddRefusesAFigureWithoutOneReader(t *testing.T) {
	for _, f := range []Figure{
		{Key: "none"},
		{Key: "two", Uint: func() uint64 { return 0 }, Float: func() float64 { return 0 }},
		{Key: "unlabelled", Uints: func(func(string, uint64)) {}},
		{Key: "labelled", Label: "x", Uint: func() uint64 { return 0 }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: added", f.Key)
				}
			}()
			(&Set{}).Add(f)
		}()
	}
}

// wide is a report of every kind of field Fill may meet.
type wide struct {
	I     int                `json:"i"`
	I8    int8               `json:"i8"`
	U8    uint8              `json:"u8"`
	U     uint64             `json:"u"`
	F32   float32            `json:"f32"`
	F     float64            `json:"f"`
	P     *float64           `json:"p"`
	A     any                `json:"a"`
	M     map[string]int     `json:"m"`
	MF    map[string]float32 `json:"mf"`
	MA    map[string]any     `json:"ma"`
	S     string             `json:"s"`
	Inner *wideInner         `json:"inner"`
	Kept  map[string]uint64  `json:"kept"`
	wideEmbedded
	*WideEmbeddedPtr
}

type wideInner struct {
	X uint32             `json:"x"`
	Y map[string]float64 `json:"y"`
	Z struct {
		Deep int `json:"deep"`
	} `json:"z"`
}

type wideEmbedded struct {
	E uint16 `json:"e"`
}

type WideEmbeddedPtr struct {
	EP float64 `json:"ep"`
}

// TestFillMatchesJSON: Fill sets a report's fields as encoding/json did
// from the figures' JSON, and fails where it failed.
func TestFillMatchesJSON(t *testing.T) {
	vals := []any{uint64(0), uint64(7), uint64(255), uint64(256), uint64(1 << 63), float64(0), math.Copysign(0, -1), 1.5, -2.0, 1e6, 1e-7, 1e21, 3e38, 4e38, -129.0, 127.0,
		map[string]uint64{"a": 1, "b": 300}, map[string]float64{"a": 0.5, "c": -1}}
	keys := []string{"i", "i8", "u8", "u", "f32", "f", "p", "a", "m", "mf", "ma", "s", "inner", "inner.x", "inner.y", "inner.z", "inner.z.deep", "kept", "e", "ep", "none"}
	for _, key := range keys {
		for _, val := range vals {
			// encoding/json, as Fill was.
			obj := map[string]any{}
			at := obj
			k := key
			for {
				outer, inner, nested := strings.Cut(k, ".")
				if !nested {
					at[k] = val
					break
				}
				next := map[string]any{}
				at[outer] = next
				at, k = next, inner
			}
			want := wide{Kept: map[string]uint64{"old": 1}}
			b, _ := json.Marshal(obj)
			werr := json.Unmarshal(b, &want)
			got := wide{Kept: map[string]uint64{"old": 1}}
			err := setObject(reflect.ValueOf(&got), obj)
			if (err == nil) != (werr == nil) {
				t.Errorf("%s = %v: set says %v, encoding/json %v", key, val, err, werr)
				continue
			}
			if err == nil && !reflect.DeepEqual(got, want) {
				t.Errorf("%s = %v:\nset           %+v\nencoding/json %+v", key, val, got, want)
			}
		}
	}
}

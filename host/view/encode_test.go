package view

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"
	"unicode/utf8"

	"vkm/internal/entity"
)

// TestNum checks how numbers are written: rounded to 1/precision, -0 as
// 0, and null for a NaN or an infinity, which encoding/json refuses.
func TestNum(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-2.5, "-2.5"},
		{0.123456, "0.1235"}, {1e-6, "0"}, {123456.78901, "123456.789"},
		{1e20, "100000000000000000000"}, {1.5e21, "1.5e+21"}, {-9e300, "-9e+300"},
		{math.NaN(), "null"}, {math.Inf(1), "null"}, {math.Inf(-1), "null"},
	} {
		var ns nums
		if got := string(marshal(ns.num(tc.v))); got != tc.want {
			t.Errorf("num(%v) = %s, want %s", tc.v, got, tc.want)
		}
	}
}

// TestStrings checks that strings reach the page as what they say, and as
// valid UTF-8: a WebSocket text message that is not makes the browser drop
// the connection.
func TestStrings(t *testing.T) {
	for _, s := range []string{"", "health", `a"b\c`, "tab\there\nnew", "\x00\x1f", "ünïcödé ‰", "<&>\u2028", "bad\xffutf8"} {
		b := encodeFrame(1, &Frame{Dev: []Stat{{s, 1}}})
		if !utf8.Valid(b) {
			t.Errorf("label %q: frame is not valid UTF-8", s)
		}
		var got struct{ Dev [][2]any }
		if err := json.Unmarshal(b, &got); err != nil {
			t.Errorf("label %q: %s: %v", s, b, err)
			continue
		}
		if utf8.ValidString(s) && got.Dev[0][0] != s {
			t.Errorf("label %q decodes to %q", s, got.Dev[0][0])
		}
	}
}

// TestFrameJSON checks that a frame full of awkward values is JSON that
// decodes to what it says.
func TestFrameJSON(t *testing.T) {
	id := entity.ID{Slot: entity.MaxSlot, Gen: 1<<29 - 1}
	f := Frame{
		Tick:     math.MaxUint32,
		Own:      id,
		Entities: []Pose{{ID: id, Transform: entity.Transform{X: math.NaN(), Y: math.Inf(1), Angle: -0.5, Scale: 2}}},
		Dev:      []Stat{{"hp \"quoted\"", 1.5}, {"score", math.NaN()}},
		Net:      &NetStats{RTTms: 12.25, LossPermille: math.Inf(-1), InterpStalls: 3},
		Ghost:    &entity.Transform{X: 1, Y: 2, Angle: 3, Scale: 1},
		Leased:   []entity.ID{{Slot: 5, Gen: 1}},
		Samples:  []Pose{{ID: entity.ID{Slot: 5, Gen: 1}, Transform: entity.Identity}},
	}
	b := encodeFrame(42, &f)
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	packed := float64(uint64(id.Gen)<<24 | uint64(id.Slot))
	if packed != id.Pack() {
		t.Fatalf("packed id %v, Pack %v", packed, id.Pack())
	}
	want := map[string]any{
		"t": "frame", "seq": 42.0, "tick": float64(math.MaxUint32), "own": packed,
		"e":       []any{[]any{packed, nil, nil, -0.5, 2.0}},
		"dev":     []any{[]any{`hp "quoted"`, 1.5}, []any{"score", nil}},
		"ghost":   []any{1.0, 2.0, 3.0, 1.0},
		"leased":  []any{float64(1<<24 | 5)},
		"samples": []any{[]any{float64(1<<24 | 5), 0.0, 0.0, 0.0, 1.0}},
	}
	net := got["net"].(map[string]any)
	delete(got, "net")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("frame decodes to\n%v\nwant\n%v", got, want)
	}
	if len(net) != 11 || net["rtt_ms"] != 12.25 || net["loss_permille"] != nil || net["interp_stalls"] != 3.0 {
		t.Errorf("net = %v", net)
	}

	// Offline and without a ghost, those fields are left out.
	var bare map[string]any
	if err := json.Unmarshal(encodeFrame(1, &Frame{}), &bare); err != nil {
		t.Fatal(err)
	}
	if _, ok := bare["net"]; ok {
		t.Error("a frame without Net has a net field")
	}
	if _, ok := bare["ghost"]; ok {
		t.Error("a frame without Ghost has a ghost field")
	}
}

func TestSceneJSON(t *testing.T) {
	sc := Scene{Bodies: []Body{
		BodyOf(entity.ID{Slot: 1, Gen: 1}, "hall", &entity.BodyDef{Type: entity.Static, Shapes: []entity.Shape{
			{Kind: entity.Chain, Points: []entity.Vec2{{X: -20}, {X: 20}, {X: 20, Y: 24}}, Loop: true},
		}}),
		BodyOf(entity.ID{Slot: 30, Gen: 2}, "pickup", &entity.BodyDef{Shapes: []entity.Shape{
			{Kind: entity.Circle, Radius: 0.4, Sensor: true, Offset: entity.Vec2{X: 0.5}},
			{Kind: entity.Polygon, Points: []entity.Vec2{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 0, Y: 1}}},
		}}),
		BodyOf(entity.ID{Slot: 31, Gen: 1}, "marker", nil),
	}}
	sc.Bodies[0].Color = "#123456"
	var got struct {
		T      string
		Bodies []struct {
			ID                uint64
			Name, Kind, Color string
			Shapes            []map[string]any
		}
	}
	b := encodeScene(&sc)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if got.T != "scene" || len(got.Bodies) != 3 {
		t.Fatalf("scene = %s", b)
	}
	hall, pickup := got.Bodies[0], got.Bodies[1]
	if hall.ID != 1<<24|1 || hall.Kind != "static" || hall.Color != "#123456" || hall.Shapes[0]["k"] != "chain" || hall.Shapes[0]["loop"] != true {
		t.Errorf("hall = %+v", hall)
	}
	if p := hall.Shapes[0]["p"].([]any); len(p) != 3 || !reflect.DeepEqual(p[2], []any{20.0, 24.0}) {
		t.Errorf("hall points = %v", p)
	}
	if c := pickup.Shapes[0]; c["k"] != "circle" || c["r"] != 0.4 || c["x"] != 0.5 || c["sensor"] != true {
		t.Errorf("pickup circle = %v", c)
	}
	if p := pickup.Shapes[1]; p["k"] != "polygon" || len(p["p"].([]any)) != 3 {
		t.Errorf("pickup polygon = %v", p)
	}
	if m := got.Bodies[2]; m.Kind != "" || len(m.Shapes) != 0 {
		t.Errorf("marker = %+v", m)
	}
}

func TestHelloJSON(t *testing.T) {
	var got struct {
		T    string
		Axes []struct {
			Name, Mouse        string
			Negative, Positive []string
		}
		Buttons []struct {
			Name, Mouse string
			Keys        []string
		}
	}
	b := encodeHello(&arenaActions, 0, pageHello{})
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if got.T != "hello" || len(got.Axes) != 3 || len(got.Buttons) != 2 ||
		!reflect.DeepEqual(got.Axes[0].Positive, []string{"KeyD", "ArrowRight"}) ||
		got.Axes[2].Mouse != "y" || got.Buttons[1].Mouse != "left" || got.Buttons[0].Keys[0] != "Space" {
		t.Errorf("hello = %s", b)
	}
}

// arenaFrame is a frame as a client of the arena publishes it mid-game:
// 60 drawn entities (players, pickups, the hall) at poses with all their
// digits, the own player's Health and Score on the HUD, the net panel, the
// ghost, what the player leases and one sample per interpolated entity.
func arenaFrame() Frame {
	const n = 60
	f := Frame{
		Tick:     123456,
		Own:      entity.ID{Slot: 3, Gen: 2},
		Entities: make([]Pose, n),
		Dev:      []Stat{{"Health.hp", 75}, {"Score.kills", 12}, {"Score.deaths", 4}},
		Net: &NetStats{
			RTTms: 38.4, LossPermille: 2.5, BytesInPerS: 21876.3, BytesOutPerS: 4310.7,
			SnapshotsPerS: 32, CorrectionsPerS: 0.5, PacingLowWater: 1, PacingTarget: 2.3,
			TickSpeed: 1.002, InterpDelayTicks: 3.1, InterpStalls: 0,
		},
		Ghost:  &entity.Transform{X: -3.1234567, Y: 1.0876543, Angle: 0, Scale: 1},
		Leased: []entity.ID{{Slot: 3, Gen: 2}, {Slot: 17, Gen: 1}},
	}
	for i := range f.Entities {
		x := float64(i)*0.6180339887 - 18.03
		f.Entities[i] = Pose{
			ID:        entity.ID{Slot: uint32(i + 1), Gen: uint32(1 + i%3)},
			Transform: entity.Transform{X: x, Y: 0.8 + float64(i%7)*1.3333333, Angle: float64(i%5) * 0.7853981634, Scale: 1},
		}
		if i != 2 && i%20 != 0 { // the own player and the hall are not interpolated
			f.Samples = append(f.Samples, Pose{ID: f.Entities[i].ID, Transform: entity.Transform{X: x - 0.0123456, Y: f.Entities[i].Y, Angle: f.Entities[i].Angle, Scale: 1}})
		}
	}
	return f
}

// BenchmarkPublishEncode encodes an arena frame the way Publish does: the
// view sends host.DrawRate of them a second.
func BenchmarkPublishEncode(b *testing.B) {
	f := arenaFrame()
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(encodeFrame(1, &f))
	}
	b.ReportMetric(float64(n), "bytes/frame")
}

// BenchmarkPublishEncodeEffects is the arena frame in a fire fight: four
// players' shots, two hits and a death within the last quarter second.
func BenchmarkPublishEncodeEffects(b *testing.B) {
	f := arenaFrame()
	for i := range 7 {
		name := []string{"shot", "shot", "hit", "shot", "hit", "shot", "death"}[i]
		f.Effects = append(f.Effects, Effect{Seq: uint64(100 + i), Name: name, Entity: f.Entities[i].ID,
			Fields: map[string]any{"x1": -3.123456, "y1": 1.23456, "x2": 9.87654, "y2": 1.23456, "by": float64(i + 1)}})
	}
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(encodeFrame(1, &f))
	}
	b.ReportMetric(float64(n), "bytes/frame")
}

// TestMessageText pins the text of each message as the page reads it:
// field names and order, entities and samples as [id,x,y,angle,scale],
// the developer panel's stats as [label,value], HUD items as objects, empty lists as [] rather than null.
func TestMessageText(t *testing.T) {
	one := entity.ID{Slot: 1, Gen: 1}
	frame := Frame{
		Tick:     9,
		Own:      one,
		Entities: []Pose{{ID: one, Transform: entity.Transform{X: 1.5, Y: -2, Angle: 0.25, Scale: 1}}},
		Dev:      []Stat{{"Health.hp", 100}},
		Ghost:    &entity.Transform{X: 1, Y: -2, Scale: 1},
		Leased:   []entity.ID{one},
		Samples:  []Pose{{ID: one, Transform: entity.Identity}},
	}
	scene := Scene{Bodies: []Body{{ID: one, Name: "crate", Kind: "dynamic", Shapes: []Shape{
		{Kind: entity.Box, HalfW: 0.5, HalfH: 0.25, Angle: 0.1},
		{Kind: entity.Circle, Radius: 2, Offset: entity.Vec2{X: 1}, Sensor: true},
		{Kind: entity.Chain, Points: []entity.Vec2{{X: 0, Y: 0}, {X: 3, Y: 4}}, Loop: true},
		{Kind: entity.Polygon},
	}}}}
	for _, tc := range []struct {
		name string
		got  []byte
		want string
	}{
		{"frame", encodeFrame(3, &frame), `{"t":"frame","seq":3,"tick":9,"own":16777217,"e":[[16777217,1.5,-2,0.25,1]],"dev":[["Health.hp",100]],` +
			`"ghost":[1,-2,0,1],"leased":[16777217],"samples":[[16777217,0,0,0,1]]}`},
		{"bare frame", encodeFrame(1, &Frame{}), `{"t":"frame","seq":1,"tick":0,"own":0,"e":[],"dev":[],"leased":[],"samples":[]}`},
		{"effects", encodeFrame(1, &Frame{Effects: []Effect{
			{Seq: 7, Name: "shot", Entity: one, Fields: map[string]any{"y1": 1.23456, "x1": -2.0, "by": 1.0}},
			{Seq: 8, Name: "note", Fields: map[string]any{"who": "ann", "first": true, "skipped": []int{1}}},
		}}), `{"t":"frame","seq":1,"tick":0,"own":0,"e":[],"dev":[],"leased":[],"samples":[],` +
			`"fx":[[7,"shot",16777217,{"by":1,"x1":-2,"y1":1.2346}],[8,"note",0,{"first":true,"who":"ann"}]]}`},
		{"hud", encodeFrame(1, &Frame{HUD: []HUDItem{
			{At: "top", Kind: "text", Text: "round 2"},
			{At: "bottom-left", Kind: "bar", Text: "health", Value: 75.00001, Max: 100},
			{At: "top-right", Kind: "list", Text: "runners", Lines: []string{"ann 3", "bo 1"}},
		}}), `{"t":"frame","seq":1,"tick":0,"own":0,"e":[],"dev":[],"leased":[],"samples":[],"hud":[` +
			`{"at":"top","k":"text","text":"round 2"},{"at":"bottom-left","k":"bar","text":"health","v":75,"max":100},` +
			`{"at":"top-right","k":"list","text":"runners","lines":["ann 3","bo 1"]}]}`},
		{"errors", encodeFrame(1, &Frame{Errors: []string{"a", "b", "c", "d"}, Errs: 9}),
			`{"t":"frame","seq":1,"tick":0,"own":0,"e":[],"dev":[],"leased":[],"samples":[],"errors":["b","c","d"],"errs":9}`},
		{"looks", encodeFrame(1, &Frame{Looks: []Look{{ID: one, Color: "#48f", Label: "ann 3", Visible: true}, {ID: entity.ID{Slot: 2}}}}),
			`{"t":"frame","seq":1,"tick":0,"own":0,"e":[],"dev":[],"leased":[],"samples":[],"looks":[[16777217,"#48f","ann 3",true],[2,"","",false]]}`},
		{"state", encodeFrame(1, &Frame{Looks: []Look{{ID: one, Visible: true, State: "run"}}}),
			`{"t":"frame","seq":1,"tick":0,"own":0,"e":[],"dev":[],"leased":[],"samples":[],"looks":[[16777217,"","",true,"run"]]}`},
		{"sprite", encodeScene(&Scene{Bodies: []Body{{ID: one, Name: "coin", Sprite: &Sprite{Image: "art/coin.png", W: 0.8, H: 0.8, Columns: 4, Rows: 1,
			Animations: map[string][]int{"spin": {0, 1, 2, 3}}, Animation: "spin", FPS: 10}}}}),
			`{"t":"scene","bodies":[{"id":16777217,"name":"coin","kind":"","color":"","shapes":[],"sprite":{"image":"art/coin.png","w":0.8,"h":0.8,"x":0,"y":0,"a":0,` +
				`"cols":4,"rows":1,"frame":0,"anims":{"spin":[0,1,2,3]},"anim":"spin","fps":10}}]}`},
		{"net", encodeFrame(1, &Frame{Net: &NetStats{RTTms: 40, TickSpeed: 1.001}}), `{"t":"frame","seq":1,"tick":0,"own":0,"e":[],"dev":[],"net":{` +
			`"rtt_ms":40,"loss_permille":0,"bytes_in_per_s":0,"bytes_out_per_s":0,"snapshots_per_s":0,"corrections_per_s":0,` +
			`"pacing_low_water":0,"pacing_target":0,"tick_speed":1.001,"interp_delay_ticks":0,"interp_stalls":0},"leased":[],"samples":[]}`},
		{"scene", encodeScene(&scene), `{"t":"scene","bodies":[{"id":16777217,"name":"crate","kind":"dynamic","color":"","shapes":[` +
			`{"k":"box","x":0,"y":0,"hx":0.5,"hy":0.25,"a":0.1,"sensor":false},` +
			`{"k":"circle","x":1,"y":0,"r":2,"sensor":true},` +
			`{"k":"chain","x":0,"y":0,"p":[[0,0],[3,4]],"loop":true,"sensor":false},` +
			`{"k":"polygon","x":0,"y":0,"p":[],"loop":false,"sensor":false}]}]}`},
		{"empty scene", encodeScene(&Scene{}), `{"t":"scene","bodies":[]}`},
		{"board", encodeBoard(&Board{Columns: []string{"Score.kills", "Score.deaths"},
			Rows:  []BoardRow{{Name: "ann", Own: true, RTTms: 40.25, Values: []float64{3, 1}}, {Name: "bob", Values: []float64{math.NaN(), 0}}},
			State: []Stat{{"Round.left", 93}}}),
			`{"t":"board","cols":["Score.kills","Score.deaths"],"rows":[{"name":"ann","own":true,"rtt_ms":40.25,"v":[3,1]},` +
				`{"name":"bob","own":false,"rtt_ms":0,"v":[null,0]}],"state":[["Round.left",93]]}`},
		{"empty board", encodeBoard(&Board{}), `{"t":"board","cols":[],"rows":[],"state":[]}`},
		{"link", encodeLink(Link{Latency: 80 * time.Millisecond, Jitter: 1500 * time.Microsecond, Loss: 0.02}, true),
			`{"t":"link","enabled":true,"latency_ms":80,"jitter_ms":1.5,"loss_pct":2}`},
		{"hello", encodeHello(&Actions{Axes: []Axis{arenaActions.Axes[0], arenaActions.Axes[1]}, Buttons: arenaActions.Buttons[1:]}, 0, pageHello{}),
			`{"t":"hello","axes":[{"name":"run","negative":["KeyA","ArrowLeft"],"positive":["KeyD","ArrowRight"],"mouse":""},` +
				`{"name":"aim_x","negative":[],"positive":[],"mouse":"x"}],"buttons":[{"name":"fire","keys":["KeyF","Enter"],"mouse":"left"}]}`},
		{"no actions", encodeHello(&Actions{}, 0, pageHello{}), `{"t":"hello","axes":[],"buttons":[]}`},
		{"pointer axis", encodeHello(&Actions{Axes: []Axis{{Name: "px", Mouse: "point_x", Reach: 8}}}, 0, pageHello{}),
			`{"t":"hello","axes":[{"name":"px","negative":[],"positive":[],"mouse":"point_x","reach":8}],"buttons":[]}`},
		{"view width", encodeHello(&Actions{}, 40, pageHello{}), `{"t":"hello","axes":[],"buttons":[],"view_width":40}`},
		{"fit camera", encodeHello(&Actions{}, 0, pageHello{Camera: &Camera{Mode: "fit", Box: [2]entity.Vec2{{X: -14, Y: -9}, {X: 14, Y: 9.5}}, MaxWidth: 60}}),
			`{"t":"hello","axes":[],"buttons":[],"camera":{"mode":"fit","box":[-14,-9,14,9.5],"max_width":60}}`},
		{"fixed camera", encodeHello(&Actions{}, 0, pageHello{Camera: &Camera{Mode: "fixed", Center: entity.Vec2{X: 1, Y: 2}, Box: [2]entity.Vec2{{X: 1}}}}),
			`{"t":"hello","axes":[],"buttons":[],"camera":{"mode":"fixed","center":[1,2]}}`},
		{"sounds", encodeHello(&Actions{}, 0, pageHello{Sounds: []Sound{{Event: "pickup", File: "sounds/pickup.wav", Volume: 1, Range: 40}}, Renderer: "web/draw.js"}),
			`{"t":"hello","axes":[],"buttons":[],"sounds":[{"event":"pickup","file":"sounds/pickup.wav","volume":1,"range":40}],"renderer":"web/draw.js"}`},
		{"title", encodeHello(&Actions{}, 0, pageHello{Title: "Coin \"Yard\""}), `{"t":"hello","axes":[],"buttons":[],"title":"Coin \"Yard\""}`},
		{"looks", encodeScene(&Scene{Bodies: []Body{{ID: one, Name: "player", Kind: "dynamic", Color: "#3fb6ff", Style: "outline", Label: "ann", Order: -2, Role: "own"}}}),
			`{"t":"scene","bodies":[{"id":16777217,"name":"player","kind":"dynamic","color":"#3fb6ff","style":"outline","label":"ann","order":-2,"role":"own","shapes":[]}]}`},
	} {
		if string(tc.got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
	}
}

// TestNonFinite checks that a NaN or an infinity anywhere in a message is
// written as null and leaves the rest of the message as it was.
func TestNonFinite(t *testing.T) {
	bad := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	for _, v := range bad {
		f := Frame{
			Entities: []Pose{{Transform: entity.Transform{X: v, Y: 1, Angle: v, Scale: v}}},
			Dev:      []Stat{{"hp", v}},
			Net:      &NetStats{RTTms: v, InterpStalls: 2},
			Ghost:    &entity.Transform{X: 1, Y: v},
		}
		want := `{"t":"frame","seq":1,"tick":0,"own":0,"e":[[0,null,1,null,null]],"dev":[["hp",null]],"net":{"rtt_ms":null,"loss_permille":0,` +
			`"bytes_in_per_s":0,"bytes_out_per_s":0,"snapshots_per_s":0,"corrections_per_s":0,"pacing_low_water":0,"pacing_target":0,` +
			`"tick_speed":0,"interp_delay_ticks":0,"interp_stalls":2},"ghost":[1,null,0,0],"leased":[],"samples":[]}`
		if got := encodeFrame(1, &f); string(got) != want {
			t.Errorf("frame with %v:\n got %s\nwant %s", v, got, want)
		}
		fx := encodeFrame(1, &Frame{Effects: []Effect{{Seq: 1, Name: "hit", Fields: map[string]any{"x": v, "y": 2.0}}}})
		if want := `{"t":"frame","seq":1,"tick":0,"own":0,"e":[],"dev":[],"leased":[],"samples":[],"fx":[[1,"hit",0,{"x":null,"y":2}]]}`; string(fx) != want {
			t.Errorf("effect with %v:\n got %s\nwant %s", v, fx, want)
		}
		sc := Scene{Bodies: []Body{{Shapes: []Shape{
			{Kind: entity.Box, HalfW: v, Offset: entity.Vec2{X: v}},
			{Kind: entity.Circle, Radius: v},
			{Kind: entity.Polygon, Points: []entity.Vec2{{X: v, Y: 1}}},
		}}}}
		wantScene := `{"t":"scene","bodies":[{"id":0,"name":"","kind":"","color":"","shapes":[` +
			`{"k":"box","x":null,"y":0,"hx":null,"hy":0,"a":0,"sensor":false},` +
			`{"k":"circle","x":0,"y":0,"r":null,"sensor":false},` +
			`{"k":"polygon","x":0,"y":0,"p":[[null,1]],"loop":false,"sensor":false}]}]}`
		if got := encodeScene(&sc); string(got) != wantScene {
			t.Errorf("scene with %v:\n got %s\nwant %s", v, got, wantScene)
		}
		if got, want := encodeLink(Link{Loss: v}, false), `{"t":"link","enabled":false,"latency_ms":0,"jitter_ms":0,"loss_pct":null}`; string(got) != want {
			t.Errorf("link with %v:\n got %s\nwant %s", v, got, want)
		}
	}
}

// TestEffectsReadAsEncodingJSONWouldWriteThem writes effects with awkward
// names, strings and numbers and reads them back: each is what
// encoding/json makes of the same values, rounded as every number to the
// page is, a non-finite number null and a value of another type left out.
func TestEffectsReadAsEncodingJSONWouldWriteThem(t *testing.T) {
	effects := []Effect{
		{Seq: 1, Name: "shot", Entity: entity.ID{Slot: 5, Gen: 3}, Fields: map[string]any{
			"x1": 1.23456789, "y1": -0.00004, "tiny": 1e-9, "huge": 3e25, "neg": -7.5, "nan": math.NaN(), "inf": math.Inf(-1)}},
		{Seq: 1 << 40, Name: "quote \" back \\ ctl \x01\n\t <&> \u2028 é 🎯 bad \xff", Fields: map[string]any{
			"s": "a\"b\\c\x7f\u2029", "t": true, "f": false, "list": []any{1.0}, "n": nil, "é": 2.0}},
		{Name: ""},
	}
	for i := range effects {
		e := &effects[i]
		var got []any
		if err := json.Unmarshal(appendEffect(nil, e), &got); err != nil {
			t.Fatalf("effect %d: %v in %s", i, err, appendEffect(nil, e))
		}
		fields := map[string]any{}
		for k, v := range e.Fields {
			switch v := v.(type) {
			case float64:
				var ns nums
				fields[k] = ns.num(v)
			case string, bool:
				fields[k] = v
			}
		}
		ref, err := json.Marshal([]any{e.Seq, e.Name, packID(e.Entity), fields})
		if err != nil {
			t.Fatal(err)
		}
		var want []any
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("effect %d:\n got %v\nwant %v", i, got, want)
		}
	}
}

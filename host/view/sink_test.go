package view

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"vkm/internal/entity"
)

// sinkPage collects what a Sink hands the page, by kind.
type sinkPage struct{ msgs []map[string]any }

func (p *sinkPage) send(b []byte) {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	p.msgs = append(p.msgs, m)
}

func (p *sinkPage) kinds() string {
	var ks []string
	for _, m := range p.msgs {
		ks = append(ks, m["t"].(string))
	}
	return strings.Join(ks, " ")
}

// TestSinkHandsOverWhatTheServerWouldSend: hello and link first, then a
// frame per Publish numbered from 1, and scene, board and corrections only
// when they change.
func TestSinkHandsOverWhatTheServerWouldSend(t *testing.T) {
	var p sinkPage
	s := NewSink(SinkConfig{Actions: arenaActions, ViewWidth: 40, Send: p.send})
	s.Publish(Frame{Tick: 7})
	s.SetScene(Scene{Bodies: []Body{{ID: entity.ID{Slot: 1, Gen: 1}, Kind: "dynamic"}}})
	s.SetScene(Scene{Bodies: []Body{{ID: entity.ID{Slot: 1, Gen: 1}, Kind: "dynamic"}}})
	s.SetBoard(Board{Columns: []string{"Score.kills"}})
	s.SetBoard(Board{Columns: []string{"Score.kills"}})
	s.SetCorrections([]Correction{{Tick: 3, What: "pose"}})
	s.SetCorrections([]Correction{{Tick: 3, What: "pose"}})
	s.Publish(Frame{Tick: 8})
	if got, want := p.kinds(), "hello link frame scene board corrections frame"; got != want {
		t.Fatalf("handed %q, want %q", got, want)
	}
	if p.msgs[0]["view_width"] != 40.0 || p.msgs[2]["seq"] != 1.0 || p.msgs[6]["seq"] != 2.0 || p.msgs[6]["tick"] != 8.0 {
		t.Fatalf("messages %v", p.msgs)
	}
	if p.msgs[1]["enabled"] != false {
		t.Fatalf("a sink without OnLink shows sliders: %v", p.msgs[1])
	}
}

// TestSinkTakesThePagesInput: input messages are validated as the
// Server's are; a press between two takes is kept; a link message reaches
// OnLink clamped and goes back to the page; bad messages are counted.
func TestSinkTakesThePagesInput(t *testing.T) {
	var p sinkPage
	var links []Link
	s := NewSink(SinkConfig{Actions: arenaActions, Send: p.send, OnLink: func(l Link) { links = append(links, l) }})
	for _, m := range []string{
		`{"t":"input","axes":{"run":3,"nope":1},"held":{"jump":true}}`,
		`{"t":"input","axes":{"run":-0.5},"held":{"jump":false}}`,
	} {
		if err := s.Receive([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	axes, held, pressed := s.TakeInput()
	jump := 0
	for i, b := range arenaActions.Buttons {
		if b.Name == "jump" {
			jump = i
		}
	}
	if axes[0] != -0.5 || held[jump] || !pressed[jump] {
		t.Fatalf("took axes %v held %v pressed %v", axes, held, pressed)
	}
	if _, _, pressed := s.TakeInput(); pressed[jump] {
		t.Fatal("the press was taken twice")
	}
	if err := s.Receive([]byte(`{"t":"link","latency_ms":99999,"loss_pct":2}`)); err != nil {
		t.Fatal(err)
	}
	if len(links) != 1 || links[0].Latency != MaxLatency || links[0].Loss != 0.02 {
		t.Fatalf("OnLink heard %+v", links)
	}
	if last := p.msgs[len(p.msgs)-1]; last["t"] != "link" || last["latency_ms"] != float64(MaxLatency/time.Millisecond) {
		t.Fatalf("the page was told %v", last)
	}
	for _, bad := range []string{`{"t":"dance"}`, `not json`, `{"t":"input","axes":{"run":` + strings.Repeat(" ", maxMessageBytes) + `1}}`} {
		if s.Receive([]byte(bad)) == nil {
			t.Errorf("%.40q was taken", bad)
		}
	}
	if s.Bad() != 3 {
		t.Fatalf("Bad = %d, want 3", s.Bad())
	}
	noLink := NewSink(SinkConfig{Actions: arenaActions, Send: p.send})
	if err := noLink.Receive([]byte(`{"t":"link","latency_ms":5}`)); err != errNoLink {
		t.Fatalf("a link message without OnLink: %v", err)
	}
}

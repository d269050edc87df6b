package view

import (
	"encoding/json"
	"strings"
	"testing"

	"vkm/internal/entity"
)

// TestSinkSend: the page's vkm.send reaches OnSend with its fields, a
// boolean as 1 or 0; a send past the bounds or with a value that is not a
// number or a boolean is ignored whole.
func TestSinkSend(t *testing.T) {
	var got []PageSend
	s := NewSink(SinkConfig{Send: func([]byte) {}, OnSend: func(p PageSend) { got = append(got, p) }})
	if err := s.Receive([]byte(`{"t":"send","name":"buy","fields":{"item":3,"now":true,"later":false}}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Receive([]byte(`{"t":"send","name":"ready"}`)); err != nil {
		t.Fatal(err)
	}
	many := map[string]int{}
	for i := range MaxSendFields + 1 {
		many["f"+strings.Repeat("x", i)] = i
	}
	b, _ := json.Marshal(map[string]any{"t": "send", "name": "buy", "fields": many})
	for _, bad := range []string{
		`{"t":"send","fields":{}}`,
		`{"t":"send","name":""}`,
		`{"t":"send","name":"` + strings.Repeat("n", MaxSendName+1) + `"}`,
		`{"t":"send","name":"buy","fields":{"item":"3"}}`,
		`{"t":"send","name":"buy","fields":{"item":null}}`,
		`{"t":"send","name":"buy","fields":{"item":{"a":1}}}`,
		`{"t":"send","name":"buy","fields":{"":1}}`,
		string(b),
	} {
		if err := s.Receive([]byte(bad)); err == nil {
			t.Errorf("%.60s: taken", bad)
		}
	}
	if len(got) != 2 || got[0].Name != "buy" || got[0].Fields["item"] != 3 || got[0].Fields["now"] != 1 || got[0].Fields["later"] != 0 || len(got[0].Fields) != 3 ||
		got[1].Name != "ready" || len(got[1].Fields) != 0 {
		t.Fatalf("sent %+v", got)
	}
}

// TestFrameCarriesMessagesAndNotice: the messages the server told and the
// dev server's notice travel in the frame as the page reads them.
func TestFrameCarriesMessagesAndNotice(t *testing.T) {
	f := Frame{Own: entity.ID{Slot: 1, Gen: 1}, Notice: "reload refused: scripts/a.lua:2: x",
		Messages: []Effect{{Seq: 3, Name: "pong", Fields: map[string]any{"n": 42.0, "ok": true}}}}
	var m struct {
		Msgs   [][]any `json:"msgs"`
		Notice string  `json:"notice"`
	}
	if err := json.Unmarshal(encodeFrame(1, &f), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Msgs) != 1 || m.Msgs[0][0] != 3.0 || m.Msgs[0][1] != "pong" || m.Msgs[0][2] != 0.0 || m.Notice != f.Notice {
		t.Fatalf("frame %+v", m)
	}
	if fl := m.Msgs[0][3].(map[string]any); fl["n"] != 42.0 || fl["ok"] != true {
		t.Fatalf("fields %v", fl)
	}
	if b := encodeFrame(2, &Frame{}); strings.Contains(string(b), "msgs") || strings.Contains(string(b), "notice") {
		t.Fatalf("an empty frame: %s", b)
	}
}

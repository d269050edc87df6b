package view

import (
	"strings"
	"testing"
)

func TestSinkChat(t *testing.T) {
	var sent []string
	var typed []string
	s := NewSink(SinkConfig{Send: func(b []byte) { sent = append(sent, string(b)) }, OnChat: func(text string) { typed = append(typed, text) }})
	for _, m := range []string{`{"t":"chat","text":"gg"}`, `{"t":"chat"}`, `{"t":"chat","text":""}`, `{"t":"chat","text":"` + strings.Repeat("é", 300) + `"}`} {
		if err := s.Receive([]byte(m)); err != nil {
			t.Fatalf("%.40s: %v", m, err)
		}
	}
	if len(typed) != 2 || typed[0] != "gg" || len(typed[1]) != MaxChatText {
		t.Fatalf("typed %d lines: %.20q", len(typed), typed)
	}
	n := len(sent)
	s.SetChat([]ChatLine{{From: 2, Name: "ada", Text: "gg"}, {Text: "Welcome."}})
	s.SetChat([]ChatLine{{From: 2, Name: "ada", Text: "gg"}, {Text: "Welcome."}})
	if len(sent) != n+1 || sent[n] != `{"t":"chat","lines":[{"from":2,"name":"ada","text":"gg"},{"from":0,"name":"","text":"Welcome."}]}` {
		t.Fatalf("sent %q", sent[n:])
	}
}

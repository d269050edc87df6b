package netmsg

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzChat feeds the chat parser anything: it must not panic, what it
// accepts encodes back to the same bytes, and CleanText makes any text one
// it accepts (or empty).
func FuzzChat(f *testing.F) {
	f.Add(Chat{Text: "gg"}.Append(nil))
	f.Add(Chat{Text: "ünïcode 🐉 " + strings.Repeat("x", 300)}.Append(nil))
	f.Add([]byte{byte(KindChat)})
	f.Add([]byte{byte(KindChat), ' ', 'a'})
	f.Add([]byte{byte(KindChat), 0xff, 'a'})
	f.Add([]byte{byte(KindChat), 'a', '\n', 'b'})
	f.Add([]byte{byte(KindChatLine), 1, 0, 'a'})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseChat(b)
		mustParseError(t, err)
		if err == nil && string(c.Append(nil)) != string(b) {
			t.Fatalf("parsed %q from % x, which encodes as % x", c.Text, b, c.Append(nil))
		}
		if len(b) == 0 {
			return
		}
		clean := CleanText(string(b[1:]))
		if !utf8.ValidString(clean) || len(clean) > MaxChat || CleanText(clean) != clean {
			t.Fatalf("CleanText(%q) = %q, not fit", b[1:], clean)
		}
		if _, err := ParseChat(Chat{Text: string(b[1:])}.Append(nil)); (err == nil) != (clean != "") {
			t.Fatalf("the cleaned text %q: %v", clean, err)
		}
	})
}

// FuzzChatLine does for the server's chat line what FuzzChat does for the
// client's.
func FuzzChatLine(f *testing.F) {
	f.Add(ChatLine{From: 3, Text: "gg"}.Append(nil))
	f.Add(ChatLine{Text: "Welcome to the arena."}.Append(nil))
	f.Add([]byte{byte(KindChatLine), 1})
	f.Add([]byte{byte(KindChatLine), 1, 0})
	f.Add([]byte{byte(KindChatLine), 1, 0, '\t'})
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseChatLine(b)
		mustParseError(t, err)
		if err == nil && string(l.Append(nil)) != string(b) {
			t.Fatalf("parsed %+v from % x, which encodes as % x", l, b, l.Append(nil))
		}
	})
}

func TestChatFormats(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"gg", "gg"},
		{"  hi there \n", "hi there"},
		{"a\x00b\u200bc\u2028d", "abcd"},
		{"\xffok", "\ufffdok"},
		{strings.Repeat("é", 150), strings.Repeat("é", 100)},
		{"\n\t", ""},
	} {
		if got := CleanText(c.in); got != c.want {
			t.Errorf("CleanText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	b := Chat{Text: "gg wp"}.Append(nil)
	if c, err := ParseChat(b); err != nil || c.Text != "gg wp" {
		t.Fatalf("%q, %v", c.Text, err)
	}
	prefixesFail(t, "chat", b[:1], func(b []byte) error { _, err := ParseChat(b); return err })
	l := ChatLine{From: 513, Text: "gg"}.Append(nil)
	if got, err := ParseChatLine(l); err != nil || got != (ChatLine{From: 513, Text: "gg"}) {
		t.Fatalf("%+v, %v", got, err)
	}
	prefixesFail(t, "chat line", l[:4], func(b []byte) error { _, err := ParseChatLine(b); return err })
	for _, bad := range [][]byte{{byte(KindChat)}, append([]byte{byte(KindChat)}, strings.Repeat("x", MaxChat+1)...), {byte(KindChat), 'a', ' '}} {
		if _, err := ParseChat(bad); err == nil {
			t.Errorf("% x parsed", bad)
		}
	}
}

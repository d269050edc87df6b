package handshake

import (
	"strings"
	"testing"
)

func TestRefuseSentences(t *testing.T) {
	for _, c := range []struct {
		r    Refuse
		want string
	}{
		{Refuse{Reason: ReasonFull, MaxPlayers: 4}, "The server is full (4 of 4 players)."},
		{Refuse{Reason: ReasonFull}, "The server is full."},
		{Refuse{Reason: ReasonTickRate, ServerTickRate: 64, ClientTickRate: 128},
			"The server runs at 64 ticks a second and this game at 128; both must use the same tick rate."},
		{Refuse{Reason: ReasonTickRate}, ReasonTickRate.Sentence()},
		{VersionRefusal(2, 1), "The server speaks network protocol version 2 and this game version 1; update the older one."},
		{Refuse{Reason: ReasonDeclined}, ReasonDeclined.Sentence()},
		{Refuse{Reason: ReasonMismatch}, ReasonMismatch.Sentence()},
		{Refuse{Reason: 77}, "The server refused to let you join (reason 77)."},
		{Refuse{Reason: ReasonJoinFailed}, "The server could not seat you: the game's join handler failed."},
		{Refuse{Reason: ReasonJoinFailed, Detail: "scripts/join.lua:3: boom"},
			"The server could not seat you: the game's join handler failed: scripts/join.lua:3: boom"},
	} {
		if got := c.r.Sentence(); got != c.want {
			t.Errorf("%+v: Sentence = %q, want %q", c.r, got, c.want)
		}
	}
}

func TestEverySentenceIsOnePlayerFacingSentence(t *testing.T) {
	var all []string
	for r := range Reason(ReasonCount + 1) {
		all = append(all, r.Sentence())
	}
	for g := range GoodbyeReason(8) {
		all = append(all, g.Sentence())
	}
	for _, s := range all {
		if s == "" || !strings.HasPrefix(s, strings.ToUpper(s[:1])) || !strings.HasSuffix(s, ".") || strings.Contains(s, "\n") {
			t.Errorf("not a one-line sentence: %q", s)
		}
	}
}

func TestKnownReasons(t *testing.T) {
	for r := range Reason(16) {
		want := r >= 1 && r <= 14
		if r.Known() != want {
			t.Errorf("Reason(%d).Known() = %v", r, r.Known())
		}
	}
}

func TestCleanDetail(t *testing.T) {
	long := strings.Repeat("é", DetailMax) // two bytes each
	for _, c := range []struct{ in, want string }{
		{"scripts/join.lua:3: boom", "scripts/join.lua:3: boom"},
		{"line one\nstack traceback:\n\t[G]: ?", "line one stack traceback: [G]: ?"},
		{"  padded \x1b[31mred\x1b[0m  ", "padded [31mred [0m"},
		{"bad \xff byte", "bad \ufffd byte"},
		{"a\u202eb", "a b"},
		{long, strings.Repeat("é", DetailMax/2)},
		{"", ""},
	} {
		got := CleanDetail(c.in)
		if got != c.want {
			t.Errorf("CleanDetail(%q) = %q, want %q", c.in, got, c.want)
		}
		if CleanDetail(got) != got || len(got) > DetailMax {
			t.Errorf("CleanDetail(%q) = %q is not clean itself", c.in, got)
		}
	}
}

// TestParseRefuseRefusesAnUncleanDetail checks a detail a player would be
// shown can break no line and hide no text, whatever a server sends.
func TestParseRefuseRefusesAnUncleanDetail(t *testing.T) {
	body := Refuse{Reason: ReasonJoinFailed}.Append(nil)
	for _, d := range []string{"two\nlines", "\x1b[2J", " lead", "trail ", "a  b", "\xff"} {
		b := append(append(body[:refuseBody-1:refuseBody-1], byte(len(d))), d...)
		if _, err := ParseRefuse(b); err == nil {
			t.Errorf("detail %q accepted", d)
		}
	}
	b := append(append(body[:refuseBody-1:refuseBody-1], 5), "abc"...)
	if _, err := ParseRefuse(b); err == nil {
		t.Error("a detail shorter than its length accepted")
	}
}

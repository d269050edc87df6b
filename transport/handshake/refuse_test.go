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
	} {
		if got := c.r.Sentence(); got != c.want {
			t.Errorf("%+v: Sentence = %q, want %q", c.r, got, c.want)
		}
	}
}

func TestEverySentenceIsOnePlayerFacingSentence(t *testing.T) {
	var all []string
	for r := range Reason(8) {
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
	for r := range Reason(10) {
		want := r >= 1 && r <= 5
		if r.Known() != want {
			t.Errorf("Reason(%d).Known() = %v", r, r.Known())
		}
	}
}

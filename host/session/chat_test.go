package session

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"

	"vkm/transport/memnet"
)

// chatJudge refuses lines with "darn" and rewrites "gg".
const chatJudge = `net.on_chat(function(player, text)
    if text:find("darn") then return false end
    if text == "gg" then return "good game, from " .. player end
  end)`

// chatLines is a client's chat log as "from name: text" lines.
func chatLines(p *peer) []string {
	var out []string
	for _, e := range p.c.ChatLog() {
		out = append(out, fmt.Sprintf("%d %s: %s", e.From, e.Name, e.Text))
	}
	return out
}

func TestChatReachesEveryoneAsTheServerJudgesIt(t *testing.T) {
	for _, profile := range []memnet.Profile{memnet.Broadband, memnet.Awful} {
		for _, seed := range []uint64{51, 52, 53} {
			t.Logf("seed %d, profile %s", seed, profile.Name)
			h := newHarness(t, pingProject(t, 0, 4, 1, 0, chatJudge))
			a := h.join(pingProject(t, 0, 4, 1, 0, chatJudge), profile, seed)
			b := h.join(pingProject(t, 0, 4, 1, 0, chatJudge), profile, seed+100)
			h.runUntil(5*time.Second, "the joins", func() bool { return a.c.Playing() && b.c.Playing() })
			for _, line := range []string{"hello  ", "darn it", "gg", "\x00"} {
				if err := a.c.Say(line); (err != nil) != (line == "\x00") {
					t.Fatalf("Say(%q): %v", line, err)
				}
			}
			if err := b.c.Say("hi a"); err != nil {
				t.Fatal(err)
			}
			h.runUntil(10*time.Second, "the lines", func() bool { return len(a.c.ChatLog()) >= 3 && len(b.c.ChatLog()) >= 3 })
			h.run(time.Second)
			la, lb := chatLines(a), chatLines(b)
			pa, pb := a.c.Net().Player(), b.c.Net().Player()
			t.Logf("a is %d, b %d; a sees %q; b sees %q; server %+v", pa, pb, la, lb, h.server.Chat())
			// a's lines in a's order, b's among them wherever it fell.
			var fromA []string
			for _, l := range lb {
				if l[0] == byte('0'+pa) {
					fromA = append(fromA, l)
				}
			}
			wantA := []string{fmt.Sprintf("%d p1: hello", pa), fmt.Sprintf("%d p1: good game, from %d", pa, pa)}
			if !slices.Equal(fromA, wantA) || !slices.Contains(la, fmt.Sprintf("%d p2: hi a", pb)) ||
				len(la) != 3 || len(lb) != 3 || h.server.Chat() != (ChatCounts{Lines: 3, Refused: 1}) {
				t.Fatal("want hello and the rewritten gg from a, hi a from b, on both, and darn refused")
			}
		}
	}
}

func TestChatOverItsBoundDroppedAndTold(t *testing.T) {
	const seed = 61
	t.Logf("seed %d", seed)
	h := newHarness(t, pingProject(t, 0, 4, 1, 0, ""))
	a := h.join(pingProject(t, 0, 4, 1, 0, ""), memnet.Broadband, seed)
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() })
	for i := range 12 {
		if err := a.c.Say(fmt.Sprintf("spam %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	h.run(2 * time.Second)
	got := chatLines(a)
	t.Logf("a sees %q; server %+v", got, h.server.Chat())
	if len(got) != ChatBurst+1 || got[ChatBurst] != "0 : "+tooFast || h.server.Chat().Dropped != 12-ChatBurst {
		t.Fatalf("want the first %d lines and one word from the server", ChatBurst)
	}
	h.run(3 * time.Second)
	if err := a.c.Say("later"); err != nil {
		t.Fatal(err)
	}
	h.runUntil(2*time.Second, "a line after a pause", func() bool { return len(a.c.ChatLog()) == ChatBurst+2 })
}

func TestMessageOfTheDayAndSay(t *testing.T) {
	const seed = 71
	t.Logf("seed %d", seed)
	p := pingProject(t, 0, 4, 1, 0, "")
	p.MOTD = "Welcome: first to 10 wins."
	h := newHarness(t, p)
	a := h.join(pingProject(t, 0, 4, 1, 0, ""), memnet.Awful, seed)
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() })
	h.runUntil(5*time.Second, "the message of the day", func() bool { return len(a.c.ChatLog()) == 1 })
	if !h.server.Say("  round two\n") || h.server.Say("\n") {
		t.Fatal("Say took the wrong lines")
	}
	b := h.join(pingProject(t, 0, 4, 1, 0, ""), memnet.Awful, seed+1)
	h.runUntil(5*time.Second, "the say and b's greeting", func() bool { return len(a.c.ChatLog()) == 2 && len(b.c.ChatLog()) == 1 })
	h.run(time.Second)
	la, lb := chatLines(a), chatLines(b)
	t.Logf("a sees %q; b sees %q", la, lb)
	if !slices.Equal(la, []string{"0 : Welcome: first to 10 wins.", "0 : round two"}) || !slices.Equal(lb, []string{"0 : Welcome: first to 10 wins."}) {
		t.Fatal("want the message of the day at each join and the say to those seated")
	}
}

func TestKickShowsTheReasonAndMuteDropsChat(t *testing.T) {
	for _, profile := range []memnet.Profile{memnet.Broadband, memnet.Awful} {
		seed := uint64(81)
		t.Logf("seed %d, profile %s", seed, profile.Name)
		h := newHarness(t, pingProject(t, 0, 4, 1, 0, ""))
		a := h.join(pingProject(t, 0, 4, 1, 0, ""), profile, seed)
		b := h.join(pingProject(t, 0, 4, 1, 0, ""), profile, seed+1)
		h.runUntil(5*time.Second, "the joins", func() bool { return a.c.Playing() && b.c.Playing() })
		pa, pb := a.c.Net().Player(), b.c.Net().Player()
		if !h.server.Mute(pb, true) || h.server.Mute(999, true) {
			t.Fatal("Mute found the wrong seats")
		}
		if err := b.c.Say("you can't hear me"); err != nil {
			t.Fatal(err)
		}
		h.run(time.Second)
		if !h.server.Kick(pa, "You were kicked: spawn camping.") {
			t.Fatal("Kick did not find a")
		}
		h.runUntil(KickGrace+time.Second, "the kick", func() bool { return !a.c.Playing() && h.server.Net().PlayerCount() == 1 })
		t.Logf("a told %q (kicked %v); b's log %q; server chat %+v, kicks %d", a.c.why, a.c.Kicked(), chatLines(b), h.server.Chat(), h.server.Kicks())
		if a.c.why != "You were kicked: spawn camping." || !a.c.Kicked() || len(b.c.ChatLog()) != 0 || h.server.Chat().Dropped != 1 || h.server.Kicks() != 1 {
			t.Fatal("want a told the reason, b's muted line dropped")
		}
	}
}

func TestGateKeepsOutWithItsSentence(t *testing.T) {
	h := &harness{t: t}
	s, err := NewServer(ServerConfig{Project: pingProject(t, 0, 4, 1, 0, ""), Logger: testLogger(t),
		Gate: func(from netip.AddrPort, _ uint64, _ bool) (string, bool) {
			if from.Addr() == netip.AddrFrom4([4]byte{10, 0, 0, 1}) {
				return "You are banned from this server: spam", false
			}
			return "", true
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	h.server = s
	a := h.join(pingProject(t, 0, 4, 1, 0, ""), memnet.Broadband, 91)
	b := h.join(pingProject(t, 0, 4, 1, 0, ""), memnet.Broadband, 92)
	h.runUntil(5*time.Second, "the refusal and the join", func() bool { return a.c.ended && b.c.Playing() })
	t.Logf("a (10.0.0.1) told %q", a.c.why)
	if a.c.why != "You are banned from this server: spam" {
		t.Fatal("the gate's sentence did not reach the player")
	}
}

// A line the game sends to some players alone (a team's channel) reaches
// them and nobody else.
func TestChatToTheGamesChannel(t *testing.T) {
	const seed = 101
	t.Logf("seed %d", seed)
	judge := `net.on_chat(function(player, text)
    if text:sub(1, 2) == "t:" then return text:sub(3), {player} end
  end)`
	h := newHarness(t, pingProject(t, 0, 4, 1, 0, judge))
	a := h.join(pingProject(t, 0, 4, 1, 0, judge), memnet.Awful, seed)
	b := h.join(pingProject(t, 0, 4, 1, 0, judge), memnet.Awful, seed+1)
	h.runUntil(5*time.Second, "the joins", func() bool { return a.c.Playing() && b.c.Playing() })
	for _, line := range []string{"t:to my team", "to all"} {
		if err := a.c.Say(line); err != nil {
			t.Fatal(err)
		}
	}
	h.runUntil(5*time.Second, "the lines", func() bool { return len(a.c.ChatLog()) == 2 && len(b.c.ChatLog()) == 1 })
	la, lb := chatLines(a), chatLines(b)
	t.Logf("a sees %q; b sees %q", la, lb)
	if a.c.ChatLog()[0].Text != "to my team" || b.c.ChatLog()[0].Text != "to all" {
		t.Fatal("want the team's line at a alone, and the next at both")
	}
}

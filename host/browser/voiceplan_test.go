//go:build !js

package browser

import (
	"net/netip"
	"testing"

	"vkm/host/project"
	"vkm/host/session"
	"vkm/host/web"
	"vkm/internal/entity"
)

// seatAt is a seated player at (x, 0), on team.
func seatAt(player uint16, x, team float64) voiceSeat {
	return voiceSeat{
		player: player, addr: netip.AddrPortFrom(netip.MustParseAddr("fd76:6b6d::1"), player),
		entity: entity.ID{Slot: uint32(player), Gen: 1}, pos: entity.Vec2{X: x}, placed: true, team: team, onTeam: true,
	}
}

// hears returns the players whose voices listener's slots carry, by slot.
func hears(t *testing.T, p web.VoicePlan, seats []voiceSeat, listener uint16) []uint16 {
	t.Helper()
	by := map[netip.AddrPort]uint16{}
	var at netip.AddrPort
	for _, s := range seats {
		by[s.addr] = s.player
		if s.player == listener {
			at = s.addr
		}
	}
	var out []uint16
	for _, a := range p.Slots[at] {
		if a.IsValid() {
			out = append(out, by[a])
		}
	}
	return out
}

func same(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestVoiceRoutesFollowTheSeatsTheModeAndTheMute(t *testing.T) {
	// 1 at 0 on team 1, 2 at 5 on team 2, 3 at 30 on team 1.
	seats := []voiceSeat{seatAt(1, 0, 1), seatAt(2, 5, 2), seatAt(3, 30, 1)}
	want := func(vp *VoicePlanner, seats []voiceSeat, judge voiceJudge, who map[uint16][]uint16) map[uint16]session.Voice {
		t.Helper()
		p, changed := vp.plan(seats, judge)
		for l, w := range who {
			if got := hears(t, p, seats, l); !same(got, w) {
				t.Errorf("%s: player %d hears %v, want %v", vp.cfg.Mode, l, got, w)
			}
		}
		return changed
	}

	near := NewVoicePlanner(project.Voice{Mode: "nearby", Range: 10}, nil)
	changed := want(near, seats, nil, map[uint16][]uint16{1: {2}, 2: {1}, 3: nil})
	if len(changed) != 3 {
		t.Errorf("the first plan tells %d listeners, want all 3", len(changed))
	}
	if m := changed[1]; !m.Nearby || m.Range != 10 || m.Slots[0].Player != 2 || m.Slots[0].Entity != seats[1].entity || m.Slots[0].Gain != 1 || !m.CanSpeak {
		t.Errorf("player 1 is told %+v", m)
	}
	// Player 3 walks within range of 2 (and so of 1? no: 25 m from 1).
	seats[2].pos.X = 12
	changed = want(near, seats, nil, map[uint16][]uint16{1: {2}, 2: {1, 3}, 3: {2}})
	if _, ok := changed[1]; ok || len(changed) != 2 {
		t.Errorf("after 3 moved, told %v; want 2 and 3 alone", changed)
	}
	// A speaker heard before keeps its slot when a nearer one comes.
	seats[2].pos.X = 4
	p, _ := near.plan(seats, nil)
	if got := hears(t, p, seats, 2); !same(got, []uint16{1, 3}) {
		t.Errorf("player 2's slots %v, want 1 kept on slot 0 and 3 on slot 1", got)
	}
	seats[2].pos.X = 30

	// Muted: nobody hears 2, and 2 may not speak.
	seats[1].muted = true
	changed = want(near, seats, nil, map[uint16][]uint16{1: nil, 2: {1}, 3: nil})
	if p, _ := near.plan(seats, nil); p.Speakers[seats[1].addr] || !p.Speakers[seats[0].addr] {
		t.Errorf("speakers %v: the muted player may speak, or another may not", p.Speakers)
	}
	if changed[2].CanSpeak {
		t.Error("the muted player is told they may speak")
	}
	seats[1].muted = false

	team := NewVoicePlanner(project.Voice{Mode: "team", Team: "Team.id"}, nil)
	want(team, seats, nil, map[uint16][]uint16{1: {3}, 2: nil, 3: {1}})
	all := NewVoicePlanner(project.Voice{Mode: "everyone"}, nil)
	want(all, seats, nil, map[uint16][]uint16{1: {2, 3}, 2: {1, 3}, 3: {1, 2}})

	// A player who leaves is heard by nobody and no longer planned for.
	left := seats[:2]
	p, _ = all.plan(left, nil)
	if _, ok := p.Slots[seats[2].addr]; ok || p.Speakers[seats[2].addr] {
		t.Error("a player who left is still planned for")
	}
	if got := hears(t, p, left, 1); !same(got, []uint16{2}) {
		t.Errorf("player 1 hears %v after 3 left, want [2]", got)
	}

	// net.voice_hears decides per pair: 1 hears nobody, 3 hears 2 at
	// half, the rest as the mode says.
	judge := func(l, s uint16) (float64, bool) {
		switch {
		case l == 1:
			return 0, true
		case l == 3 && s == 2:
			return 0.5, true
		}
		return 0, false
	}
	j := NewVoicePlanner(project.Voice{Mode: "team", Team: "Team.id"}, nil)
	changed = want(j, seats, judge, map[uint16][]uint16{1: nil, 2: nil, 3: {1, 2}})
	if g := changed[3].Slots[1].Gain; g != 0.5 {
		t.Errorf("3 hears 2 at %v, want the judge's 0.5", g)
	}

	// More speakers than slots: the nearest VoiceSlots are heard.
	var crowd []voiceSeat
	for i := range 12 {
		crowd = append(crowd, seatAt(uint16(i+1), float64(i), 1))
	}
	p, _ = NewVoicePlanner(project.Voice{Mode: "nearby", Range: 100}, nil).plan(crowd, nil)
	if got := hears(t, p, crowd, 1); !same(got, []uint16{2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Errorf("player 1 of 12 hears %v, want the 8 nearest", got)
	}
}

// TestVoiceJudgeIsAskedInTurns: with more pairs than maxJudgedPairs, one
// plan asks net.voice_hears about that many, and the next ones about the
// rest, each pair keeping its answer in between.
func TestVoiceJudgeIsAskedInTurns(t *testing.T) {
	var seats []voiceSeat
	for i := range 40 { // 1,560 pairs
		seats = append(seats, seatAt(uint16(i+1), 0, 1))
	}
	asked := map[[2]uint16]int{}
	calls := 0
	judge := func(l, s uint16) (float64, bool) {
		calls++
		asked[[2]uint16{l, s}]++
		return 0, s == 2 // nobody hears player 2; the mode decides the rest
	}
	vp := NewVoicePlanner(project.Voice{Mode: "everyone"}, nil)
	vp.plan(seats, judge)
	if calls != maxJudgedPairs {
		t.Fatalf("the first plan asked %d times, want %d", calls, maxJudgedPairs)
	}
	calls = 0
	p, _ := vp.plan(seats, judge)
	if calls != maxJudgedPairs || len(asked) != 40*39 {
		t.Fatalf("the second plan asked %d times, and %d pairs in all; want %d and every one of %d", calls, len(asked), maxJudgedPairs, 40*39)
	}
	for _, l := range []uint16{1, 3, 40} {
		for _, who := range hears(t, p, seats, l) {
			if who == 2 {
				t.Errorf("player %d hears player 2, whom the judge keeps from everyone", l)
			}
		}
	}
}

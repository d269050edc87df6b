package session

import (
	"math"
	"testing"
	"time"

	"vkm/host/bot"
	"vkm/host/game"
	"vkm/host/session/netmsg"
	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/transport/handshake"
	"vkm/transport/memnet"
)

// running is an Input that runs along axis 0 at speed every tick.
func running(speed float64) game.Input {
	return &steady{cmd: prediction.Command{Axes: [prediction.MaxAxes]float64{speed}}}
}

// seatGuests asks for a guest of p per input and runs until every one is
// seated with its character named, returning them in local order.
func (h *harness) seatGuests(p *peer, names []string, inputs ...game.Input) []Guest {
	h.t.Helper()
	for i, in := range inputs {
		if _, err := p.c.AddGuest(names[i], in); err != nil {
			h.t.Fatal(err)
		}
	}
	var gs []Guest
	h.runUntil(5*time.Second, "the guests' seats", func() bool {
		gs = p.c.Guests()
		if len(gs) != len(inputs) {
			h.t.Fatalf("guests %+v", gs)
		}
		for _, g := range gs {
			if !g.Seated || g.Entity.IsNone() {
				return false
			}
		}
		return true
	})
	return gs
}

// TestGuestsTakeSeats: a client with 2 guests on the 4-seat arena fills 3
// seats, each guest a player of its own (number, name, entity, and on its
// client self:player() and is_mine()); a fourth player fits and a fifth is
// refused, as is a third guest once every seat is taken.
func TestGuestsTakeSeats(t *testing.T) {
	const seed = 1201
	t.Logf("seed %d", seed)
	h := newHarness(t, loadArena(t))
	a := h.seated(memnet.Broadband, seed, false)
	gs := h.seatGuests(a, []string{"bo", "cy"}, nil, nil)
	if n := h.server.Net().PlayerCount(); n != 3 {
		t.Fatalf("%d seats taken by a client with 2 guests", n)
	}
	g := a.c.Game()
	own := g.Own()
	seen := map[uint16]bool{a.c.Net().Player(): true}
	ents := map[entity.ID]bool{own: true}
	for i, gu := range gs {
		if seen[gu.Player] || ents[gu.Entity] {
			t.Fatalf("guest %d shares a number or an entity: %+v", i+1, gu)
		}
		seen[gu.Player], ents[gu.Entity] = true, true
		if got := g.World().Player(gu.Entity); got != gu.Player {
			t.Errorf("self:player() of guest %d's character is %d, want %d", gu.Local, got, gu.Player)
		}
		if !g.IsMine(gu.Entity) || !g.Simulates(gu.Entity) {
			t.Errorf("guest %d's character: is_mine %v, simulated %v", gu.Local, g.IsMine(gu.Entity), g.Simulates(gu.Entity))
		}
		if srv := h.server.Game().World().Player(gu.Entity); srv != gu.Player {
			t.Errorf("the server's self:player() of guest %d's character is %d", gu.Local, srv)
		}
	}
	if g.World().Player(own) != a.c.Net().Player() {
		t.Errorf("the own character's player is %d", g.World().Player(own))
	}
	h.runUntil(2*time.Second, "the roster", func() bool { return len(g.Players()) == 3 })
	names := map[string]bool{}
	for _, p := range g.Players() {
		names[p.Name] = true
	}
	if !names["bo"] || !names["cy"] {
		t.Fatalf("the roster %+v lacks the guests' names", g.Players())
	}

	b := h.seated(memnet.Broadband, seed+1, false)
	if n := h.server.Net().PlayerCount(); n != 4 || !b.c.Playing() {
		t.Fatalf("the fourth player: playing %v, %d seats", b.c.Playing(), n)
	}
	// b sees a's guests as players, not as its own.
	h.runUntil(2*time.Second, "b's roster", func() bool { return len(b.c.Game().Players()) == 4 })
	for _, gu := range gs {
		if b.c.Game().IsMine(gu.Entity) || b.c.Game().Simulates(gu.Entity) {
			t.Errorf("b simulates a's guest %d", gu.Local)
		}
		if got := b.c.Game().World().Player(gu.Entity); got != gu.Player {
			t.Errorf("b's self:player() of a's guest %d is %d", gu.Local, got)
		}
	}
	c := h.join(loadArena(t), memnet.Broadband, seed+2)
	h.runUntil(3*time.Second, "the fifth's refusal", func() bool { return c.c.Net().LastError() != "" })
	if r, ok := c.c.Net().Refusal(); c.c.Playing() || !ok || r.Reason != handshake.ReasonFull {
		t.Fatalf("the fifth player: playing %v, %q", c.c.Playing(), c.c.Net().LastError())
	}
	t.Logf("the fifth player: %q", c.c.Net().LastError())
	if _, err := a.c.AddGuest("dee", nil); err != nil {
		t.Fatal(err)
	}
	var refused Guest
	h.runUntil(2*time.Second, "the third guest's refusal", func() bool {
		for _, gu := range a.c.Guests() {
			if gu.Name == "dee" && gu.Ended {
				refused = gu
				return true
			}
		}
		return false
	})
	t.Logf("the third guest: %q", refused.Why)
	if refused.Seated || refused.Why == "" || h.server.Net().PlayerCount() != 4 {
		t.Fatalf("the third guest %+v, %d seats", refused, h.server.Net().PlayerCount())
	}
}

// TestEachGuestsCommandsDriveOnlyItsCharacter: the owner stands, one guest
// runs right and the other left; on the server each character moves as
// its own player's commands say and no other way, and the client's
// prediction of each agrees with the server.
func TestEachGuestsCommandsDriveOnlyItsCharacter(t *testing.T) {
	const seed = 1202
	t.Logf("seed %d", seed)
	h := newHarness(t, loadArena(t))
	a := h.seated(memnet.Broadband, seed, false)
	b := h.seated(memnet.Broadband, seed+1, false)
	gs := h.seatGuests(a, []string{"right", "left"}, running(1), running(-1))
	h.run(500 * time.Millisecond) // land
	srv := h.server.Game().Store()
	x := func(id entity.ID) float64 { return srv.Transform(id).X }
	ids := []entity.ID{a.c.Game().Own(), gs[0].Entity, gs[1].Entity, b.c.Game().Own()}
	var before [4]float64
	for i, id := range ids {
		before[i] = x(id)
	}
	h.run(1200 * time.Millisecond)
	var moved [4]float64
	for i, id := range ids {
		moved[i] = x(id) - before[i]
	}
	t.Logf("moved along x: owner %.3f, guest 1 %.3f, guest 2 %.3f, other player %.3f", moved[0], moved[1], moved[2], moved[3])
	if math.Abs(moved[0]) > 0.05 || math.Abs(moved[3]) > 0.05 {
		t.Errorf("a character with no one running it moved: owner %.3f, other %.3f", moved[0], moved[3])
	}
	if moved[1] < 1 || moved[2] > -1 {
		t.Errorf("the guests moved %.3f (running right) and %.3f (running left)", moved[1], moved[2])
	}
	// The client predicts each guest a round trip ahead of the server's
	// word on it: near it, not somewhere else.
	cs := a.c.Game().Store()
	for _, gu := range gs {
		if ahead := cs.Transform(gu.Entity).X - x(gu.Entity); math.Abs(ahead) > 0.5 {
			t.Errorf("guest %d predicted %.3f m from the server's word", gu.Local, ahead)
		}
	}
	if s := h.server.Totals(); s.BadPackets != 0 {
		t.Errorf("%d bad command packets", s.BadPackets)
	}
}

// TestALeavingGuestFreesOnlyItsSeat: a guest that leaves takes its seat and
// character with it; the other guest, its owner and the connection play
// on, and a new player takes the seat.
func TestALeavingGuestFreesOnlyItsSeat(t *testing.T) {
	const seed = 1203
	t.Logf("seed %d", seed)
	h := newHarness(t, loadArena(t))
	a := h.seated(memnet.Broadband, seed, false)
	gs := h.seatGuests(a, []string{"bo", "cy"}, nil, nil)
	b := h.seated(memnet.Broadband, seed+1, false)
	if h.server.Net().PlayerCount() != 4 {
		t.Fatalf("%d seats", h.server.Net().PlayerCount())
	}
	if !a.c.RemoveGuest(gs[0].Local) {
		t.Fatal("RemoveGuest")
	}
	h.runUntil(2*time.Second, "the guest's leave", func() bool { return h.server.Net().PlayerCount() == 3 })
	h.run(300 * time.Millisecond)
	srv := h.server.Game().Store()
	if srv.Alive(gs[0].Entity) {
		t.Error("the departed guest's character is still in the world")
	}
	if !srv.Alive(gs[1].Entity) || !srv.Alive(a.c.Game().Own()) || !srv.Alive(b.c.Game().Own()) {
		t.Error("a character of someone who stayed is gone")
	}
	if !a.c.Playing() || !b.c.Playing() {
		t.Fatalf("a playing %v, b playing %v", a.c.Playing(), b.c.Playing())
	}
	if left := a.c.Guests(); len(left) != 2 || !left[0].Ended || left[1].Ended || !left[1].Seated {
		t.Fatalf("the client's guests after one left: %+v", left)
	}
	if a.c.Game().Simulates(gs[0].Entity) {
		t.Error("the client still simulates the departed guest's character")
	}
	c := h.seated(memnet.Broadband, seed+2, false)
	if !c.c.Playing() || h.server.Net().PlayerCount() != 4 {
		t.Fatalf("a new player in the freed seat: playing %v, %d seats", c.c.Playing(), h.server.Net().PlayerCount())
	}
	// The owner leaves: its remaining guest goes with it.
	a.c.Net().Leave(h.now)
	h.runUntil(2*time.Second, "the owner's leave", func() bool { return h.server.Net().PlayerCount() == 2 })
	h.run(100 * time.Millisecond)
	if srv.Alive(gs[1].Entity) || len(h.server.guests) != 0 {
		t.Fatal("the owner's guest outlived its connection")
	}
}

// TestAKickedGuestsOwnerIsTold: an operator's kick of a guest ends only the
// guest's seat, and its connection hears why and plays on.
func TestAKickedGuestsOwnerIsTold(t *testing.T) {
	const seed = 1204
	t.Logf("seed %d", seed)
	h := newHarness(t, loadArena(t))
	a := h.seated(memnet.Broadband, seed, false)
	gs := h.seatGuests(a, []string{"bo", "cy"}, nil, nil)
	if !h.server.Kick(gs[1].Player, "spawn camping") {
		t.Fatal("Kick of a guest reported no such player")
	}
	var kicked Guest
	h.runUntil(2*time.Second, "the owner hearing of the kick", func() bool {
		for _, g := range a.c.Guests() {
			if g.Local == gs[1].Local && g.Ended {
				kicked = g
				return true
			}
		}
		return false
	})
	t.Logf("the owner heard: %+v", kicked)
	if !kicked.Kicked || kicked.Why != "spawn camping" {
		t.Fatalf("the owner was told %+v", kicked)
	}
	h.run(time.Second)
	if !a.c.Playing() || a.c.Kicked() || h.server.Net().PlayerCount() != 2 || h.server.Kicks() != 1 {
		t.Fatalf("after the kick: playing %v, kicked %v, %d seats, %d kicks", a.c.Playing(), a.c.Kicked(), h.server.Net().PlayerCount(), h.server.Kicks())
	}
	if g := a.c.Guests(); len(g) != 1 || !g[0].Seated {
		t.Fatalf("the guest left: %+v", g)
	}
}

// wanderers returns n wander bots of the arena, seeded from seed.
func wanderers(t *testing.T, seed uint64, n int) []game.Input {
	p := loadArena(t)
	var out []game.Input
	for i := range n {
		b, err := bot.New("wander", seed+uint64(i), len(p.Axes), len(p.Buttons))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestGuestsOverALossyLink plays an owner and two guests, all wander bots,
// over the mobile profile (loss, jitter, reordering) for 10 s, and the
// owner alone on the same seed: every snapshot decodes, no command packet
// is refused, the guests stay seated, the server runs nearly all of each
// guest's commands on their own ticks, and the corrections with guests
// stay near those of the owner alone.
func TestGuestsOverALossyLink(t *testing.T) {
	const seed = 1205
	play := func(guests int) (ClientStats, uint64, *harness, *peer) {
		h := newHarness(t, loadArena(t))
		a := h.join(loadArena(t), memnet.Mobile, seed)
		a.input = wanderers(t, seed, 1)[0]
		h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
		if guests > 0 {
			names := []string{"bo", "cy"}[:guests]
			h.seatGuests(a, names, wanderers(t, seed+10, guests)...)
		}
		h.run(10 * time.Second)
		return a.c.Stats(h.now), a.c.GuestCorrections(), h, a
	}
	alone, _, _, _ := play(0)
	st, guestCorr, h, a := play(2)
	var real, repeats, discarded uint64
	for _, g := range h.server.guests {
		f := g.follow.Stats()
		real, repeats, discarded = real+f.Real, repeats+f.Repeats, discarded+f.Discarded
	}
	tot := h.server.Totals()
	t.Logf("seed %d, profile %s: alone, corrections %d (replayed ticks %d); with 2 guests, snapshots %d (bad %d), corrections %d (guests' %d), replayed ticks %d; guest commands run %d, dry %d, late %d; bad packets %d",
		seed, memnet.Mobile.Name, alone.Corrections, alone.ReplayedTicks, st.Snapshots, st.BadSnapshots, st.Corrections, guestCorr, st.ReplayedTicks, real, repeats, discarded, tot.BadPackets)
	if st.BadSnapshots != 0 || tot.BadPackets != 0 {
		t.Errorf("%d bad snapshots, %d bad packets", st.BadSnapshots, tot.BadPackets)
	}
	if len(h.server.guests) != 2 || len(a.c.Guests()) != 2 {
		t.Fatalf("guests seated: server %d, client %+v", len(h.server.guests), a.c.Guests())
	}
	if repeats*10 > real {
		t.Errorf("the guests ran %d ticks without their command, %d with", repeats, real)
	}
	if st.Corrections > 2*alone.Corrections+10 {
		t.Errorf("%d corrections with 2 guests, %d alone", st.Corrections, alone.Corrections)
	}
}

// TestGuestPredictionHoldsInTheSteadyState: two guests running steadily
// over broadband are predicted exactly: once running, no snapshot corrects
// a guest's character; and no snapshot relays the intent of a character of
// the receiving screen (those are predicted there, not reckoned).
func TestGuestPredictionHoldsInTheSteadyState(t *testing.T) {
	const seed = 1206
	t.Logf("seed %d", seed)
	h := newHarness(t, loadArena(t))
	a := h.seated(memnet.Broadband, seed, false)
	a.input = running(0.5)
	gs := h.seatGuests(a, []string{"bo", "cy"}, running(0.5), running(-0.5))
	h.run(700 * time.Millisecond) // land and reach speed
	startG, start := a.c.GuestCorrections(), a.c.Stats(h.now).Corrections
	relayed := 0
	a.afterTick = func(*game.Game) {
		for _, e := range a.c.relay {
			for _, g := range gs {
				if e.ID == g.Entity {
					relayed++
				}
			}
		}
	}
	h.run(800 * time.Millisecond)
	guestCorr, corr := a.c.GuestCorrections()-startG, a.c.Stats(h.now).Corrections-start
	t.Logf("over 0.8 s of steady running: %d corrections, %d of them for a guest; %d relays of an own-screen character", corr, guestCorr, relayed)
	if guestCorr > 1 {
		t.Errorf("%d corrections of a guest in the steady state", guestCorr)
	}
	if relayed != 0 {
		t.Errorf("a snapshot relayed a character of the receiving screen %d times", relayed)
	}
	st := h.server.seats[a.c.Net().Player()]
	if r := h.server.relayFor(st); r != nil {
		t.Errorf("the server relays % x to a screen alone in the arena", r)
	}
}

// TestGuestsByteCost measures what two guests add to a connection's
// traffic, both ways, against the same client playing alone, and holds
// each way to what the layout allows: up, per packet, a local number and
// a command packet of at most MaxPerPacket commands per guest; down, per
// snapshot, a guest section (2 + 5..12 bytes a guest) and the guests'
// characters' entries.
func TestGuestsByteCost(t *testing.T) {
	const seed = 1207
	measure := func(guests int) (upPerPacket, downPerPacket float64) {
		h := newHarness(t, loadArena(t))
		a := h.seated(memnet.Broadband, seed, false)
		a.input = running(0.5)
		if guests > 0 {
			ins := make([]game.Input, guests)
			names := make([]string, guests)
			for i := range ins {
				ins[i], names[i] = running(-0.5), "g"
			}
			h.seatGuests(a, names, ins...)
		}
		h.run(500 * time.Millisecond)
		s0 := a.c.Net().Stats()
		c0 := a.c.Net().Conn().Stats()
		h.run(3 * time.Second)
		s1 := a.c.Net().Stats()
		c1 := a.c.Net().Conn().Stats()
		sent := float64(c1.PacketsSent - c0.PacketsSent)
		got := float64(c1.PacketsReceived - c0.PacketsReceived)
		return float64(s1.BytesOut-s0.BytesOut) / sent, float64(s1.BytesIn-s0.BytesIn) / got
	}
	up0, down0 := measure(0)
	up2, down2 := measure(2)
	p := loadArena(t)
	perGuestUp, perGuestDown := (up2-up0)/2, (down2-down0)/2
	t.Logf("seed %d: bytes a packet up %.1f alone, %.1f with 2 guests (%.1f a guest); a snapshot down %.1f alone, %.1f with 2 guests (%.1f a guest)",
		seed, up0, up2, perGuestUp, down0, down2, perGuestDown)
	if maxUp := float64(1 + prediction.PacketSize(prediction.MaxPerPacket, len(p.Axes), len(p.Buttons))); perGuestUp <= 0 || perGuestUp > maxUp {
		t.Errorf("a guest costs %.1f bytes a packet up; its stream is at most %.0f", perGuestUp, maxUp)
	}
	if perGuestDown <= 0 || perGuestDown > 40 {
		t.Errorf("a guest costs %.1f bytes a snapshot down", perGuestDown)
	}
}

// TestNoOneIsRelayedTheirOwnScreen: with a's guest and b's character both
// beside a's, the relay to a names b's character and not its own guest's
// (a predicts that one), and the relay to b names both of a's; b beside
// a's guest alone is relayed to a too.
func TestNoOneIsRelayedTheirOwnScreen(t *testing.T) {
	const seed = 1208
	t.Logf("seed %d", seed)
	h := newHarness(t, loadArena(t))
	a := h.seated(memnet.Broadband, seed, false)
	b := h.seated(memnet.Broadband, seed+1, false)
	gs := h.seatGuests(a, []string{"bo"}, running(1))
	h.run(300 * time.Millisecond)
	srv := h.server.Game().Store()
	ownA, ownB := a.c.Game().Own(), b.c.Game().Own()
	at := *srv.Transform(ownA)
	srv.Transform(gs[0].Entity).X, srv.Transform(gs[0].Entity).Y = at.X+1, at.Y
	srv.Transform(ownB).X, srv.Transform(ownB).Y = at.X-1, at.Y
	relayed := func(p *peer) map[entity.ID]bool {
		st := h.server.seats[p.c.Net().Player()]
		for _, o := range []*seat{h.server.seats[a.c.Net().Player()], h.server.seats[b.c.Net().Player()], h.server.guests[gs[0].Player]} {
			o.intentOK = true
		}
		r, _, err := netmsg.ParseRelay(h.server.relayFor(st), nil)
		if err != nil {
			t.Fatalf("relay to player %d: %v", st.player, err)
		}
		out := map[entity.ID]bool{}
		for _, e := range r {
			out[e.ID] = true
		}
		return out
	}
	toA, toB := relayed(a), relayed(b)
	t.Logf("relayed to a %v, to b %v", toA, toB)
	if !toA[ownB] || toA[gs[0].Entity] || toA[ownA] {
		t.Errorf("the relay to a names %v: want b's character %v and not a's guest's %v", toA, ownB, gs[0].Entity)
	}
	if !toB[ownA] || !toB[gs[0].Entity] {
		t.Errorf("the relay to b names %v: want a's character %v and a's guest's %v", toB, ownA, gs[0].Entity)
	}
	// b beside a's guest, far from a's own character: a predicts its guest
	// into b, so b's run is relayed to a still.
	srv.Transform(gs[0].Entity).X = at.X + 3*RelayReach
	srv.Transform(ownB).X = at.X + 3*RelayReach + 1
	if toA := relayed(a); !toA[ownB] {
		t.Errorf("b beside a's guest is not relayed to a: %v", toA)
	}
}

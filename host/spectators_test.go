package host

import (
	"context"
	"strings"
	"sync"
	"testing"

	"vkm/transport"
)

// TestSpectatorWatchesAFullServer serves a one-seat arena over UDP on
// 127.0.0.1 with the admin listener: a bot takes the seat, then a client
// run with Spectate (as client --spectate --follow 1) is let in all the
// same and plays on; /metrics counts one player and one spectator apart.
func TestSpectatorWatchesAFullServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	p := loadArena(t)
	p.Players = 1
	base, addr, served := servedWithAdmin(t, ctx, p)
	play, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if _, err := PlayBots(play, BotsConfig{Play: PlayConfig{Project: loadArena(t), Connect: addr, Logger: testLogger(t)}, Kind: "wander", Seed: 3, Count: 1}); err != nil {
			t.Error(err)
		}
	}()
	pollMetrics(t, ctx, base, "the bot seated", func(m map[string]float64) bool { return m["vkm_players"] == 1 })
	var mu sync.Mutex
	var states []string
	go func() {
		defer wg.Done()
		_, err := Play(play, PlayConfig{Project: loadArena(t), Connect: addr, Logger: testLogger(t), Name: "eve", Spectate: true, Follow: 1,
			OnState: func(state, why string) {
				mu.Lock()
				states = append(states, state+" "+why)
				mu.Unlock()
			}})
		if err != nil {
			t.Error(err)
		}
	}()
	m := pollMetrics(t, ctx, base, "the spectator watching", func(m map[string]float64) bool {
		return m["vkm_spectators"] == 1
	})
	if m["vkm_players"] != 1 || m["vkm_player_seats"] != 1 {
		t.Fatalf("with a spectator: %v players of %v seats", m["vkm_players"], m["vkm_player_seats"])
	}
	mu.Lock()
	got := strings.Join(states, "; ")
	mu.Unlock()
	if !strings.Contains(got, transport.StatePlaying.String()) || strings.Contains(got, "refused") {
		t.Fatalf("the spectator's session went %q", got)
	}
	stop()
	wg.Wait()
	cancel()
	served()
}

// TestAdminListsSpectatorsApart: the admin's players command lists the
// players, then the spectators under a line of their own.
func TestAdminListsSpectatorsApart(t *testing.T) {
	all := []transport.PlayerInfo{{Player: 1, Name: "ann"}, {Player: 2, Name: "eve", Spectator: true}, {Player: 3, Name: "bo"}}
	players, watching := splitSpectators(all)
	if len(players) != 2 || len(watching) != 1 || watching[0].Name != "eve" {
		t.Fatalf("split into %v and %v", players, watching)
	}
	var b strings.Builder
	writeSpectators(&b, watching)
	if got := b.String(); !strings.HasPrefix(got, "\n1 spectators\n2 \"eve\"") {
		t.Fatalf("spectators listed as %q", got)
	}
	b.Reset()
	writeSpectators(&b, nil)
	if b.Len() != 0 {
		t.Fatalf("no spectators listed as %q", b.String())
	}
}

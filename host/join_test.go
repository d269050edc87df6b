package host

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"vkm/host/netio"
	"vkm/transport/token"
)

// BotsConfig.Join places each bot where it answers (a failed answer fails
// that bot alone), and Seated follows the server's player count.
func TestBotsJoinWhereTheyAreToldAndSeatedCounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := netio.NewLoopback()
		var mu sync.Mutex
		var counts []int
		addr, stop := servedWith(t, n, ServeConfig{Project: loadArena(t), Seated: func(p int) {
			mu.Lock()
			counts = append(counts, p)
			mu.Unlock()
		}})
		ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
		defer cancel()
		var smu sync.Mutex
		playing := map[int]bool{}
		rep, err := PlayBots(ctx, BotsConfig{
			Play: PlayConfig{Project: loadArena(t), Net: n, Logger: testLogger(t)},
			Kind: "wander", Seed: 1, Count: 3, Lite: true,
			Join: func(_ context.Context, i int, name string) (string, *token.Token, error) {
				if i == 2 {
					return "", nil, errors.New("no seat for " + name)
				}
				return addr, nil, nil
			},
			OnState: func(i int, state, why string) {
				smu.Lock()
				defer smu.Unlock()
				if state == "playing" {
					playing[i] = true
				}
				if len(playing) == 2 {
					cancel()
				}
			},
		})
		if err == nil || !strings.Contains(err.Error(), "no seat for bot3") {
			t.Fatalf("PlayBots error %v, want bot 3's join to fail", err)
		}
		if ctx.Err() == context.DeadlineExceeded {
			t.Fatalf("the two bots told where to play were not both seated: %v", playing)
		}
		if rep.Clients[2].Exit != "failed" || rep.Clients[0].State != "playing" || rep.Clients[1].State != "playing" {
			t.Fatalf("clients: %+v", rep.Clients)
		}
		stop()
		mu.Lock()
		defer mu.Unlock()
		if len(counts) < 2 || counts[0] != 0 || !slices.Contains(counts, 2) {
			t.Fatalf("Seated saw %v, want 0 first and 2 later", counts)
		}
		for i := 1; i < len(counts); i++ {
			if counts[i] == counts[i-1] {
				t.Fatalf("Seated repeated a count: %v", counts)
			}
		}
	})
}

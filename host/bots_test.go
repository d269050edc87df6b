package host

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"vkm/host/netio"
)

// TestSixBotsOnAFourSeatArena runs six bot clients in one process against
// the arena on loopback, full clients and lite ones: four are seated and two
// are refused as full, each with the sentence a player is shown, and the
// report has all six.
func TestSixBotsOnAFourSeatArena(t *testing.T) {
	for _, lite := range []bool{false, true} {
		t.Run(map[bool]string{false: "full", true: "lite"}[lite], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { sixBots(t, netio.NewLoopback(), lite) })
		})
	}
}

// TestSixLiteBotsOverUDP is the same crowd on real sockets, as a smoke test.
func TestSixLiteBotsOverUDP(t *testing.T) { sixBots(t, nil, true) }

func sixBots(t *testing.T, n *netio.Loopback, lite bool) {
	addr, stop := served(t, n, loadArena(t))
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	var mu sync.Mutex
	settled := map[int]string{}
	rep, err := PlayBots(ctx, BotsConfig{
		Play: PlayConfig{Project: loadArena(t), Connect: addr, Net: n, Logger: testLogger(t)},
		Kind: "wander", Seed: 1, Count: 6, Lite: lite,
		OnState: func(i int, state, why string) {
			mu.Lock()
			defer mu.Unlock()
			if _, ok := settled[i]; !ok && (state == "playing" || state == "refused") {
				settled[i] = state
			}
			if len(settled) == 6 {
				cancel()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("not every client was seated or refused: %v", settled)
	}
	if len(rep.Clients) != 6 {
		t.Fatalf("report has %d clients, want 6", len(rep.Clients))
	}
	players := map[uint16]bool{}
	refused := 0
	for i, c := range rep.Clients {
		t.Logf("client %d: state %s player %d refusal %q: %q", i+1, c.State, c.Player, c.Refusal, c.LastError)
		switch c.State {
		case "playing":
			if c.Player == 0 || players[c.Player] || c.Errors != 0 {
				t.Errorf("client %d plays as player %d (taken: %v), %d script errors", i+1, c.Player, players[c.Player], c.Errors)
			}
			players[c.Player] = true
		case "refused":
			refused++
			if c.Refusal != "full" || !strings.Contains(c.LastError, "full") {
				t.Errorf("client %d refused for %q with %q, want full with the sentence", i+1, c.Refusal, c.LastError)
			}
		default:
			t.Errorf("client %d ended %s", i+1, c.State)
		}
	}
	if len(players) != 4 || refused != 2 {
		t.Fatalf("%d playing and %d refused, want 4 and 2", len(players), refused)
	}
	// A refused client may have asked more than once before the answer
	// reached it; each asking is refused.
	if srv := stop(); srv.Joins != 4 || srv.Refused < 2 {
		t.Fatalf("server saw %d joins and %d refusals, want 4 and at least 2", srv.Joins, srv.Refused)
	}
}

// TestSixtyFourLiteBotsFillTheCrowd seats a lite bot client in each of the
// crowd's 64 seats.
func TestSixtyFourLiteBotsFillTheCrowd(t *testing.T) {
	synctest.Test(t, testFillTheCrowd)
}

func testFillTheCrowd(t *testing.T) {
	n := netio.NewLoopback()
	addr, stop := served(t, n, loadCrowd(t))
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	var mu sync.Mutex
	playing := map[int]bool{}
	rep, err := PlayBots(ctx, BotsConfig{
		Play: PlayConfig{Project: loadCrowd(t), Connect: addr, Net: n, Logger: testLogger(t)},
		Kind: "wander", Seed: 1, Count: 64, Lite: true,
		OnState: func(i int, state, why string) {
			mu.Lock()
			defer mu.Unlock()
			if state == "playing" {
				playing[i] = true
			}
			if len(playing) == 64 {
				cancel()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	seats := map[uint16]bool{}
	for i, c := range rep.Clients {
		if c.State != "playing" || c.Player == 0 || seats[c.Player] {
			t.Errorf("client %d: state %s player %d (%s)", i+1, c.State, c.Player, c.LastError)
		}
		seats[c.Player] = true
	}
	srv := stop()
	t.Logf("%d clients playing; the server saw %d joins, %d refusals", len(seats), srv.Joins, srv.Refused)
	if srv.Joins != 64 || srv.Errors != 0 {
		t.Fatalf("server: %d joins, %d errors", srv.Joins, srv.Errors)
	}
}

func TestPlayBotsNeedsAClientAndAKnownBot(t *testing.T) {
	p := loadArena(t)
	if _, err := PlayBots(context.Background(), BotsConfig{Play: PlayConfig{Project: p}, Kind: "wander"}); err == nil {
		t.Error("zero clients ran without an error")
	}
	if _, err := PlayBots(context.Background(), BotsConfig{Play: PlayConfig{Project: p}, Kind: "sleeper", Count: 1}); err == nil {
		t.Error("an unknown bot ran without an error")
	}
	if _, err := PlayBots(context.Background(), BotsConfig{Play: PlayConfig{Project: p}, Kind: "wander", Count: 1, Lite: true}); err == nil {
		t.Error("a lite client ran offline without an error")
	}
}

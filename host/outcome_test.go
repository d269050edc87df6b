package host

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"vkm/host/netio"
)

func TestSettleSaysHowARunEnded(t *testing.T) {
	for _, tc := range []struct {
		name string
		rep  ClientReport
		err  error
		want string
	}{
		{"offline to the end", ClientReport{State: "offline"}, nil, "ok"},
		{"seated to the end", ClientReport{State: "playing"}, nil, "ok"},
		{"could not run", ClientReport{}, errors.New("host: the socket closed"), "failed"},
		{"its socket failed while seated", ClientReport{State: "playing"}, errors.New("host: the socket closed"), "failed"},
		{"failed before, settled again", ClientReport{State: "failed", LastError: "x"}, nil, "failed"},
		{"refused", ClientReport{State: "refused", Refusal: "full"}, nil, "refused"},
		{"dropped", ClientReport{State: "disconnected"}, nil, "disconnected"},
		{"never answered", ClientReport{State: "joining"}, nil, "unseated"},
		{"script errors offline", ClientReport{State: "offline", Errors: 2}, nil, "script_errors"},
		{"script errors seated", ClientReport{State: "playing", Errors: 1}, nil, "script_errors"},
		{"refused says so before its script errors", ClientReport{State: "refused", Errors: 1}, nil, "refused"},
	} {
		r := tc.rep
		r.settle(tc.err)
		if r.Exit != tc.want {
			t.Errorf("%s: exit %q, want %q", tc.name, r.Exit, tc.want)
		}
		if r.Events == nil {
			t.Errorf("%s: events nil: the report would say null", tc.name)
		}
		if tc.err != nil && (r.State != "failed" || r.LastError != tc.err.Error()) {
			t.Errorf("%s: state %q last error %q, want failed with the error", tc.name, r.State, r.LastError)
		}
		again := r
		again.settle(nil)
		if again.Exit != r.Exit {
			t.Errorf("%s: settled again, exit %q became %q", tc.name, r.Exit, again.Exit)
		}
	}
}

func TestReportSaysWhichClientsFailed(t *testing.T) {
	ok := ClientReport{Exit: "ok"}
	clean := NewReport(ok, ok)
	if err := clean.Err(); err != nil || clean.Failed == nil || len(clean.Failed) != 0 {
		t.Fatalf("clean run: failed %v, err %v", clean.Failed, err)
	}
	one := NewReport(ClientReport{Exit: "refused", LastError: "the server is full"})
	if err := one.Err(); err == nil || err.Error() != "host: refused: the server is full" || !slices.Equal(one.Failed, []int{1}) {
		t.Fatalf("one refused client: failed %v, err %v", one.Failed, one.Err())
	}
	broke := NewReport(ClientReport{Exit: "script_errors", Errors: 1, ErrorMessages: []string{"scripting: a.lua:1: boom"}})
	if err := broke.Err(); err == nil || err.Error() != "host: a script error: scripting: a.lua:1: boom" {
		t.Fatalf("one script error: %v", err)
	}
	many := NewReport(ok,
		ClientReport{Exit: "disconnected", LastError: "the server stopped answering"},
		ok,
		ClientReport{Exit: "script_errors", Errors: 2, ErrorMessages: []string{"scripting: a.lua:1: boom", "scripting: a.lua:2: bang"}},
		ClientReport{Exit: "unseated"},
		ClientReport{Exit: "failed", LastError: "udp: no route"},
	)
	if !slices.Equal(many.Failed, []int{2, 4, 5, 6}) {
		t.Fatalf("failed %v, want [2 4 5 6]", many.Failed)
	}
	msg := many.Err().Error()
	t.Log(msg)
	for _, want := range []string{"4 of 6 clients failed", "client 2: disconnected: the server stopped answering",
		"client 4: 2 script errors, the first: scripting: a.lua:1: boom", "client 5: not seated", "1 more in the report"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") || strings.Contains(msg, "client 6") {
		t.Errorf("%q: want one line naming the first %d", msg, failuresNamed)
	}
}

func TestABotClientTurnedAwaySaysSoInTheReport(t *testing.T) {
	synctest.Test(t, testBotTurnedAway)
}

func testBotTurnedAway(t *testing.T) {
	net := netio.NewLoopback()
	one := loadArena(t)
	one.Players = 1
	addr, stop := served(t, net, one)
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	var settled atomic.Int32
	rep, err := PlayBots(ctx, BotsConfig{
		Play: PlayConfig{Project: loadArena(t), Connect: addr, Net: net, Logger: testLogger(t)},
		Kind: "idle", Count: 2,
		OnState: func(i int, state, why string) {
			if settled.Add(1) == 2 { // one seated, one refused
				cancel()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("the clients never both heard back: %+v", rep)
	}
	if len(rep.Failed) != 1 {
		t.Fatalf("failed %v, want one client of two", rep.Failed)
	}
	n := rep.Failed[0]
	turned, seated := rep.Clients[n-1], rep.Clients[2-n]
	t.Logf("client %d: %s %s %q", n, turned.Exit, turned.Refusal, turned.LastError)
	if turned.Exit != "refused" || turned.Refusal == "" || seated.Exit != "ok" || seated.State != "playing" {
		t.Fatalf("clients %+v", rep.Clients)
	}
	if msg := rep.Err().Error(); !strings.Contains(msg, fmt.Sprintf("1 of 2 clients failed; client %d: refused: ", n)) {
		t.Fatalf("Err %q", msg)
	}
}

// TestHeadlessClientEndsWhenRefused: a client with no page stops on its
// own when the server turns it away, without waiting for a duration or a
// signal, and reports the refusal.
func TestHeadlessClientEndsWhenRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		net := netio.NewLoopback()
		addr, stop := served(t, net, loadArena(t))
		defer stop()
		other := loadArena(t)
		other.Buttons = other.Buttons[:1] // a different set of actions: a mismatch
		ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
		defer cancel()
		rep, err := Play(ctx, PlayConfig{Project: other, Connect: addr, Net: net, Logger: testLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		if ctx.Err() != nil {
			t.Fatalf("Play ran until the deadline: %+v", rep)
		}
		if rep.State != "refused" || rep.Exit != "refused" || rep.Refusal != "mismatch" {
			t.Fatalf("report %+v, want refused for mismatch", rep)
		}
	})
}

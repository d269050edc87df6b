package agones_test

import (
	"context"
	"log/slog"
	"net/netip"
	"slices"
	"testing"
	"time"

	"vkm/host/agones"
	"vkm/internal/agonestest"
)

// waitFor waits for cond, checked at each call or change the stand-in
// sees, for at most 10 s.
func waitFor(t *testing.T, sdk *agonestest.SDK, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		changed := sdk.Changed()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-time.After(50 * time.Millisecond): // a condition on the Link's side
		case <-deadline:
			t.Fatalf("%s: not within 10 s; calls: %v", what, paths(sdk.Calls("")))
		}
	}
}

func paths(calls []agonestest.Call) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.Path)
	}
	return out
}

// TestALinkAgainstTheStandIn runs a Link against the stand-in SDK server
// (internal/agonestest, written from Agones' documentation of the HTTP
// API): Ready once serving, labels, Health at its period while the loop
// beats, players connected, a Shutdown at the stop. The stand-in refuses
// the first calls, as an SDK server that starts after the game server
// does.
func TestALinkAgainstTheStandIn(t *testing.T) {
	sdk := agonestest.New(t, "203.0.113.9", 7031)
	sdk.Refuse("/ready", 2)
	const period = 100 * time.Millisecond
	core := agones.NewCore(agones.Config{HealthPeriod: period, Capacity: 4,
		Labels: [][2]string{{"vkm-project", "arena"}}, Annotations: [][2]string{{"vkm-fingerprint", "00ff"}}})
	l := agones.Start(agones.NewClient(sdk.URL), core, slog.New(slog.NewTextHandler(t.Output(), nil)))
	stopBeats := make(chan struct{})
	beats := make(chan struct{})
	go func() { // the serving loop, at 64 Hz
		defer close(beats)
		tk := time.NewTicker(time.Second / 64)
		defer tk.Stop()
		for {
			select {
			case <-stopBeats:
				return
			case <-tk.C:
				l.Beat()
			}
		}
	}()
	l.Serving()
	waitFor(t, sdk, "Ready", func() bool { return sdk.State() == "Ready" })
	if n := len(sdk.Calls("/ready")); n != 3 {
		t.Errorf("%d calls of /ready, want 3 (two refused)", n)
	}
	start := time.Now()
	startHealth := len(sdk.Calls("/health"))
	time.Sleep(time.Second) // the span whose pings are counted
	n := len(sdk.Calls("/health")) - startHealth
	want := float64(time.Since(start)) / float64(period)
	t.Logf("%d Health pings in %v at one per %v", n, time.Since(start).Round(time.Millisecond), period)
	if float64(n) < want*0.6 || float64(n) > want+2 {
		t.Errorf("%d Health pings in %v, want about %.0f", n, time.Since(start), want)
	}
	close(stopBeats)
	<-beats
	stalled := len(sdk.Calls("/health"))
	time.Sleep(5 * period)
	if n := len(sdk.Calls("/health")) - stalled; n > 1 {
		t.Errorf("%d Health pings while the loop stalled", n)
	}
	if sdk.Labels()["agones.dev/sdk-vkm-project"] != "arena" || sdk.Annotations()["agones.dev/sdk-vkm-fingerprint"] != "00ff" {
		t.Errorf("labels %v, annotations %v", sdk.Labels(), sdk.Annotations())
	}

	l.Roster([]string{"42", "43"})
	waitFor(t, sdk, "two players connected and the server allocated", func() bool {
		return len(sdk.Players()) == 2 && sdk.State() == "Allocated"
	})
	if sdk.Capacity() != 4 {
		t.Errorf("capacity %d, want 4", sdk.Capacity())
	}
	l.Roster([]string{"43"})
	waitFor(t, sdk, "one player left", func() bool { return slices.Equal(sdk.Players(), []string{"43"}) })
	l.Stop(5 * time.Second)
	if sdk.State() != "Shutdown" || len(sdk.Calls("/shutdown")) != 1 {
		t.Errorf("after Stop: state %s, %d calls of /shutdown", sdk.State(), len(sdk.Calls("/shutdown")))
	}
	if n := len(sdk.Calls("/ready")); n != 3 {
		t.Errorf("%d calls of /ready in all, want the 3 at the start", n)
	}
}

// TestPublicAddress reads the address players reach from the GameServer:
// its address and its port named "game", or its only port.
func TestPublicAddress(t *testing.T) {
	sdk := agonestest.New(t, "198.51.100.4", 7654)
	g, err := agones.NewClient(sdk.URL).WaitGameServer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"game", ""} {
		a, err := g.Public(context.Background(), name)
		if err != nil || a != netip.MustParseAddrPort("198.51.100.4:7654") {
			t.Errorf("Public(%q) = %v, %v", name, a, err)
		}
	}
	g.Status.Ports = append(g.Status.Ports, agones.Port{Name: "web", Port: 7655})
	if _, err := g.Public(context.Background(), "admin"); err == nil {
		t.Error("no error for a port name the GameServer does not have, among two")
	}
	if a, _ := g.Public(context.Background(), "web"); a.Port() != 7655 {
		t.Errorf("Public(web) = %v", a)
	}
}

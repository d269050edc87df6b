package host

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"
)

// freeUDPPort returns a UDP port nothing on this machine held a moment ago.
func freeUDPPort(t *testing.T) int {
	t.Helper()
	c, err := net.ListenPacket("udp4", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// Two servers of one project on this machine: the second takes the port
// after the project's, and a LAN search on loopback finds both, with the
// player seated on the first.
func TestLANFindsTwoServersOfOneProject(t *testing.T) {
	p := loadArena(t)
	p.Port = freeUDPPort(t)
	disc := freeUDPPort(t)
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	var addrs []netip.AddrPort
	var dones []chan error
	for range 2 {
		ready := make(chan netip.AddrPort, 1)
		done := make(chan error, 1)
		cfg := ServeConfig{Project: p, LAN: disc, Logger: testLogger(t), Ready: func(a netip.AddrPort) { ready <- a }}
		go func() {
			_, err := Serve(ctx, cfg)
			done <- err
		}()
		select {
		case a := <-ready:
			addrs = append(addrs, a)
		case err := <-done:
			t.Fatalf("Serve ended before listening: %v", err)
		}
		dones = append(dones, done)
	}
	defer func() {
		cancel()
		for _, d := range dones {
			if err := <-d; err != nil {
				t.Errorf("Serve: %v", err)
			}
		}
	}()
	if addrs[0].Port() != uint16(p.Port) || addrs[1].Port() != uint16(p.Port+1) {
		t.Fatalf("servers on %v, want ports %d and %d", addrs, p.Port, p.Port+1)
	}
	// A player on the first server.
	playing := make(chan struct{})
	pctx, leave := context.WithCancel(ctx)
	played := make(chan error, 1)
	go func() {
		_, err := Play(pctx, PlayConfig{Project: p, Connect: addrs[0].String(), Name: "tester",
			OnState: func(state, why string) {
				if state == "playing" {
					close(playing)
				}
			}})
		played <- err
	}()
	defer func() {
		leave()
		<-played
	}()
	select {
	case <-playing:
	case err := <-played:
		t.Fatalf("the player never played: %v", err)
	}
	// The serving loop counts the player at its next tick: search until
	// both answer with the counts expected, or the test's deadline.
	for try := 1; ; try++ {
		games, err := SearchLAN(ctx, disc, 300*time.Millisecond, []string{"127.255.255.255"})
		if err != nil {
			t.Fatal(err)
		}
		found := map[netip.AddrPort]LANGame{}
		for _, g := range games {
			found[g.Addr] = g
		}
		g0, ok0 := found[addrs[0]]
		g1, ok1 := found[addrs[1]]
		if ok0 && ok1 && g0.Players == 1 && g1.Players == 0 {
			for _, g := range []LANGame{g0, g1} {
				t.Logf("search %d: %v %s %d/%d key=%v fingerprint=%016x", try, g.Addr, g.Project, g.Players, g.Seats, g.Key, g.Fingerprint)
				if g.Project != p.Name || g.Seats != uint16(p.Players) || g.Key || g.Fingerprint == 0 {
					t.Errorf("answer %+v for project %s of %d seats", g, p.Name, p.Players)
				}
			}
			if g0.Fingerprint != g1.Fingerprint {
				t.Errorf("one project, two fingerprints: %x, %x", g0.Fingerprint, g1.Fingerprint)
			}
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("after %d searches: %+v", try, games)
		}
	}
}

// The page's LAN search (what /vkm/lan answers with) finds a server on
// this machine.
func TestThePageLANSearchFindsAServer(t *testing.T) {
	p := loadArena(t)
	p.Port = freeUDPPort(t)
	disc := freeUDPPort(t)
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	ready := make(chan netip.AddrPort, 1)
	done := make(chan error, 1)
	go func() {
		_, err := Serve(ctx, ServeConfig{Project: p, LAN: disc, Logger: testLogger(t), Ready: func(a netip.AddrPort) { ready <- a }})
		done <- err
	}()
	at := <-ready
	cfg := ServeConfig{LAN: disc, lanTargets: []string{"127.255.255.255"}}
	games, err := cfg.pageLAN()(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(games) != 1 || games[0].Addr != at.String() || games[0].Project != p.Name || games[0].Seats != p.Players {
		t.Errorf("the page's search found %+v, want the server at %v", games, at)
	}
	if (&ServeConfig{}).pageLAN() != nil {
		t.Error("a server answering no discovery offers its page a search")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

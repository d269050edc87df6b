package session

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vkm/host/project"
	"vkm/transport"
	"vkm/transport/memnet"
)

// loadSpin500 loads bench/spin with 500 bodies on a 25 × 20 grid, the
// copy bench/load.sh serves as spin500: more turning bodies than a
// snapshot holds, so each is heard of every few snapshots.
func loadSpin500(t testing.TB) *project.Project {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "spin500")
	if err := os.CopyFS(dir, os.DirFS("../../bench/spin")); err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(dir, "scripts", "main.lua")
	b, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	const from, to = "local COLUMNS, ROWS, SPACING = 10, 5, 16.0", "local COLUMNS, ROWS, SPACING = 25, 20, 16.0"
	if !strings.Contains(string(b), from) {
		t.Fatalf("bench/spin's grid is no longer %q", from)
	}
	if err := os.WriteFile(main, []byte(strings.Replace(string(b), from, to, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestJoiningATurningCrowdIsDrawnWithoutStalls joins two watchers to 500
// turning bodies over a link that neither delays nor loses (one machine,
// as bench/load.sh serves them) and counts their stalls from the join.
// While the server introduces the world to a new client, a body is heard
// of at uneven gaps (a tick or two apart, then up to 27 ticks while the
// rest are described), and an interval measured from those first gaps
// promised a next gap the body then ran past: it was carried on 200 ms
// and drawn frozen, in 101 frames of each watcher's first three seconds
// (all of them in the first second). A body is carried on as a new one,
// up to ExtrapolateNew, until its interval has settled.
func TestJoiningATurningCrowdIsDrawnWithoutStalls(t *testing.T) {
	t.Parallel() // its own sessions, game and link; nothing shared
	if testing.Short() {
		t.Skip("a seeded match of 500 scripted bodies: runs without -short")
	}
	if raceEnabled {
		t.Skip("500 scripted bodies take minutes under the race detector, which finds nothing on one goroutine")
	}
	const seed = 81
	t.Logf("seed %d and %d, a perfect link", seed, seed+1)
	h := newHarness(t, loadSpin500(t))
	a := h.join(loadSpin500(t), memnet.Perfect, seed)
	b := h.join(loadSpin500(t), memnet.Perfect, seed+1)
	h.runUntil(5*time.Second, "both joins", func() bool { return a.c.Playing() && b.c.Playing() })
	const seconds = 3
	h.run(seconds * time.Second)
	for _, p := range []struct {
		name string
		peer *peer
	}{{"a", a}, {"b", b}} {
		st := p.peer.c.Stats(h.now)
		t.Logf("%s: %d snapshots, %d stalls, %d frames carried a body on, in %d s from the join",
			p.name, st.Snapshots, st.InterpStalls, st.InterpExtrapolated, seconds)
		if st.InterpStalls > 0 {
			t.Errorf("%s: %d stalls in the %d s from the join, want none", p.name, st.InterpStalls, seconds)
		}
	}
}

// TestAStarvedServersTurningCrowdIsDrawnWithoutStalls serves 500 turning
// bodies to two watchers as processes on a busy machine run them: the
// server wakes at its deadline, or, three wakes in ten, up to 150 ms
// late, and then runs the ticks it owes back to back and sends one round
// (127 rounds in the four seconds, against 256 ticks); the watchers frame
// when a datagram comes and when their next tick is due. It counts their
// stalls over the first four seconds, in which the join takes longer to
// settle than with a punctual server; before a body's interval had to
// settle, each watcher stalled in 155 frames of them.
func TestAStarvedServersTurningCrowdIsDrawnWithoutStalls(t *testing.T) {
	t.Parallel() // its own sessions, game and link; nothing shared
	if testing.Short() {
		t.Skip("a seeded match of 500 scripted bodies: runs without -short")
	}
	if raceEnabled {
		t.Skip("500 scripted bodies take minutes under the race detector, which finds nothing on one goroutine")
	}
	const seed = 5
	t.Logf("seed %d", seed)
	r := newServedRig(t, loadSpin500, 2, seed)
	r.serverLate = func(g *rand.Rand) time.Duration {
		if g.Float64() < 0.3 {
			return time.Duration(g.Float64() * float64(150*time.Millisecond))
		}
		return 0
	}
	const seconds = 4
	r.run(seconds * time.Second)
	t.Logf("the server sent %d rounds in %d s", r.rounds, seconds)
	for i, p := range r.clients {
		st := p.c.Stats(r.now)
		t.Logf("watcher %d: %d snapshots, %d stalls, %d frames carried a body on", i+1, st.Snapshots, st.InterpStalls, st.InterpExtrapolated)
		if st.InterpStalls > seconds {
			t.Errorf("watcher %d: %d stalls in %d s, want at most one a second", i+1, st.InterpStalls, seconds)
		}
	}
}

// servedRig runs a server and its watchers on a synthetic clock the way
// served processes run: the server wakes when its Until says, late by
// what serverLate draws, and runs what elapsed time has made due; each
// client frames when a datagram comes and when its Until says. Links are
// perfect (one machine).
type servedRig struct {
	rng        *rand.Rand
	now        transport.Time
	server     *Server
	clients    []*rigClient
	serverLate func(*rand.Rand) time.Duration
	wake, last transport.Time
	rounds     int
}

type rigClient struct {
	c          *Client
	addr       netip.AddrPort
	pipe       *memnet.Pipe
	wake, last transport.Time
}

func newServedRig(t testing.TB, load func(testing.TB) *project.Project, n int, seed uint64) *servedRig {
	t.Helper()
	s, err := NewServer(ServerConfig{Project: load(t), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	r := &servedRig{rng: rand.New(rand.NewPCG(seed, 1)), server: s,
		serverLate: func(*rand.Rand) time.Duration { return 0 }}
	for i := range n {
		c, err := NewClient(ClientConfig{Project: load(t), Name: fmt.Sprintf("w%d", i+1), Logger: testLogger(t), Now: r.now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		pipe, err := memnet.NewPipe(memnet.Perfect, seed+uint64(i)+1)
		if err != nil {
			t.Fatal(err)
		}
		r.clients = append(r.clients, &rigClient{c: c, pipe: pipe,
			addr: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(i + 1)}), 40000)})
	}
	return r
}

// step advances the synthetic clock by a millisecond and runs what is due.
func (r *servedRig) step() {
	r.now += transport.Time(time.Millisecond)
	if r.now >= r.wake {
		for _, p := range r.clients {
			for {
				b, ok := p.pipe.AtoB.Receive(r.now)
				if !ok {
					break
				}
				r.server.Receive(p.addr, b, r.now)
			}
		}
		if r.server.Advance(time.Duration(r.now-r.last), r.now) {
			r.rounds++
		}
		r.last = r.now
		for {
			to, b, ok := r.server.Net().NextDatagram()
			if !ok {
				break
			}
			for _, p := range r.clients {
				if p.addr == to {
					p.pipe.BtoA.Send(b, r.now)
				}
			}
		}
		r.wake = r.now + transport.Time(r.server.Until(r.now)+r.serverLate(r.rng))
	}
	for _, p := range r.clients {
		framed := false
		for {
			b, ok := p.pipe.BtoA.Receive(r.now)
			if !ok {
				break
			}
			p.c.Receive(b, r.now)
			p.frame(r.now)
			framed = true
		}
		if !framed && r.now >= p.wake {
			p.frame(r.now)
		}
	}
}

func (p *rigClient) frame(now transport.Time) {
	p.c.Frame(time.Duration(now-p.last), nil, nil, now)
	p.last = now
	for {
		b, ok := p.c.Net().NextDatagram()
		if !ok {
			break
		}
		p.pipe.AtoB.Send(b, now)
	}
	p.wake = now + transport.Time(p.c.Until(now))
}

func (r *servedRig) run(d time.Duration) {
	for end := r.now + transport.Time(d); r.now < end; {
		r.step()
	}
}

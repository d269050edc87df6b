package session

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"vkm/host/bot"
	"vkm/host/project"
	"vkm/host/session/netmsg"
	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/replication"
	"vkm/transport"
	"vkm/transport/memnet"
	"vkm/wire"
)

// BenchmarkServerTick measures the server's side of one 64 Hz frame of the
// arena with four wandering bot clients on perfect links: taking in their
// command packets, the tick, and the send round with a snapshot for each.
// The clients' frames run too, but only the server's part is timed and its
// heap allocations counted (server-µs/frame, server-allocs/frame): steady
// state should allocate nothing. ns/op is the whole frame, clients and
// counting included.
func BenchmarkServerTick(b *testing.B) {
	h := newHarness(b, loadArena(b))
	for i := range 4 {
		h.seated(memnet.Perfect, uint64(i+1), true)
	}
	h.run(2 * time.Second)
	benchServerFrames(b, h)
}

// BenchmarkServedSpin is BenchmarkServerTick for the busy world served
// beside Colyseus (BENCHMARKS.md): bench/spin with 500 turning bodies on a
// 25 × 20 grid, as bench/peers.sh makes it, watched by 8 idle clients.
func BenchmarkServedSpin(b *testing.B) {
	dir := b.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../bench/spin")); err != nil {
		b.Fatal(err)
	}
	main := filepath.Join(dir, "scripts", "main.lua")
	src, err := os.ReadFile(main)
	if err != nil {
		b.Fatal(err)
	}
	grid := strings.Replace(string(src), "COLUMNS, ROWS, SPACING = 10, 5, 16.0", "COLUMNS, ROWS, SPACING = 25, 20, 16.0", 1)
	if grid == string(src) {
		b.Fatal("bench/spin's grid line has changed")
	}
	if err := os.WriteFile(main, []byte(grid), 0o644); err != nil {
		b.Fatal(err)
	}
	p, err := project.LoadProject(dir)
	if err != nil {
		b.Fatal(err)
	}
	// A budget clock that stands still stops no call: building 500 bodies
	// takes more than the setup budget under an instruction counter.
	s, err := NewServer(ServerConfig{Project: p, Logger: testLogger(b), BudgetClock: func() time.Duration { return 0 }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	h := &harness{t: b, server: s}
	for i := range 8 {
		a := h.join(p, memnet.Perfect, uint64(i+1))
		h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() })
	}
	h.run(2 * time.Second)
	benchServerFrames(b, h)
}

// benchServerFrames times the server's side of each 64 Hz frame: its
// clients' datagrams in, Advance, its datagrams out.
func benchServerFrames(b *testing.B, h *harness) {
	step := transport.Time(time.Second / 64)
	var toServer, toClients []datagramTo
	var spent time.Duration
	var allocs uint64
	var ms runtime.MemStats
	for b.Loop() {
		h.now += step
		toServer = toServer[:0]
		for _, p := range h.clients {
			p.c.Frame(time.Duration(step), p.input, nil, h.now)
			for {
				d, ok := p.c.Net().NextDatagram()
				if !ok {
					break
				}
				toServer = append(toServer, datagramTo{p.addr, append([]byte(nil), d...)})
			}
		}
		toClients = toClients[:0]
		runtime.ReadMemStats(&ms)
		before := ms.Mallocs
		start := time.Now()
		for _, d := range toServer {
			h.server.Receive(d.addr, d.b, h.now)
		}
		h.server.Advance(time.Duration(step), h.now)
		for {
			to, d, ok := h.server.Net().NextDatagram()
			if !ok {
				break
			}
			toClients = append(toClients, datagramTo{to, d})
		}
		spent += time.Since(start)
		runtime.ReadMemStats(&ms)
		allocs += ms.Mallocs - before
		for _, d := range toClients {
			for _, p := range h.clients {
				if p.addr == d.addr {
					p.c.Receive(d.b, h.now)
				}
			}
		}
	}
	b.ReportMetric(float64(spent.Microseconds())/float64(b.N), "server-µs/frame")
	b.ReportMetric(float64(allocs)/float64(b.N), "server-allocs/frame")
}

// datagramTo is a datagram held for the server, with its sender.
type datagramTo struct {
	addr netip.AddrPort
	b    []byte
}

// BenchmarkSeatedTick measures one server tick with every seat taken by a
// wandering bot, its commands handed straight to the player's entity
// (behaviors, character controllers, physics, and whatever a served game
// records each tick): the simulation a server runs each tick, without the
// network. The arena seats 4; the crowd 64 among 500 crates, and is also
// run with 16.
func BenchmarkSeatedTick(b *testing.B) {
	for _, tc := range []struct {
		project string
		players int
	}{{"arena", 4}, {"crowd", 16}, {"crowd", 64}} {
		b.Run(fmt.Sprintf("%s/players=%d", tc.project, tc.players), func(b *testing.B) {
			p, err := project.LoadProject("../../projects/" + tc.project)
			if err != nil {
				b.Fatal(err)
			}
			s, _, tick := seatedSession(b, p, tc.players)
			g := s.Game()
			for range 2 * g.TickRate() {
				tick()
			}
			b.ReportAllocs()
			for b.Loop() {
				tick()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/tick")
			awake := 0
			g.Store().Each(func(id entity.ID) bool {
				if rb := g.Store().Rigidbody(id); rb != nil && rb.Awake {
					awake++
				}
				return true
			})
			b.ReportMetric(float64(awake), "awake-at-end")
		})
	}
}

// BenchmarkSeatedSendRound measures the send rounds of the crowd as it is
// served: 64 players seated and driven by wandering bots, a tick between
// rounds (untimed: on a server it runs between them and leaves the caches
// its own), and each round the world described once and a snapshot
// written for each player's connection with the project's reach and the
// server's tick rate (so moving bodies' states go predicted), every
// snapshot acknowledged two rounds after it went out (a round trip on a
// near link). Timed: building the round, folding the acknowledgements and
// writing the 64 snapshots.
func BenchmarkSeatedSendRound(b *testing.B) {
	p, err := project.LoadProject("../../projects/crowd")
	if err != nil {
		b.Fatal(err)
	}
	s, owns, tick := seatedSession(b, p, p.Players)
	g := s.Game()
	peers := make([]*replication.Peer, len(owns))
	for i := range peers {
		peers[i] = replication.NewPeer(g.Schema())
		peers[i].SetTickRate(g.TickRate())
		for _, id := range g.SceneIDs() {
			peers[i].Hold(id)
		}
		if p.Reach > 0 {
			peers[i].SetReach(replication.Reach{Near: p.Reach, Every: replication.ReachEvery})
		}
	}
	var seq wire.Seq
	acks := replication.AckFunc(func(q wire.Seq) (bool, bool) { return wire.Diff(seq, q) >= 2, false })
	var buf []byte
	bytes, snaps := 0, 0
	round := func() {
		s.buildRound()
		seq++
		for i, pr := range peers {
			pr.Acknowledge(acks)
			buf = pr.Write(buf[:0], s.round, owns[i], transport.MaxDataPayload-netmsg.PayloadOverhead)
			pr.Sent(seq)
			bytes += len(buf)
			snaps++
		}
	}
	for range 2 * g.TickRate() {
		tick()
		round()
	}
	bytes, snaps = 0, 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		tick()
		b.StartTimer()
		round()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/round")
	b.ReportMetric(float64(bytes)/float64(snaps), "bytes/snapshot")
}

// seatedSession is p served with players seated through its join
// handler, each driven by a wander bot of its own seed as a server session
// drives them, and their entities in seat order. tick runs one tick on the
// bots' next commands.
func seatedSession(b *testing.B, p *project.Project, players int) (s *Server, owns []entity.ID, tick func()) {
	b.Helper()
	s, err := NewServer(ServerConfig{Project: p, Logger: testLogger(b)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	g := s.Game()
	bots := make([]*bot.Bot, players)
	cmds := make([]*prediction.Command, players)
	owns = make([]entity.ID, players)
	for i := range players {
		id, err := g.Join(uint16(i + 1))
		if err != nil || id.IsNone() {
			b.Fatalf("player %d not seated: %v", i+1, err)
		}
		if bots[i], err = bot.New("wander", uint64(i+1), len(p.Axes), len(p.Buttons)); err != nil {
			b.Fatal(err)
		}
		cmds[i] = new(prediction.Command)
		s.driven[id] = cmds[i]
		owns[i] = id
	}
	return s, owns, func() {
		for i, bot := range bots {
			*cmds[i] = bot.Next()
		}
		g.RunTick()
	}
}

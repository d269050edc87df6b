package session

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"vkm/host/bot"
	"vkm/host/game"
	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/transport"
	"vkm/transport/memnet"
	"vkm/transport/token"
)

// The keyed harness's world: the key, the address tokens name and the
// wall clock at time 0.
var (
	rejoinKey   = token.Key{0: 'r', 31: 1}
	rejoinAddr  = netip.MustParseAddrPort("192.0.2.1:27960")
	rejoinEpoch = time.Unix(1_900_000_000, 0).UTC()
)

// loadCoins loads projects/coins: a Score per runner, and a leave handler
// that drops the runner's coins and lets the engine destroy it.
func loadCoins(t testing.TB) *project.Project {
	t.Helper()
	p, err := project.LoadProject("../../projects/coins")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// keyedHarness is a harness whose server holds rejoinKey and keeps a
// dropped player's seat for window.
func keyedHarness(t *testing.T, p *project.Project, window time.Duration) *harness {
	t.Helper()
	p.RejoinWindow = window
	s, err := NewServer(ServerConfig{Project: p, Logger: testLogger(t), Auth: &transport.Auth{
		Key: rejoinKey, Addrs: []netip.AddrPort{rejoinAddr}, Protocol: token.ProtocolID(p.Name), Epoch: rejoinEpoch,
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &harness{t: t, server: s}
}

// joinKeyed adds a client with a token for client id, its randomness
// drawn from seed, and runs until it plays and owns its entity.
func (h *harness) joinKeyed(p *project.Project, client, seed uint64) *peer {
	h.t.Helper()
	var k [32]byte
	k[0], k[1] = byte(seed), byte(client)
	tok, err := token.Mint(&rejoinKey, token.Claims{
		Protocol: token.ProtocolID(p.Name), Client: client,
		Expires: rejoinEpoch.Add(time.Hour), Servers: []netip.AddrPort{rejoinAddr},
	}, rejoinEpoch, rand.NewChaCha8(k))
	if err != nil {
		h.t.Fatal(err)
	}
	n := len(h.clients) + 1
	c, err := NewClient(ClientConfig{Project: p, Name: fmt.Sprintf("p%d", n), Logger: testLogger(h.t), Now: h.now, Token: &tok})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(c.Close)
	pipe, err := memnet.NewPipe(memnet.Broadband, seed)
	if err != nil {
		h.t.Fatal(err)
	}
	pr := &peer{c: c, addr: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(n)}), 40000), pipe: pipe}
	h.clients = append(h.clients, pr)
	h.runUntil(5*time.Second, "the keyed join", func() bool { return c.Playing() && !c.Game().Own().IsNone() })
	return pr
}

// coinsOf returns a runner's Score.coins on the server, and false if the
// runner is gone.
func (h *harness) coinsOf(id entity.ID) (float64, bool) {
	g := h.server.Game()
	v := g.Store().Component(id, g.Schema().Index("Score"))
	if !g.Store().Alive(id) || v == nil {
		return 0, false
	}
	return v[0], true
}

// A link cut for 5 s: the seat is held (its runner driven by nobody),
// the client resumes with its token once the link is back and takes back
// the same player number and runner, its Score as the server kept it; the
// leave handler never runs. The time from the link's return to playing is
// logged.
func TestRejoinKeepsSeatAndEntity(t *testing.T) {
	const seed = 0x9100
	p := loadCoins(t)
	h := keyedHarness(t, p, 10*time.Second)
	a := h.joinKeyed(loadCoins(t), 7, seed)
	player := a.c.Net().Player()
	st := h.server.seats[player]
	runner := st.entity
	// The bot presses shove, not boost: a boost would spend the coins the
	// test counts.
	wander, err := bot.New("wander", seed, len(p.Axes), len(p.Buttons)-1) // boost is the last button
	if p.Buttons[len(p.Buttons)-1].Name != "boost" {
		t.Fatal("coins' last button is no longer boost")
	}
	if err != nil {
		t.Fatal(err)
	}
	a.input = wander
	var awayTicks, driven int
	h.server.afterTick = func(*game.Game) {
		if st.away {
			awayTicks++
			if st.cmd != (prediction.Command{}) {
				driven++
			}
		}
	}
	h.run(time.Second)
	score := h.server.Game().Schema().Index("Score")
	h.server.Game().Store().Component(runner, score)[0] = 5 // five coins held
	h.run(200 * time.Millisecond)
	ownBefore := a.c.Game().Own()

	a.cut, a.cutUp = true, true
	h.runUntil(2*time.Second, "the hold", func() bool { return st.away })
	h.run(4 * time.Second)
	a.cut, a.cutUp = false, false
	back := h.now
	var playingAt transport.Time
	h.runUntil(3*time.Second, "the rejoin", func() bool {
		if playingAt == 0 && a.c.Net().State() == transport.StatePlaying {
			playingAt = h.now
		}
		return playingAt != 0 && !st.away
	})
	resumed := h.now
	h.run(time.Second)
	coins, alive := h.coinsOf(runner)
	ns := h.server.Net().Stats()
	t.Logf("seed %d: held %d ticks (%d driven); link back to client playing %v, to server hearing it %v; holds %d rejoins %d leaves %d; coins %v alive %v; client %+v",
		seed, awayTicks, driven, time.Duration(playingAt-back), time.Duration(resumed-back), ns.Holds, ns.Rejoins, ns.Leaves, coins, alive, a.c.Net().Stats())
	if a.c.Net().Player() != player || h.server.seats[player] != st || st.entity != runner {
		t.Fatalf("player %d (was %d), seat %p (was %p)", a.c.Net().Player(), player, h.server.seats[player], st)
	}
	if !alive || coins != 5 || a.c.Game().Own() != ownBefore || a.c.Game().Own() != runner {
		t.Fatalf("runner %v alive %v coins %v; client owns %v (was %v)", runner, alive, coins, a.c.Game().Own(), ownBefore)
	}
	if ns.Holds != 1 || ns.Rejoins != 1 || ns.Leaves != 0 || h.server.Events()["left"] != 0 {
		t.Fatalf("holds %d rejoins %d leaves %d, left events %d", ns.Holds, ns.Rejoins, ns.Leaves, h.server.Events()["left"])
	}
	if awayTicks < 4*64 || driven != 0 {
		t.Fatalf("held %d ticks, %d of them driven", awayTicks, driven)
	}
	if a.c.badSnapshots != 0 || a.c.unmade != 0 {
		t.Fatalf("client after the rejoin: %d bad snapshots, %d entries unmade", a.c.badSnapshots, a.c.unmade)
	}
}

// A link cut past the window: the seat leaves when the window has passed,
// the leave handler runs then (the coins' handler drops the runner's
// coins and lets the engine destroy it), and a later join gets a new seat
// and a new runner.
func TestRejoinPastTheWindowLeaves(t *testing.T) {
	const seed = 0x9200
	p := loadCoins(t)
	h := keyedHarness(t, p, 3*time.Second)
	a := h.joinKeyed(loadCoins(t), 7, seed)
	player := a.c.Net().Player()
	runner := h.server.seats[player].entity
	h.run(time.Second)
	a.cut, a.cutUp = true, true
	h.run(2500 * time.Millisecond)
	if _, alive := h.coinsOf(runner); !alive || h.server.Events()["left"] != 0 {
		t.Fatal("the leave handler ran within the window")
	}
	h.runUntil(2*time.Second, "the leave", func() bool { return len(h.server.seats) == 0 })
	_, alive := h.coinsOf(runner)
	left := h.server.Events()["left"]
	b := h.joinKeyed(loadCoins(t), 7, seed+1)
	st := h.server.seats[b.c.Net().Player()]
	t.Logf("seed %d: runner %v alive %v after the window; left events %d; later join: player %d runner %v; server %+v",
		seed, runner, alive, left, b.c.Net().Player(), st.entity, h.server.Net().Stats())
	if alive || left != 1 {
		t.Fatalf("runner alive %v, left events %d", alive, left)
	}
	if st.entity == runner || h.server.Net().Stats().Rejoins != 0 || h.server.Net().Stats().Joins != 2 {
		t.Fatalf("the later join rejoined: runner %v", st.entity)
	}
}

// A player who acknowledges nothing for transport.BackoffAfter is sent a
// snapshot every QuietEvery rounds, not every round, until it acknowledges
// again; then the full rate comes back. (An unacknowledged peer is still
// sent a keep-alive a quarter second after the last datagram.)
func TestSnapshotsBackOffFromASilentPeer(t *testing.T) {
	const seed = 0x9300
	h := newHarness(t, loadArena(t))
	a := h.seated(memnet.Perfect, seed, true)
	conn := h.server.Net().Conn(a.c.Net().Player())
	sentOver := func(d time.Duration) uint64 {
		before := conn.Stats().PacketsSent
		h.run(d)
		return conn.Stats().PacketsSent - before
	}
	live := sentOver(time.Second)
	a.cut = true // the server's datagrams are lost: nothing it sends is acknowledged
	h.run(transport.BackoffAfter)
	quiet := sentOver(2 * time.Second)
	a.cut = false
	h.run(500 * time.Millisecond)
	again := sentOver(time.Second)
	t.Logf("seed %d: datagrams a second to the player: %d live, %.1f unacknowledged, %d acknowledged again",
		seed, live, float64(quiet)/2, again)
	// Snapshots go 4 a second, and keep-alives (4 a second at most) may
	// fall between them.
	if live < 16 || quiet > 2*2*(SnapshotRate/QuietEvery) || quiet < 2*2 || again < 16 {
		t.Fatalf("sent %d live, %d over two quiet seconds, %d after", live, quiet, again)
	}
}

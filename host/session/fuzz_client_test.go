package session

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"vkm/host/game"
	"vkm/host/session/netmsg"
	"vkm/internal/entity"
	"vkm/replication"
	"vkm/transport"
	"vkm/transport/memnet"
)

// FuzzClientAppliesSnapshots feeds a client's world snapshots a hostile or
// broken server could send: whatever decodes is applied and its spawns are
// built, and nothing may panic. The seeds are real snapshots of the arena,
// sent after the first was acknowledged: their headers are in the short
// forms, which resolve against a snapshot read before, so each input
// follows a primer, a whole header from the same round.
func FuzzClientAppliesSnapshots(f *testing.F) {
	h := newHarness(f, loadArena(f))
	a := h.join(loadArena(f), memnet.Perfect, 1)
	var seeds [][]byte
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() })
	st := func() *seat {
		for _, s := range h.server.seats {
			return s
		}
		return nil
	}()
	tumble(h.server.Game(), rand.New(rand.NewPCG(1, 2)))
	// Every snapshot sent for 40 ticks, in order.
	for end := h.now + transport.Time(40*time.Second/64); h.now < end; {
		h.step()
		if st.peer != nil && (len(seeds) == 0 || !bytes.Equal(seeds[len(seeds)-1], h.server.payload)) {
			seeds = append(seeds, append([]byte(nil), h.server.payload...))
		}
	}
	for _, s := range seeds {
		f.Add(s)
	}
	primer := replication.NewPeer(h.server.Game().Schema()).Write(nil, h.server.round, st.entity, transport.MaxDataPayload-netmsg.PayloadOverhead)
	// Every seed reads after the primer and the seeds before it (a
	// moving body's turn is predicted from what earlier ones said); those
	// a reader with no snapshot before refuses are the short forms.
	short := 0
	rate := h.server.Game().TickRate()
	primed := replication.Snapshot{TickRate: rate}
	if err := primed.DecodeHeader(primer, replication.Refs{}); err != nil {
		f.Fatal(err)
	}
	for _, s := range seeds {
		p, err := netmsg.ParseServerPayload(s, mustReliable(), new(netmsg.Relay))
		if err != nil {
			f.Fatal(err)
		}
		if err := primed.Decode(h.server.Game().Schema(), p, replication.Refs{}); err != nil {
			f.Fatalf("a seed does not decode after the primer: %v", err)
		}
		fresh := replication.Snapshot{TickRate: rate}
		if fresh.Decode(h.server.Game().Schema(), p, replication.Refs{}) != nil {
			short++
		}
	}
	if short == 0 {
		f.Fatal("no seed has a short header")
	}
	c := newFuzzClient(f)
	f.Fuzz(func(t *testing.T, payload []byte) {
		if err := c.snap.DecodeHeader(primer, replication.Refs{}); err != nil {
			t.Fatal(err)
		}
		c.applySnapshot(payload)
		c.buildSpawns()
		c.Game().RunTick()
	})
}

// newFuzzClient is a client session playing the arena, seated, with no
// server behind it.
func newFuzzClient(tb testing.TB) *Client {
	c, err := NewClient(ClientConfig{Project: loadArena(tb), Logger: testLogger(tb)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	c.playing = true // as if welcomed
	return c
}

func TestADisconnectedWorldHoldsStill(t *testing.T) {
	p := loadArena(t)
	c, err := NewClient(ClientConfig{Project: p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	g := c.Game()
	if !g.Own().IsNone() {
		t.Fatal("a joining client ran the join handler itself")
	}
	// Drop a crate into the air: a world that simulated anything would let
	// it fall.
	crate := g.Store().At(30)
	g.Store().Transform(crate).Y = 10
	c.stop("The server stopped answering.")
	before := poses(g)
	for range 60 {
		g.RunTick()
	}
	for id, p := range poses(g) {
		if p != before[id] {
			t.Fatalf("entity %v (%s) moved while disconnected: %+v → %+v", id, g.Store().Name(id), before[id], p)
		}
	}
	if !g.Disconnected() || g.LastError() != "The server stopped answering." || g.Simulates(crate) || g.IsMine(crate) || g.Command(crate) != nil {
		t.Fatalf("disconnected answers: simulates %v, mine %v, last error %q", g.Simulates(crate), g.IsMine(crate), g.LastError())
	}
}

type pose struct {
	alive bool
	t     entity.Transform
	rb    entity.Rigidbody
}

// poses is every live entity's pose and motion.
func poses(g *game.Game) map[entity.ID]pose {
	out := map[entity.ID]pose{}
	g.Store().Each(func(id entity.ID) bool {
		p := pose{alive: true, t: *g.Store().Transform(id)}
		if rb := g.Store().Rigidbody(id); rb != nil {
			p.rb = *rb
		}
		out[id] = p
		return true
	})
	return out
}

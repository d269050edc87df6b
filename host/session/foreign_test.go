package session

import (
	"testing"
	"time"

	"vkm/transport/memnet"
)

// TestAClientsWriteToWhatItDoesNotSimulateStaysItsOwn pins what
// docs/lua.md says of a client's write to an entity it does not simulate
// (another player's character, a crate at rest): the write changes that
// client's copy only, the server never hears of it, and a snapshot puts
// it right only when the server's value next changes, which for a value
// at rest is never. The writes are made as the bindings make them
// (other:set and other:set_position write the store's components).
func TestAClientsWriteToWhatItDoesNotSimulateStaysItsOwn(t *testing.T) {
	const seed = 77
	t.Logf("seed %d", seed)
	h := newHarness(t, loadArena(t))
	a := h.seated(memnet.Broadband, seed, false)
	b := h.seated(memnet.Broadband, seed+1, false)
	h.run(time.Second) // everything settles; nobody presses anything

	ga, srv := a.c.Game(), h.server.Game()
	other := b.c.Game().Own()
	crate := srv.Store().At(30)
	if srv.Store().Name(crate) != "crate1" {
		t.Fatalf("slot 30 holds %q, want crate1", srv.Store().Name(crate))
	}
	if ga.Simulates(other) || ga.Simulates(crate) {
		t.Fatal("client a simulates the other player's character or a crate at rest")
	}
	health := ga.Schema().Index("Health")
	ga.Store().Component(other, health)[0] = 5 // other:set("Health", "hp", 5)
	before := *srv.Store().Transform(crate)
	moved := before
	moved.X += 3
	*ga.Store().Transform(crate) = moved // crate:set_position(x + 3, y)

	h.run(time.Second)
	if hp := srv.Store().Component(other, health)[0]; hp != 100 {
		t.Errorf("the server's Health of the other player is %v; a client's write reached it", hp)
	}
	if got := *srv.Store().Transform(crate); got != before {
		t.Errorf("the server's crate moved from %+v to %+v; a client's write reached it", before, got)
	}
	if hp := ga.Store().Component(other, health)[0]; hp != 5 {
		t.Errorf("client a's Health of the other player is %v a second later, want the 5 it wrote (the server, whose value did not change, said nothing)", hp)
	}
	if got := *ga.Store().Transform(crate); got != moved {
		t.Errorf("client a's crate is at %+v a second later, want %+v where it wrote it", got, moved)
	}
	if hp := b.c.Game().Store().Component(other, health)[0]; hp != 100 {
		t.Errorf("client b's own Health is %v; another client's write reached it", hp)
	}

	// Once the server's value changes, its snapshot overwrites the write.
	srv.Store().Component(other, health)[0] = 60
	h.runUntil(time.Second, "client a hearing the server's new Health", func() bool {
		return ga.Store().Component(other, health)[0] == 60
	})
}

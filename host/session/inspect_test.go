package session

import (
	"testing"
	"time"

	"vkm/host/bot"
	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/transport/memnet"
)

// TestInspectorServerReport: a dev client of a dev server that inspects
// another player's running character is told, a few times a second, how
// the server replicates it to this client (bytes a second, the tick it was
// last written, entries); a client that did not join with --dev asks
// nothing and is told nothing; inspecting none stops the reports.
func TestInspectorServerReport(t *testing.T) {
	const seed = 43
	h, dir := devHarness(t)
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	a := h.join(p, memnet.Lan, seed)
	h.dev = false
	b := h.join(p, memnet.Lan, seed+1)
	runner, err := bot.New("wander", seed, len(p.Axes), len(p.Buttons))
	if err != nil {
		t.Fatal(err)
	}
	b.input = runner
	h.runUntil(5*time.Second, "the joins", func() bool {
		return a.c.Playing() && b.c.Playing() && !a.c.Game().Own().IsNone() && !b.c.Game().Own().IsNone()
	})
	h.run(time.Second)
	target := b.c.Game().Own()
	in := a.c.Inspect(target, h.now)
	if !in.Asked || in.ServerKnown {
		t.Fatalf("on asking: %+v", in)
	}
	h.runUntil(2*time.Second, "the server's report", func() bool { return a.c.Inspect(target, h.now).ServerKnown })
	h.run(time.Second)
	in = a.c.Inspect(target, h.now)
	r := in.Server
	if r.ID != target || r.BytesPerS == 0 || r.Entries == 0 || r.LastWritten == 0 || r.LastWritten > h.server.Game().Tick() {
		t.Fatalf("report %+v at server tick %d", r, h.server.Game().Tick())
	}
	t.Logf("seed %d: entity %v, %d bytes/s, last written at tick %d (server at %d), %d entries, priority %d; the client counted %d updates (%.1f/s)",
		seed, target, r.BytesPerS, r.LastWritten, h.server.Game().Tick(), r.Entries, r.Priority, in.Updates, in.UpdatesPerS)

	// The non-dev client asks nothing.
	nb := b.c.Inspect(a.c.Game().Own(), h.now)
	h.run(time.Second)
	if nb = b.c.Inspect(a.c.Game().Own(), h.now); nb.Asked || nb.ServerKnown {
		t.Fatalf("a client without --dev: %+v", nb)
	}
	if st := h.server.seats[b.c.Net().Player()]; st == nil || st.inspect.asking {
		t.Fatal("the server keeps an inspection for a client without --dev")
	}

	// None stops the server's reports.
	a.c.Inspect(entity.None, h.now)
	h.runUntil(time.Second, "the stop", func() bool { return !h.server.seats[a.c.Net().Player()].inspect.asking })
}

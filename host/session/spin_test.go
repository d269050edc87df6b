package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vkm/host/project"
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

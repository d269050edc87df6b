package host

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"testing"
	"time"

	"vkm/host/game"
	"vkm/host/loop"
)

// The serving loop's timings, collections and tick log, as a server
// reports them (package loop tests the pieces).

func TestServeReportsTicksAndSnapshotRates(t *testing.T) {
	addr, stop := served(t, nil, loadArena(t))
	rep := join(t, nil, loadArena(t), addr, "playing")
	if rep.State != "playing" {
		t.Fatalf("client %+v", rep)
	}
	srv := stop()
	t.Logf("server: %+v", srv)
	if srv.Ticks > 0 && (srv.TickP50us <= 0 || srv.TickMaxUs < srv.TickP99us || srv.TickP99us < srv.TickP50us) {
		t.Errorf("%d ticks timed as p50 %v, p99 %v, max %v µs", srv.Ticks, srv.TickP50us, srv.TickP99us, srv.TickMaxUs)
	}
	// A tick's CPU time on the serving thread is part of its wall time.
	if _, ok := loop.ThreadCPU(); ok && srv.Ticks > 0 && (srv.TickCPUP50us <= 0 || srv.TickCPUP99us < srv.TickCPUP50us) {
		t.Errorf("%d ticks' CPU timed as p50 %v, p99 %v µs", srv.Ticks, srv.TickCPUP50us, srv.TickCPUP99us)
	}
}

// garbage allocates n bytes the collector may take back at once.
func garbage(n uint64) {
	for range n / 1024 {
		sink = make([]byte, 1024)
	}
}

// sink keeps the garbage a test makes on the heap.
var sink []byte

// heapRoom is the room the collector's pacing gives the heap now: its
// goal less what the last collection found live.
func heapRoom() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[1].Value.Uint64() - s[0].Value.Uint64()
}

// forcedGCs is the collections runtime.GC has run in this process.
func forcedGCs() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestServeCollectsBetweenTicks: a server told to collects between its
// ticks and counts the collections in its report; an untold one does not.
//
// Each run is counted in ticks, not wall time: a busy machine wakes the
// loop late, runs the ticks it missed together and leaves short waits, so
// a collection due can find no wait it fits in before the collector begins
// by itself, and the next chance comes a few ticks on. So a run serves
// minTicks, and one told to collect goes on until the collector has been
// run between ticks (runtime.GC, which nothing else in the test calls
// meanwhile), for at most maxTicks.
func TestServeCollectsBetweenTicks(t *testing.T) {
	const minTicks, maxTicks = 64, 640 // 1 s and 10 s at 64 Hz
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, idle := range []bool{false, true} {
		// Each tick uses a 32nd of the heap's room: due after 16 ticks,
		// and the collector's own start (at 0.7 of the room or later)
		// six or more ticks further on, each a wait the collection may
		// fit in. With a larger share, a machine busy with other work
		// (CI's other packages) could leave none of the one or two waits
		// between due and the collector's own start long enough, for
		// every collection of the run: the garbage a tick makes here
		// takes a share of the wait too.
		runtime.GC()
		perTick := heapRoom() / 32
		ctx, cancel := context.WithCancel(context.Background())
		forced, ticks := forcedGCs(), 0
		rep, err := Serve(ctx, ServeConfig{Project: loadArena(t), Addr: "127.0.0.1:0", Logger: testLogger(t), IdleGC: idle,
			AfterTick: func(*game.Game) {
				garbage(perTick)
				ticks++
				if ticks >= maxTicks || ticks >= minTicks && (!idle || forcedGCs() > forced) {
					cancel()
				}
			}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("idle %v: %d KB a tick: %d ticks, %d collections, %d between ticks (%d late), %v µs each, at most %v", idle, perTick>>10, rep.Ticks, rep.GCs, rep.IdleGCs, rep.IdleGCLate, rep.IdleGCP50us, rep.IdleGCMaxUs)
		if rep.GCs == 0 {
			t.Errorf("idle %v: %d ticks allocating %d KB each ran no collection", idle, rep.Ticks, perTick>>10)
		}
		if idle && (rep.IdleGCs == 0 || rep.IdleGCs > rep.GCs || rep.IdleGCLate > rep.IdleGCs) {
			t.Errorf("told to collect between ticks: %d ticks, %d collections, %d between ticks, %d late", rep.Ticks, rep.GCs, rep.IdleGCs, rep.IdleGCLate)
		}
		if !idle && rep.IdleGCs != 0 {
			t.Errorf("not told to: %d collections between ticks", rep.IdleGCs)
		}
	}
}

// readTickLog parses a tick log into rows by column name.
func readTickLog(t *testing.T, r io.Reader) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 {
		t.Fatal("no header")
	}
	var rows []map[string]string
	for _, rec := range recs[1:] {
		row := map[string]string{}
		for i, name := range recs[0] {
			row[name] = rec[i]
		}
		rows = append(rows, row)
	}
	return rows
}

// TestServeLogsEveryTicksPhases: with a tick log, every tick has a row
// whose phases fit in its wall and CPU time, and the report's slowest
// ticks are the log's.
func TestServeLogsEveryTicksPhases(t *testing.T) {
	var log bytes.Buffer
	rep, err := Serve(context.Background(), ServeConfig{Project: loadArena(t), Addr: "127.0.0.1:0", Logger: testLogger(t), Duration: 300 * time.Millisecond, TickLog: &log})
	if err != nil {
		t.Fatal(err)
	}
	rows := readTickLog(t, &log)
	if len(rows) != int(rep.Ticks) || rep.Ticks == 0 {
		t.Fatalf("%d rows for %d ticks", len(rows), rep.Ticks)
	}
	num := func(r map[string]string, k string) float64 {
		f, err := strconv.ParseFloat(r[k], 64)
		if err != nil {
			t.Fatalf("tick %s: %s: %v", r["tick"], k, err)
		}
		return f
	}
	_, hasCPU := loop.ThreadCPU()
	var walls []float64
	contacts := 0.0
	for i, r := range rows {
		contacts = max(contacts, num(r, "contacts"))
		if num(r, "tick") != float64(i+1) {
			t.Fatalf("row %d is tick %s", i, r["tick"])
		}
		wall, phases := num(r, "wall_us"), num(r, "behaviors_us")+num(r, "controllers_us")+num(r, "physics_us")
		if phases <= 0 || phases > wall+0.5 {
			t.Errorf("tick %s: phases %v µs in a tick of %v µs", r["tick"], phases, wall)
		}
		if cpu, phases := num(r, "cpu_us"), num(r, "behaviors_cpu_us")+num(r, "physics_cpu_us"); hasCPU && (phases <= 0 || phases > cpu+1) {
			t.Errorf("tick %s: phases %v µs of CPU in a tick of %v µs", r["tick"], phases, cpu)
		}
		walls = append(walls, wall)
	}
	if contacts == 0 {
		t.Error("no tick's step made a contact: the arena's crates rest on its floor")
	}
	slices.Sort(walls)
	slices.Reverse(walls)
	if n := min(len(walls), loop.SlowestKept); len(rep.SlowestTicks) != n {
		t.Fatalf("%d slowest ticks listed, want %d", len(rep.SlowestTicks), n)
	}
	for i, r := range rep.SlowestTicks {
		if r.WallUs != walls[i] {
			t.Errorf("slowest tick %d took %v µs, the log's %dth slowest %v", i, r.WallUs, i+1, walls[i])
		}
	}
}

// TestServeWithoutATickLogTimesNoPhases: phases are timed only when asked.
func TestServeWithoutATickLogTimesNoPhases(t *testing.T) {
	var last game.TickPhases
	rep, err := Serve(context.Background(), ServeConfig{Project: loadArena(t), Addr: "127.0.0.1:0", Logger: testLogger(t), Duration: 100 * time.Millisecond,
		AfterTick: func(g *game.Game) { last = g.Phases() }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ticks == 0 || last != (game.TickPhases{}) || rep.SlowestTicks != nil {
		t.Errorf("%d ticks; last phases %+v; slowest %v", rep.Ticks, last, rep.SlowestTicks)
	}
}

package host

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"testing"
	"time"

	"vkm/host/game"
)

// TestTickTraceKeepsTheSlowest: the report lists the slowest ticks by
// wall time, slowest first, however many ran.
func TestTickTraceKeepsTheSlowest(t *testing.T) {
	tr := newTickTrace(io.Discard, time.Now())
	walls := []float64{5, 1, 9, 9, 3, 12, 7, 2, 8, 4, 6, 11, 10, 0.5}
	for i, w := range walls {
		tr.keep(TickRecord{Tick: uint32(i), WallUs: w})
	}
	var got []float64
	for _, r := range tr.slowest {
		got = append(got, r.WallUs)
	}
	want := slices.Clone(walls)
	slices.Sort(want)
	slices.Reverse(want)
	if want = want[:slowestKept]; !slices.Equal(got, want) {
		t.Errorf("kept %v, want %v", got, want)
	}
}

// sink keeps the garbage a test makes on the heap.
var sink []byte

// TestTickTraceSeesTheCollector: a tick through which a collection ran is
// marked as marking and counts it; the ticks either side are not.
func TestTickTraceSeesTheCollector(t *testing.T) {
	// Only the collection the test runs: none of the collector's own.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.GC()
	var out bytes.Buffer
	tr := newTickTrace(&out, time.Now())
	garbage := func() {
		for range 1000 {
			sink = make([]byte, 1024)
		}
	}
	tick := func(n uint32, during func()) {
		tr.begin(time.Now())
		during()
		tr.done(n, game.TickPhases{}, time.Millisecond, time.Millisecond)
	}
	tick(1, garbage)
	tick(2, runtime.GC)
	tick(3, garbage)
	if err := tr.close(); err != nil {
		t.Fatal(err)
	}
	rows := readTickLog(t, &out)
	if len(rows) != 3 {
		t.Fatalf("%d rows: %v", len(rows), rows)
	}
	for i, want := range []struct {
		mark string
		gcs  string
	}{{"false", "0"}, {"true", "1"}, {"false", "0"}} {
		if r := rows[i]; r["gc_mark"] != want.mark || r["gcs"] != want.gcs {
			t.Errorf("tick %s: gc_mark %s gcs %s, want %s %s", r["tick"], r["gc_mark"], r["gcs"], want.mark, want.gcs)
		}
	}
	// The runtime counts small allocations as it hands out spans of them,
	// so the figure is within a span or so.
	if kb, _ := strconv.ParseFloat(rows[0]["alloc_kb"], 64); kb < 900 || kb > 1100 {
		t.Errorf("a tick that allocated 1000 KB is logged as %v KB", kb)
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
	_, hasCPU := threadCPU()
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
	if n := min(len(walls), slowestKept); len(rep.SlowestTicks) != n {
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

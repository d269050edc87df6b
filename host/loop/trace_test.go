package loop

import (
	"bytes"
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
	tr := NewTrace(io.Discard, time.Now())
	walls := []float64{5, 1, 9, 9, 3, 12, 7, 2, 8, 4, 6, 11, 10, 0.5}
	for i, w := range walls {
		tr.keep(TickRecord{Tick: uint32(i), WallUs: w})
	}
	var got []float64
	for _, r := range tr.Slowest() {
		got = append(got, r.WallUs)
	}
	want := slices.Clone(walls)
	slices.Sort(want)
	slices.Reverse(want)
	if want = want[:SlowestKept]; !slices.Equal(got, want) {
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
	tr := NewTrace(&out, time.Now())
	garbage := func() {
		for range 1000 {
			sink = make([]byte, 1024)
		}
	}
	tick := func(n uint32, during func()) {
		tr.Begin(time.Now())
		during()
		tr.Done(n, game.TickPhases{}, time.Millisecond, time.Millisecond)
	}
	tick(1, garbage)
	tick(2, runtime.GC)
	tick(3, garbage)
	if err := tr.Close(); err != nil {
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

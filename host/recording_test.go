package host

import (
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"vkm/host/netio"
	"vkm/host/record"
)

// TestServeRecordsTheMatch serves the arena with --record: a client joins
// and leaves, and the file the server leaves in the folder replays with
// every hash equal, the join and the leave in it.
func TestServeRecordsTheMatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		n := netio.NewLoopback()
		addr, stop := servedWith(t, n, ServeConfig{Project: loadArena(t), Record: dir})
		rep := join(t, n, loadArena(t), addr, "playing")
		if rep.State != "playing" {
			t.Fatalf("client: %+v", rep)
		}
		time.Sleep(time.Second) // the bubble's clock: a second of ticks after the leave
		stop()
		files, _ := filepath.Glob(filepath.Join(dir, "arena-*"+record.Ext))
		if len(files) != 1 {
			t.Fatalf("the folder holds %v, want one recording", files)
		}
		rec, err := record.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		joins, leaves := 0, 0
		dc := record.NewDecoder(rec)
		for {
			ev, err := dc.Next()
			if err != nil {
				break
			}
			switch ev.Kind {
			case record.KindJoin:
				joins++
			case record.KindLeave:
				leaves++
			}
		}
		r, err := record.Play(rec, record.PlayConfig{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes, %d ticks, %d hashes equal, end %q", filepath.Base(files[0]), rec.Size, r.Ticks, r.Checked, r.End)
		if joins != 1 || leaves != 1 || r.Err != nil || r.Mismatch != nil || r.Ticks < 64 || r.Checked == 0 || r.End != "the match ended" {
			t.Fatalf("%d joins, %d leaves; replay %+v", joins, leaves, r)
		}
	})
}

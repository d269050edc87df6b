package record

import (
	"errors"
	"io"
	"testing"
)

// FuzzParse reads any bytes as a recording and decodes every event of it:
// nothing panics, and a recording that parses decodes to its end or to an
// error, after which nothing more comes. The seeds are a short arena match's recording (a leave, a join,
// a chat line and a reload in it), cut at a few places, and nothing.
func FuzzParse(f *testing.F) {
	b := arenaMatch(f, 3*64, Config{HashEvery: 4, FlushEvery: 16})
	f.Add(b)
	for _, n := range []int{len(Magic), headerBytes(f, b), headerBytes(f, b) + 7, len(b) / 2, len(b) - 1} {
		f.Add(b[:n])
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := Parse(b)
		if err != nil {
			return
		}
		dc := NewDecoder(rec)
		// A quiet run stands for many ticks: the events are counted, not
		// the bytes, so that the run is bounded.
		for range 1 << 14 {
			ev, err := dc.Next()
			if err != nil {
				if _, again := dc.Next(); again != io.EOF {
					t.Fatalf("an event after the decoder stopped (%v)", err)
				}
				return
			}
			if ev.Kind == KindTick && len(ev.Commands) > MaxPlayers {
				t.Fatalf("%d commands in a tick", len(ev.Commands))
			}
		}
	})
}

// FuzzDecode decodes any bytes as the records after a header, past the
// checksum that keeps FuzzParse's mutations out of them: nothing panics,
// a tick never names more players than are seated, and once the decoder
// has stopped nothing more comes. The seeds are the records of a short
// arena match.
func FuzzDecode(f *testing.F) {
	b := arenaMatch(f, 3*64, Config{HashEvery: 4, FlushEvery: 16})
	rec, err := Parse(b)
	if err != nil {
		f.Fatal(err)
	}
	for _, r := range rec.records {
		f.Add(r)
	}
	f.Add([]byte{tagQuiet, 0xff, 0xff, 0x03})
	f.Fuzz(func(t *testing.T, b []byte) {
		half := len(b) / 2
		dc := NewDecoder(&Recording{Header: rec.Header, records: [][]byte{b[:half], b[half:]}})
		for range 1 << 14 {
			ev, err := dc.Next()
			if err != nil {
				if _, again := dc.Next(); again != io.EOF {
					t.Fatalf("an event after the decoder stopped (%v)", err)
				}
				return
			}
			if ev.Kind == KindTick && len(ev.Commands) != len(dc.seats) {
				t.Fatalf("%d commands for %d seats", len(ev.Commands), len(dc.seats))
			}
		}
	})
}

// FuzzPlay plays any events after a real header (the arena's files) on a
// replay server: whatever a damaged or hostile recording says, the replay
// reports it as an error or a difference, never a panic. The seeds are a
// short arena match's records.
func FuzzPlay(f *testing.F) {
	b := arenaMatch(f, 3*64, Config{HashEvery: 4, FlushEvery: 64})
	rec, err := Parse(b)
	if err != nil {
		f.Fatal(err)
	}
	for _, r := range rec.records {
		f.Add(r)
	}
	f.Add([]byte{tagJoin, 1, 1, 'a', joinSeated, 9, 1, tagTick, headReload, 1, 4, 'x', '.', 'l', 'u', 1, '(', 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		pl, err := NewPlayer(&Recording{Header: rec.Header, records: [][]byte{b}}, PlayConfig{})
		if err != nil {
			t.Fatal(err)
		}
		defer pl.Close()
		for range 512 {
			var m *Mismatch
			if err := pl.Step(); err != nil && !errors.As(err, &m) {
				return
			}
		}
	})
}

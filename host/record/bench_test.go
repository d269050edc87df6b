package record

import (
	"fmt"
	"testing"
)

// benchMatch records 30 seconds of the arena played by four full clients
// (each predicting, drawing with its interpolation clock, so each command
// carries the tick it was drawn at) driven by wander bots over LAN links.
func benchMatch(b *testing.B) []byte {
	m := newMatch(b, loadArena(b), nil, Config{})
	for i := range 4 {
		m.join(true, uint64(31+i))
	}
	m.run(30 * 64)
	if err := m.rec.Close(); err != nil {
		b.Fatal(err)
	}
	return m.out.Bytes()
}

// BenchmarkReplay plays a recorded 30 s four-player arena match offline,
// whole, checking its 120 hashes: ticks-a-second is the replay's speed
// (a jump's too: it is the same run). bytes/player-minute is the
// recording's size past its header (the project's files), per player and
// minute of play.
func BenchmarkReplay(b *testing.B) {
	raw := benchMatch(b)
	rec, err := Parse(raw)
	if err != nil {
		b.Fatal(err)
	}
	var ticks uint32
	for b.Loop() {
		rep, err := Play(rec, PlayConfig{})
		if err != nil || rep.Err != nil || rep.Mismatch != nil {
			b.Fatal(err, rep.Err, rep.Mismatch)
		}
		ticks += rep.Ticks
	}
	b.ReportMetric(float64(ticks)/b.Elapsed().Seconds(), "ticks/s")
	b.ReportMetric(float64(len(raw)-headerBytes(b, raw))/(4*0.5), "bytes/player-minute")
	b.ReportMetric(float64(headerBytes(b, raw)), "header-bytes")
}

// BenchmarkServerTickRecorded times the server's side of a tick (taking
// the players' datagrams, the tick, the send round) of the arena with
// four full clients driven by wander bots, with the match recorded and
// without: what recording costs the server (its writes into a buffer
// here; a file takes one write a second).
func BenchmarkServerTickRecorded(b *testing.B) {
	for _, recorded := range []bool{false, true} {
		b.Run(fmt.Sprintf("recorded=%t", recorded), func(b *testing.B) {
			var m *match
			if recorded {
				m = newMatch(b, loadArena(b), nil, Config{})
			} else {
				m = newUnrecorded(b, loadArena(b), nil)
			}
			for i := range 4 {
				m.join(true, uint64(41+i))
			}
			m.run(2 * 64)
			m.timed = true
			for b.Loop() {
				m.step()
			}
			b.ReportMetric(float64(m.spent.Microseconds())/float64(b.N), "server-µs/frame")
			b.ReportMetric(float64(m.allocs)/float64(b.N), "server-allocs/frame")
		})
	}
}

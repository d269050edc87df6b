package relay

import (
	"testing"
)

// BenchmarkForward is the relay's cost per forwarded datagram: a
// joiner's command-sized frame to the server and the server's
// snapshot-sized frame back, alternately, parsed, checked against the
// code's peers and rate, and rewritten for the other end.
func BenchmarkForward(b *testing.B) {
	w := newWorld(&testing.T{}, Config{Rate: 1e12, Burst: 1e12, PeerRate: 1e12, PeerBurst: 1e12})
	code := w.register()
	j, _ := w.joiner(code, joinerAt, 4)
	up, _ := j.Seal(nil, make([]byte, 80))
	w.relay(joinerAt, up)
	peer := w.hostTakes().Peer
	down, _ := w.h.Seal(nil, peer, make([]byte, 600))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if n&1 == 0 {
			w.r.Receive(joinerAt, up, w.now)
		} else {
			w.r.Receive(serverAt, down, w.now)
		}
		if _, _, ok := w.r.Next(); !ok {
			b.Fatal("nothing forwarded")
		}
		n++
	}
}

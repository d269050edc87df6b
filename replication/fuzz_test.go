package replication

import (
	"testing"

	"vkm/internal/entity"
)

// FuzzBaseline drives a world, a Peer, a link and a client from its input:
// world changes, and sends whose packets are lost, duplicated, delayed
// (reordered) or applied with their acknowledgement lost, in any order.
// After every Acknowledge the baseline must equal what a client fed only
// the acknowledged snapshots holds (so an unacknowledged claim is never in
// it and an acknowledged one always is); after a clean link settles, the
// client must equal the server's quantised world and snapshots must carry
// only the header and the own entity.
func FuzzBaseline(f *testing.F) {
	f.Add(uint64(1), []byte{0x01, 0x02, 0x40, 0x41, 0x45, 0x4f, 0x03, 0x80, 0xa0, 0x21, 0x61, 0x67})
	f.Add(uint64(7), []byte{0x05, 0x05, 0x25, 0x45, 0x05, 0x47, 0x45, 0x05, 0xc0, 0xe1, 0x41, 0x43, 0x49, 0x51})
	f.Add(uint64(3), []byte{0x1f, 0x1e, 0x1d, 0x44, 0x44, 0x44, 0x44, 0x1f, 0x40, 0x40, 0x40, 0x40, 0x40})
	f.Add(uint64(9), []byte("the quick brown fox jumps over the lazy dog, twice over"))
	f.Fuzz(runBaselineOps)
}

func runBaselineOps(t *testing.T, seed uint64, ops []byte) {
	{
		if len(ops) > 400 {
			ops = ops[:400]
		}
		m := newSim(t, seed)
		m.check = true
		m.twin = newPeer(m.s)
		player := m.w.spawn(0, Described, 0)
		player.rb = &entity.Rigidbody{}
		m.own = player.id
		var cur byte
		m.decide = func() (lose, dup, ackLost bool, delay int) {
			return cur&1 != 0, cur&2 != 0, cur&4 != 0, 1 + int(cur>>3&3)
		}
		for _, op := range ops {
			cur = op
			switch op >> 5 {
			case 0, 1:
				churn(m, 1+uint32(op&31))
			case 2, 3, 4:
				m.step()
			case 5:
				for _, e := range m.w.ents {
					moving(e, float64(op&7)-3)
				}
			case 6:
				moving(player, float64(op&7)-3)
				m.step()
			case 7:
				m.w.destroy(1 + uint32(op&31))
				m.w.spawn(1+uint32(op&31), Described, float64(op))
			}
		}
		for _, e := range m.w.ents {
			if e.rb != nil {
				moving(e, 0)
			}
		}
		m.settle(12)
		if d := m.converged(); d != "" {
			t.Fatalf("not converged after %d rounds:\n%s", m.round, d)
		}
		quiet := m.headerOwnBytes()
		m.step()
		if st := m.p.Stats(); st.Entries != 1 || st.Removals != 0 || m.lastSize != quiet {
			t.Fatalf("settled world not quiet: %v (header + own = %d)", st, quiet)
		}
	}
}

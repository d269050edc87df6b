package replication

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"vkm/internal/entity"
	"vkm/wire"
)

// pinnedSum is the SHA-256 of every snapshot TestSnapshotBytesPinned
// writes. The work a round does once for all its connections (Round.seal)
// and each connection's shortcuts (quiet marks, lazy plans, assembled
// entries, kept plans) must never change a bit of what a connection is
// sent: only a deliberate change to the wire format or to what a snapshot
// chooses to say changes this sum, and such a change updates it.
const pinnedSum = "b50c48daecc3337a43c371f45f183edcaba849a605a4c04da48346fa9dd1c0bf"

// TestSnapshotBytesPinned runs seeded worlds (a crowd of moving bodies
// and players, churn, a lossy link, a reach and a tight budget) with
// several connections written from each round, and compares the sum of
// every snapshot with pinnedSum.
func TestSnapshotBytesPinned(t *testing.T) {
	h := sha256.New()
	for _, seed := range []uint64{31, 32, 33} {
		m := newSim(t, seed)
		m.check = true
		m.loss, m.dup, m.reorder, m.ackLoss = 0.2, 0.05, 0.1, 0.05
		reach := Reach{Near: 24, Every: ReachEvery}
		if seed == 32 {
			m.reach(reach)
		}
		var players []*wEnt
		for i := range 5 {
			pl := m.w.spawn(uint32(i), Described, float64(30*i))
			pl.rb = &entity.Rigidbody{}
			pl.cc = &entity.CharacterController{}
			pl.health = entity.Values{100}
			players = append(players, pl)
		}
		m.own = players[0].id
		for i := range 150 {
			e := m.w.spawn(uint32(5+i), Described, float64(i))
			e.t.Y = float64(i % 7)
			e.rb = &entity.Rigidbody{Awake: true}
		}
		// Four more connections, each with its own entity, written from
		// the same rounds: acknowledged two rounds after sending, every
		// seventh snapshot lost, the last with room for a fraction of
		// what moves.
		others := make([]*Peer, 4)
		for i := range others {
			others[i] = newPeer(m.s)
			if seed == 32 {
				others[i].SetReach(reach)
			}
		}
		var seq wire.Seq
		fate := AckFunc(func(q wire.Seq) (bool, bool) {
			if wire.Diff(seq, q) < 2 {
				return false, false
			}
			return q%7 != 0, q%7 == 0
		})
		for range 150 {
			for _, slot := range m.w.slots() {
				if e := m.w.ents[slot]; e.rb != nil && m.rng.IntN(3) != 0 {
					moving(e, m.rng.Float64()*8-4)
				}
			}
			for _, pl := range players {
				if m.w.ents[pl.id.Slot] == pl {
					pl.t.Y += m.rng.Float64() - 0.5
					pl.health[0] = float64(m.rng.IntN(3) * 50)
				}
			}
			churn(m, 155+uint32(m.rng.IntN(10)))
			m.step()
			h.Write(m.payloads[m.seq])
			seq++
			for i, q := range others {
				budget := budgetBytes
				if i == len(others)-1 {
					budget = 200
				}
				q.Acknowledge(fate)
				h.Write(q.Write(nil, m.r, players[1+i].id, budget))
				q.Sent(seq)
			}
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != pinnedSum {
		t.Fatalf("the snapshots' sum is %s, pinned %s: a shortcut changed what a connection is sent, or the wire format changed (then pin the new sum)", got, pinnedSum)
	}
}

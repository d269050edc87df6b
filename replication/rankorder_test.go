package replication

import (
	"math/rand/v2"
	"testing"
)

// TestRankOrderMatchesHeap puts seeded sets of candidates' ranks in order
// both ways, counted by their pairs of priority and nearness (rankOrder)
// and taken off the heap one by one, and checks the two orders the same;
// with more pairs than rankKeys, rankOrder leaves them to the heap.
func TestRankOrderMatchesHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	sc := new(writeScratch)
	ordered, left := 0, 0
	for trial := range 2000 {
		n := 1 + rng.IntN(600)
		pairs := 1 + rng.IntN(rankKeys+4)
		prios := make([]uint32, pairs)
		nears := make([]uint16, pairs)
		for k := range pairs {
			// Few priorities, near and far ones, and nearnesses that
			// differ or not.
			prios[k] = uint32(rng.IntN(4))
			if trial%3 == 0 {
				prios[k] = uint32(rng.IntN(maxPrio + 1))
			}
			nears[k] = uint16(rng.IntN(1 << 16))
			if trial%2 == 0 {
				nears[k] = 1<<16 - 1
			}
		}
		ranks := make([]uint64, n)
		for j := range ranks {
			k := rng.IntN(pairs)
			ranks[j] = rank(prios[k], nears[k], j)
		}
		distinct := map[uint64]bool{}
		for _, rk := range ranks {
			distinct[rk>>rankIndexBits] = true
		}
		order := sc.rankOrder(ranks, false)
		if len(distinct) > rankKeys {
			if order != nil {
				t.Fatalf("trial %d: %d pairs put in order, more than %d", trial, len(distinct), rankKeys)
			}
			left++
			continue
		}
		if order == nil {
			t.Fatalf("trial %d: %d pairs left to the heap", trial, len(distinct))
		}
		ordered++
		heap := append([]uint64(nil), ranks...)
		heapifyRanks(heap)
		for k := range n {
			var top uint64
			top, heap = popRank(heap)
			want := 1<<rankIndexBits - 1 - int(top&(1<<rankIndexBits-1))
			if int(order[k]) != want {
				t.Fatalf("trial %d (%d candidates, %d pairs): %d-th is candidate %d, the heap's %d", trial, n, len(distinct), k, order[k], want)
			}
		}
		if len(order) != n {
			t.Fatalf("trial %d: %d in order of %d", trial, len(order), n)
		}
	}
	if ordered < 1000 || left < 100 {
		t.Fatalf("%d sets put in order, %d left to the heap: too few of either", ordered, left)
	}
	if sc.rankOrder([]uint64{rank(1, 2, 0)}, true) != nil {
		t.Fatal("rankOrder put ranks in order for a Peer that takes them off the heap")
	}
}

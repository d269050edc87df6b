package replication

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRankHeapPopsInSortedOrder checks that the heap writeOthers takes
// candidates from gives them highest rank first, as sorting them did.
func TestRankHeapPopsInSortedOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	t.Logf("seed 7")
	for n := range 70 {
		ranks := make([]uint64, n)
		for i := range ranks {
			ranks[i] = rng.Uint64() >> (rng.IntN(4) * 16) // some equal high parts
		}
		want := slices.Clone(ranks)
		slices.Sort(want)
		slices.Reverse(want)
		heapifyRanks(ranks)
		var got []uint64
		for len(ranks) > 0 {
			var top uint64
			top, ranks = popRank(ranks)
			got = append(got, top)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%d ranks: popped %v, want %v", n, got, want)
		}
	}
}

package replication

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"vkm/internal/entity"
	"vkm/wire"
)

// TestWriteIDMatchesVarints: writeID, which packs an occupant into one
// word where it fits, writes the bits of the slot's and the generation's
// varints one group at a time, at every alignment, and idBits is their
// width, for group boundaries, the largest values and random ones.
func TestWriteIDMatchesVarints(t *testing.T) {
	vals := []uint32{0, 1, 2, 7, 8, 63, 64, 127, 128, 129, 500, 1<<14 - 1, 1 << 14, 1<<21 - 1, 1 << 21,
		1<<24 - 1, 1 << 28, math.MaxUint32 - 1, math.MaxUint32}
	rng := rand.New(rand.NewPCG(5, 0))
	for range 200 {
		vals = append(vals, rng.Uint32()>>rng.IntN(32))
	}
	for _, slot := range vals {
		for _, gen := range vals {
			id := entity.ID{Slot: slot, Gen: gen}
			lead := int(slot+gen) % 11
			var got, want wire.Writer
			got.WriteBits(0x5a5, lead)
			want.WriteBits(0x5a5, lead)
			writeID(&got, id)
			writeVarint(&want, id.Slot, slotGroup)
			writeVarint(&want, id.Gen, genGroup)
			if got.Len() != want.Len() || !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("%v after %d bits: %d bits %x; the varints give %d bits %x", id, lead, got.Len(), got.Bytes(), want.Len(), want.Bytes())
			}
			if n := got.Len() - lead; n != idBits(id) {
				t.Fatalf("%v: %d bits written, idBits says %d", id, n, idBits(id))
			}
		}
	}
}

package netmsg

import (
	"encoding/binary"
	"math"

	"vkm/internal/entity"
	"vkm/wire"
)

// MaxRelayed is the most characters one relay section carries: its count
// is 1..MaxRelayed. Protocol constant.
const MaxRelayed = 4

// Intent is what a behavior told one character's controller to do in one
// tick: its run, as shares of its speed (MoveY only top-down).
type Intent struct {
	ID           entity.ID
	MoveX, MoveY float64
}

// Relay is a relay section (docs/protocol.md, "The relay section"): the
// intent the players nearest the receiving player gave their characters in
// the tick the snapshot after it describes. A section on the wire is a
// count byte 1..MaxRelayed, then that many entries in rising slot order,
// each the character's slot and generation as unsigned LEB128 (shortest
// form; slot below 2^24, generation 1..2^32−1), then MoveX and MoveY as
// command axes (a byte each, as wire.Axis codes them: 128 is 0, and 0 is
// never written).
type Relay []Intent

// Append appends the relay section of r, which holds 1..MaxRelayed
// entries in rising slot order, each with a generation: a section that
// breaks those rules is the caller's mistake, and ParseRelay refuses it.
// A run travels to the axis's step, clamped to -1..1 (NaN as 0).
func (r Relay) Append(b []byte) []byte {
	b = append(b, byte(len(r)))
	for _, e := range r {
		b = binary.AppendUvarint(b, uint64(e.ID.Slot))
		b = binary.AppendUvarint(b, uint64(e.ID.Gen))
		b = append(b, byte(wire.Axis.Encode(e.MoveX)), byte(wire.Axis.Encode(e.MoveY)))
	}
	return b
}

// ParseRelay reads the relay section at the start of b into dst[:0] and
// returns it with the section's length; what follows is the caller's. It
// refuses a count outside 1..MaxRelayed, a slot or generation out of range
// or not in its shortest form, slots not rising, an axis code of 0, and a
// section cut short. It allocates only when dst is too small.
func ParseRelay(b []byte, dst Relay) (Relay, int, error) {
	dst = dst[:0]
	if len(b) < 1 || b[0] == 0 || b[0] > MaxRelayed {
		return dst, 0, fail(FormatRelay)
	}
	n, at := int(b[0]), 1
	for range n {
		slot, k := uvarint(b[at:])
		if k <= 0 || slot > entity.MaxSlot {
			return dst, 0, fail(FormatRelay)
		}
		at += k
		gen, k := uvarint(b[at:])
		if k <= 0 || gen == 0 || gen > math.MaxUint32 {
			return dst, 0, fail(FormatRelay)
		}
		at += k
		if len(b) < at+2 || b[at] == 0 || b[at+1] == 0 {
			return dst, 0, fail(FormatRelay)
		}
		id := entity.ID{Slot: uint32(slot), Gen: uint32(gen)}
		if len(dst) > 0 && dst[len(dst)-1].ID.Slot >= id.Slot {
			return dst, 0, fail(FormatRelay)
		}
		dst = append(dst, Intent{ID: id, MoveX: wire.Axis.Decode(uint64(b[at])), MoveY: wire.Axis.Decode(uint64(b[at+1]))})
		at += 2
	}
	return dst, at, nil
}

// uvarint reads an unsigned LEB128 number in its shortest form; k <= 0
// says there is none.
func uvarint(b []byte) (v uint64, k int) {
	v, k = binary.Uvarint(b)
	if k > 1 && b[k-1] == 0 {
		return 0, 0 // a final group of zeros: not the shortest form
	}
	return v, k
}

package replication

import (
	"vkm/internal/entity"
	"vkm/wire"
)

// slotPageBits sets the page size of a slotTable: 256 slots, 1 KiB a page.
// Scenes number their slots densely from 0, so a few pages cover a world,
// while a slot near entity.MaxSlot costs one page and a 64 K-entry top
// level (512 KiB) rather than a 64 MiB dense array per connection. Tuning
// constant.
const slotPageBits = 8

// slotTable maps a slot number to a small non-negative int32 (an index + 1;
// 0 means none). It is a two-level table: lookups are two loads, and memory
// follows the slots used. The zero value is empty and ready.
type slotTable struct {
	pages []*[1 << slotPageBits]int32
}

// get returns the value at slot, or 0.
func (t *slotTable) get(slot uint32) int32 {
	p := slot >> slotPageBits
	if int(p) >= len(t.pages) || t.pages[p] == nil {
		return 0
	}
	return t.pages[p][slot&(1<<slotPageBits-1)]
}

// set stores v at slot, allocating its page on first use.
func (t *slotTable) set(slot uint32, v int32) {
	p := int(slot >> slotPageBits)
	if p >= len(t.pages) {
		if v == 0 {
			return
		}
		t.pages = append(t.pages, make([]*[1 << slotPageBits]int32, p+1-len(t.pages))...)
	}
	if t.pages[p] == nil {
		if v == 0 {
			return
		}
		t.pages[p] = new([1 << slotPageBits]int32)
	}
	t.pages[p][slot&(1<<slotPageBits-1)] = v
}

// The two varints of an occupant. A slot takes 7-bit groups (8 bits below
// 128, 16 below 16384); a generation, nearly always small, takes 3-bit
// groups (4 bits for 1..7). Each group is followed by one bit: 1 when
// another group follows. Groups go least significant first.
const (
	slotGroup = 7
	genGroup  = 3
)

// writeVarint writes v in groups of g bits, each followed by a
// continuation bit.
func writeVarint(w *wire.Writer, v uint32, g int) {
	for {
		w.WriteBits(uint64(v), g)
		v >>= g
		w.WriteBool(v != 0)
		if v == 0 {
			return
		}
	}
}

// varintBits returns how many bits writeVarint takes for v.
func varintBits(v uint32, g int) int {
	n := g + 1
	for v >>= g; v != 0; v >>= g {
		n += g + 1
	}
	return n
}

// readVarint reads what writeVarint wrote. A value wider than 32 bits, or
// one written with a needless final group of zeros, is refused: a writer
// never produces it, and refusing it keeps every value to one encoding.
func readVarint(r *wire.Reader, g int) (uint32, bool) {
	var v uint64
	for shift := 0; ; shift += g {
		c, err := r.ReadBits(g)
		more, _ := r.ReadBool()
		if err != nil || r.Err() != nil || shift >= 32 {
			return 0, false
		}
		v |= c << shift
		if !more {
			if shift > 0 && c == 0 || v > 1<<32-1 {
				return 0, false
			}
			return uint32(v), true
		}
	}
}

// packVarint returns the bits writeVarint writes for v in groups of g
// bits, as one word (lowest first), and their number. A uint32 takes at
// most 5 groups of 7 (40 bits) or 11 of 3 (44 bits), so for g ≥ 3 they
// fit.
func packVarint(v uint32, g int) (bits uint64, n int) {
	for {
		bits |= uint64(v&(1<<g-1)) << n
		n += g
		v >>= g
		if v == 0 {
			return bits, n + 1 // the last group's continuation bit, 0
		}
		bits |= 1 << n
		n++
	}
}

// writeID writes an occupant: its slot, then its generation, each as
// writeVarint writes it; in one go when they fit in a word, as they do
// for every slot and generation below 2^21 (a snapshot writes one for
// each of its entries).
func writeID(w *wire.Writer, id entity.ID) {
	s, sn := packVarint(id.Slot, slotGroup)
	g, gn := packVarint(id.Gen, genGroup)
	if sn+gn <= 64 {
		w.WriteBits(s|g<<sn, sn+gn)
		return
	}
	w.WriteBits(s, sn)
	w.WriteBits(g, gn)
}

// packID returns id as writeID writes it (the slot's varint, then the
// generation's) in one word, and its width; the word is 0 when the width
// is over 64.
func packID(id entity.ID) (uint64, int) {
	s, sn := packVarint(id.Slot, slotGroup)
	g, gn := packVarint(id.Gen, genGroup)
	if sn+gn > 64 {
		return 0, sn + gn
	}
	return s | g<<sn, sn + gn
}

// idBits returns the width of id on the wire.
func idBits(id entity.ID) int { return varintBits(id.Slot, slotGroup) + varintBits(id.Gen, genGroup) }

// readID reads an occupant, refusing a slot beyond entity.MaxSlot and a
// zero generation (which names nothing).
func readID(r *wire.Reader) (entity.ID, bool) {
	slot, ok := readVarint(r, slotGroup)
	if !ok || slot > entity.MaxSlot {
		return entity.None, false
	}
	gen, ok := readVarint(r, genGroup)
	if !ok || gen == 0 {
		return entity.None, false
	}
	return entity.ID{Slot: slot, Gen: gen}, true
}

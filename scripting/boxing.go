package scripting

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// numberSlab is how many numbers share one allocation.
//
// Handing a float64 to Lua means converting an LNumber to the lua.LValue
// interface, and Go boxes each such conversion in its own 8-byte heap
// object: self:velocity() alone would cost two allocations per entity per
// tick. numbers instead carves the boxes out of a slab, the way gopher-lua's
// own VM does for arithmetic results (its allocator.LNumber2I). The cost is
// that a slab is freed only when no number in it is still referenced, so a
// script that keeps one number per entity pins at most one 1 KiB slab per
// entity.
const numberSlab = 128

// eface is the memory layout of a non-empty Go interface value (type word,
// data word), the same assumption gopher-lua's allocator makes.
type eface struct {
	typ, data unsafe.Pointer
}

// numbers boxes float64s for Lua from slabs. The zero value is not usable;
// call init first. Not safe for concurrent use.
type numbers struct {
	slab    []float64
	scratch lua.LValue
	word    *eface
}

func (n *numbers) init() {
	n.scratch = lua.LNumber(1)
	n.word = (*eface)(unsafe.Pointer(&n.scratch))
}

// box returns v as a Lua value without a heap allocation of its own.
func (n *numbers) box(v float64) lua.LValue {
	if len(n.slab) == cap(n.slab) {
		n.slab = make([]float64, 0, numberSlab)
	}
	n.slab = append(n.slab, v)
	n.word.data = unsafe.Pointer(&n.slab[len(n.slab)-1])
	return n.scratch // copied out, so scratch is free for the next call
}

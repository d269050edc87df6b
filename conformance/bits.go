package conformance

import (
	"errors"
	"fmt"
	"math"
)

// errShort is returned by a bit reader asked for bits past the end.
var errShort = errors.New("conformance: bits past the end")

// bitReader reads the bit fields of snapshots and command packets
// ("Conventions": packed least significant bit first, crossing byte
// boundaries, an n-bit value's bit 0 first). The first error sticks: every
// later read returns 0, so a decoder checks err once at the end of a unit.
// The zero value reads nothing.
type bitReader struct {
	b   []byte
	pos int // bits consumed
	err error
}

func newBitReader(b []byte) *bitReader { return &bitReader{b: b} }

// read returns the next n bits (n ≤ 64) as a number, bit 0 first.
func (r *bitReader) read(n int) uint64 {
	if r.err != nil {
		return 0
	}
	if n < 0 || n > 64 || r.pos+n > 8*len(r.b) {
		r.err = errShort
		return 0
	}
	var v uint64
	for i := 0; i < n; i++ {
		bit := uint64(r.b[r.pos>>3]>>(r.pos&7)) & 1
		v |= bit << i
		r.pos++
	}
	return v
}

// flag reads one bit.
func (r *bitReader) flag() bool { return r.read(1) == 1 }

// fail records err unless an error is already held.
func (r *bitReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// finish checks the end of a bit-packed unit: the last byte padded with
// zero bits and no byte after it ("a reader refuses non-zero padding and
// bytes after the end").
func (r *bitReader) finish() error {
	if r.err != nil {
		return r.err
	}
	if used := (r.pos + 7) / 8; used != len(r.b) {
		return fmt.Errorf("conformance: %d bytes after the end of %d bits", len(r.b)-used, r.pos)
	}
	for r.pos%8 != 0 {
		if r.read(1) != 0 {
			return errors.New("conformance: non-zero padding bits")
		}
	}
	return nil
}

// groupVarint reads a group varint of g-bit groups ("Conventions": least
// significant group first, each followed by one continuation bit). It
// refuses a value over 32 bits and a final group of zeros after the first.
func (r *bitReader) groupVarint(g int) uint32 {
	var v uint64
	for shift := 0; ; shift += g {
		if shift >= 32 {
			// A group starting at bit 32 either sets a bit over 32 or is
			// zero, and a run of zero groups must end in a non-zero one.
			r.fail(errors.New("conformance: group varint over 32 bits"))
			return 0
		}
		grp := r.read(g)
		v |= grp << shift
		more := r.flag()
		if r.err != nil {
			return 0
		}
		if v > math.MaxUint32 {
			r.fail(errors.New("conformance: group varint over 32 bits"))
			return 0
		}
		if !more {
			if shift > 0 && grp == 0 {
				r.fail(errors.New("conformance: group varint with a final zero group"))
				return 0
			}
			return uint32(v)
		}
	}
}

// quantised is a signed quantity of width bits and step S ("Conventions",
// wire.Signed): code 2^(B−1) + round(v/S) clamped to 1..2^B−1.
type quantised struct {
	bits int
	step float64
}

// mid is the code of an exact zero.
func (q quantised) mid() uint64 { return 1 << (q.bits - 1) }

// value decodes a code: (code − 2^(B−1)) × S.
func (q quantised) value(code uint64) float64 {
	return float64(int64(code)-int64(q.mid())) * q.step
}

// code encodes v as the doc says a writer does: round half away from
// zero of the float64 quotient, clamped, NaN as the zero code. The checks
// use it to state expected values in the doc's own terms.
func (q quantised) code(v float64) uint64 {
	if math.IsNaN(v) {
		return q.mid()
	}
	steps := math.Round(v / q.step) // math.Round rounds half away from zero
	lo, hi := 1-float64(q.mid()), float64(q.mid()-1)
	steps = math.Max(lo, math.Min(hi, steps))
	return uint64(int64(q.mid()) + int64(steps))
}

// readCode reads an engine field's code, refusing code 0 ("a reader of an
// engine field refuses it").
func (r *bitReader) readCode(q quantised) uint64 {
	c := r.read(q.bits)
	if r.err == nil && c == 0 {
		r.fail(fmt.Errorf("conformance: code 0 in a %d-bit engine field", q.bits))
	}
	return c
}

// bitsFor is the number of bits a code range 0..n needs ("in the bits
// max − min needs").
func bitsFor(n uint64) int {
	b := 0
	for n > 0 {
		b++
		n >>= 1
	}
	return b
}

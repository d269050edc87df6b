package wire

import (
	"encoding/binary"
	"errors"
	"math"
)

// ErrShort is returned by a Reader asked for more bits than its buffer has
// left. Decoders of untrusted bytes branch on it to tell a truncated message
// from one that is well framed but says something invalid.
var ErrShort = errors.New("wire: read past the end of the buffer")

// ErrWidth is returned by Reader.ReadBits for a width outside 0..64. Widths
// sometimes come from decoded data, so a reader reports this rather than
// panicking.
var ErrWidth = errors.New("wire: bit width outside 0..64")

// Writer appends bits to a byte slice, least significant bit first (see the
// package doc).
//
// The zero value is an empty Writer ready to use. Reset lends it a buffer to
// reuse, so a steady-state encoder allocates nothing. A Writer is not safe for
// concurrent use.
type Writer struct {
	buf  []byte
	bits int // bits written; the last byte of buf holds bits&7 of them when nonzero
	// owned says buf's storage past its bytes is the Writer's to write
	// (ResetOwned): it may put a word there and keep only its bytes.
	owned bool
}

// Reset empties w and makes it write into buf's storage (from buf[:0]), so a
// caller can reuse one buffer for every message. Reset(nil) lets w allocate.
func (w *Writer) Reset(buf []byte) {
	w.buf = buf[:0]
	w.bits = 0
	w.owned = false
}

// ResetOwned is Reset for storage whose capacity past what w writes no one
// else holds, such as a buffer only w writes into and its owner copies
// out of: w may then write up to eight bytes past its last one (whatever
// lies there is lost) and writes most fields with one word's store. What
// w writes, and Bytes, are the same as after Reset.
func (w *Writer) ResetOwned(buf []byte) {
	w.buf = buf[:0]
	w.bits = 0
	w.owned = true
}

// WriteBits appends the low n bits of v, lowest first; higher bits of v are
// ignored. n must be in 0..64: any other width is a programmer error and
// panics. Writing 0 bits is a no-op.
func (w *Writer) WriteBits(v uint64, n int) {
	if uint(n) > 64 {
		panic("wire: WriteBits width outside 0..64")
	}
	if n == 0 {
		return
	}
	if n < 64 {
		v &= 1<<n - 1
	}
	if l := len(w.buf); w.owned && n <= 56 && cap(w.buf)-l >= 8 {
		// The partly written last byte (if any; its unwritten bits are
		// zeros) and the bits of v above it, as one word from that byte
		// on; then the bytes that hold bits, and nothing past them.
		at := w.bits >> 3
		cur := uint64(0)
		if at < l {
			cur = uint64(w.buf[at])
		}
		binary.LittleEndian.PutUint64(w.buf[at:at+8], cur|v<<(w.bits&7))
		w.bits += n
		w.buf = w.buf[:(w.bits+7)>>3]
		return
	}
	used := w.bits & 7
	w.bits += n
	if used != 0 {
		// Fill the partly written last byte first.
		w.buf[len(w.buf)-1] |= byte(v << used)
		free := 8 - used
		if n <= free {
			return
		}
		v >>= free
		n -= free
	}
	// From a byte boundary: append the bytes that hold v's n bits (v has
	// no bits above them, so the last one is padded with zeros). Exactly
	// those bytes: a Writer lent a buffer must not touch its storage past
	// what it writes, which its owner may still hold.
	l, k := len(w.buf), (n+7)>>3
	if cap(w.buf)-l < k {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		w.buf = append(w.buf, b[:k]...)
		return
	}
	// In place, by the word, half word, quarter and byte that make up k,
	// rather than through append's copy: a snapshot's encoder makes
	// thousands of these a round.
	w.buf = w.buf[:l+k]
	b := w.buf[l:]
	if k == 8 {
		binary.LittleEndian.PutUint64(b, v)
		return
	}
	if k&4 != 0 {
		binary.LittleEndian.PutUint32(b, uint32(v))
		b, v = b[4:], v>>32
	}
	if k&2 != 0 {
		binary.LittleEndian.PutUint16(b, uint16(v))
		b, v = b[2:], v>>16
	}
	if k&1 != 0 {
		b[0] = byte(v)
	}
}

// WriteBitString appends the first n bits of data, packed as a Writer
// packs them (least significant first from data[0]): what another Writer
// wrote can be copied whole, whatever this one's alignment. Bits of data
// past n are ignored. n must be in 0..8*len(data): anything else is a
// programmer error and panics.
func (w *Writer) WriteBitString(data []byte, n int) {
	if n < 0 || n > 8*len(data) {
		panic("wire: WriteBitString width outside its data")
	}
	if n == 0 {
		return
	}
	if w.bits&7 == 0 {
		full, rest := n>>3, n&7
		w.bits += n
		w.buf = append(w.buf, data[:full]...)
		if rest != 0 {
			w.buf = append(w.buf, data[full]&byte(1<<rest-1))
		}
		return
	}
	// Off a byte boundary, 64 bits at a time through WriteBits, which
	// tops up the last byte and appends the rest.
	for n >= 64 {
		w.WriteBits(binary.LittleEndian.Uint64(data), 64)
		data, n = data[8:], n-64
	}
	if n > 0 {
		var b [8]byte
		copy(b[:], data[:(n+7)/8])
		w.WriteBits(binary.LittleEndian.Uint64(b[:]), n)
	}
}

// WriteBool appends one bit: 1 for true.
func (w *Writer) WriteBool(b bool) {
	var v uint64
	if b {
		v = 1
	}
	w.WriteBits(v, 1)
}

// WriteUint8 appends v in 8 bits.
func (w *Writer) WriteUint8(v uint8) { w.WriteBits(uint64(v), 8) }

// WriteUint16 appends v in 16 bits.
func (w *Writer) WriteUint16(v uint16) { w.WriteBits(uint64(v), 16) }

// WriteUint32 appends v in 32 bits.
func (w *Writer) WriteUint32(v uint32) { w.WriteBits(uint64(v), 32) }

// WriteUint64 appends v in 64 bits.
func (w *Writer) WriteUint64(v uint64) { w.WriteBits(v, 64) }

// WriteFloat32 appends the IEEE 754 bits of f unchanged (32 bits). Use a
// quantizer instead when the field has a known range and precision.
func (w *Writer) WriteFloat32(f float32) { w.WriteBits(uint64(math.Float32bits(f)), 32) }

// WriteFloat64 appends the IEEE 754 bits of f unchanged (64 bits).
func (w *Writer) WriteFloat64(f float64) { w.WriteBits(math.Float64bits(f), 64) }

// WriteBytes appends p, eight bits a byte. It copies in one step when w is on
// a byte boundary.
func (w *Writer) WriteBytes(p []byte) {
	if w.bits&7 == 0 {
		w.buf = append(w.buf, p...)
		w.bits += 8 * len(p)
		return
	}
	for _, b := range p {
		w.WriteBits(uint64(b), 8)
	}
}

// Truncate drops every bit written after the first n, as if they had
// never been written: Len is then n, Bytes its bytes, and the next write
// follows bit n. n must be in 0..Len(): anything else is a programmer
// error and panics. A writer that writes ahead and then finds it should
// not have (a snapshot's entries that turn out not to fit, say) undoes
// it so rather than writing again from the start.
func (w *Writer) Truncate(n int) {
	if n < 0 || n > w.bits {
		panic("wire: Truncate past what was written")
	}
	w.bits = n
	w.buf = w.buf[:(n+7)>>3]
	if used := n & 7; used != 0 {
		// The last byte's bits past n must be zeros: a later write
		// tops it up by OR (see WriteBits).
		w.buf[len(w.buf)-1] &= byte(1<<used - 1)
	}
}

// Bytes returns what has been written, the last byte zero-padded. The slice
// aliases w's buffer: it is valid until the next write or Reset.
func (w *Writer) Bytes() []byte { return w.buf }

// Len returns the number of bits written since the last Reset.
func (w *Writer) Len() int { return w.bits }

// Reader reads bits from a byte slice in the order a Writer wrote them.
//
// Its error is sticky: the first failed read records ErrShort or ErrWidth,
// and every later read returns zero and the same error, so a decoder may read
// a whole message and check Err once. A Reader never panics on any input.
// The zero value is a Reader over an empty buffer. A Reader is not safe for
// concurrent use.
type Reader struct {
	buf []byte
	pos int // bits consumed
	err error
}

// NewReader returns a Reader over b. It does not copy b; b must not change
// while it is being read.
func NewReader(b []byte) *Reader { return &Reader{buf: b} }

// Reset makes r read b from its start and clears any error.
func (r *Reader) Reset(b []byte) { *r = Reader{buf: b} }

// Err returns the first error a read met, or nil.
func (r *Reader) Err() error { return r.err }

// Remaining returns how many bits are left to read, counting the zero padding
// of the last byte.
func (r *Reader) Remaining() int { return len(r.buf)*8 - r.pos }

// ReadBits reads n bits, lowest first, and returns them in the low bits of
// the result. A width outside 0..64 fails with ErrWidth; fewer than n bits
// left fails with ErrShort and consumes nothing.
func (r *Reader) ReadBits(n int) (uint64, error) {
	if r.err != nil {
		return 0, r.err
	}
	if n < 0 || n > 64 {
		r.err = ErrWidth
		return 0, r.err
	}
	if n > r.Remaining() {
		r.err = ErrShort
		return 0, r.err
	}
	var v uint64
	for got := 0; got < n; {
		used := r.pos & 7
		take := min(8-used, n-got)
		b := uint64(r.buf[r.pos>>3]>>used) & (1<<take - 1)
		v |= b << got
		got += take
		r.pos += take
	}
	return v, nil
}

// ReadBool reads one bit.
func (r *Reader) ReadBool() (bool, error) {
	v, err := r.ReadBits(1)
	return v == 1, err
}

// ReadUint8 reads 8 bits.
func (r *Reader) ReadUint8() (uint8, error) {
	v, err := r.ReadBits(8)
	return uint8(v), err
}

// ReadUint16 reads 16 bits.
func (r *Reader) ReadUint16() (uint16, error) {
	v, err := r.ReadBits(16)
	return uint16(v), err
}

// ReadUint32 reads 32 bits.
func (r *Reader) ReadUint32() (uint32, error) {
	v, err := r.ReadBits(32)
	return uint32(v), err
}

// ReadUint64 reads 64 bits.
func (r *Reader) ReadUint64() (uint64, error) { return r.ReadBits(64) }

// ReadFloat32 reads 32 bits as an IEEE 754 float, unchanged.
func (r *Reader) ReadFloat32() (float32, error) {
	v, err := r.ReadBits(32)
	return math.Float32frombits(uint32(v)), err
}

// ReadFloat64 reads 64 bits as an IEEE 754 float, unchanged.
func (r *Reader) ReadFloat64() (float64, error) {
	v, err := r.ReadBits(64)
	return math.Float64frombits(v), err
}

// ReadBytes fills dst with the next len(dst) bytes. When too few bits are
// left it fails with ErrShort, consumes nothing and leaves dst unspecified.
func (r *Reader) ReadBytes(dst []byte) error {
	if r.err != nil {
		return r.err
	}
	if len(dst) > r.Remaining()/8 {
		r.err = ErrShort
		return r.err
	}
	if r.pos&7 == 0 {
		r.pos += 8 * copy(dst, r.buf[r.pos>>3:])
		return nil
	}
	for i := range dst {
		v, _ := r.ReadBits(8) // cannot fail: the length was checked above
		dst[i] = byte(v)
	}
	return nil
}

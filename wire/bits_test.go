package wire

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// mask returns the low n bits of v.
func mask(v uint64, n int) uint64 {
	if n == 64 {
		return v
	}
	return v & (1<<n - 1)
}

func TestRoundTripEveryWidth(t *testing.T) {
	values := []uint64{0, 1, 0x5555555555555555, 0xAAAAAAAAAAAAAAAA, math.MaxUint64, 0x0123456789ABCDEF}
	for n := 0; n <= 64; n++ {
		for _, lead := range []int{0, 1, 3, 7} { // start at every kind of offset
			var w Writer
			w.WriteBits(1, lead)
			for _, v := range values {
				w.WriteBits(v, n)
			}
			if want := lead + n*len(values); w.Len() != want {
				t.Fatalf("width %d lead %d: Len = %d, want %d", n, lead, w.Len(), want)
			}
			if want := (w.Len() + 7) / 8; len(w.Bytes()) != want {
				t.Fatalf("width %d lead %d: %d bytes, want %d", n, lead, len(w.Bytes()), want)
			}
			r := NewReader(w.Bytes())
			if _, err := r.ReadBits(lead); err != nil {
				t.Fatal(err)
			}
			for _, v := range values {
				got, err := r.ReadBits(n)
				if err != nil {
					t.Fatalf("width %d lead %d: %v", n, lead, err)
				}
				if got != mask(v, n) {
					t.Fatalf("width %d lead %d: read %#x, want %#x", n, lead, got, mask(v, n))
				}
			}
			if r.Remaining() >= 8 {
				t.Fatalf("width %d lead %d: %d bits left over", n, lead, r.Remaining())
			}
		}
	}
}

func TestBitOrderIsLeastSignificantFirst(t *testing.T) {
	var w Writer
	w.WriteBool(true)
	w.WriteBits(0b10, 2)
	w.WriteUint16(0xBEEF) // not aligned: straddles three bytes
	w.Reset(nil)
	w.WriteUint16(0xBEEF)
	w.WriteUint32(0x01020304)
	want := []byte{0xEF, 0xBE, 0x04, 0x03, 0x02, 0x01} // aligned fields read as little-endian
	if !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("bytes % x, want % x", w.Bytes(), want)
	}
	w.Reset(nil)
	w.WriteBool(true)
	w.WriteBits(0b10, 2)
	w.WriteBits(0b11111, 5)
	if got := w.Bytes(); len(got) != 1 || got[0] != 0b11111101 {
		t.Fatalf("bytes %08b, want 11111101", got)
	}
}

func TestTypedRoundTrip(t *testing.T) {
	var w Writer
	w.WriteBool(true)
	w.WriteUint8(0xA5)
	w.WriteBool(false)
	w.WriteUint16(0xBEEF)
	w.WriteUint32(0xDEADBEEF)
	w.WriteUint64(0x0123456789ABCDEF)
	w.WriteFloat32(-1.5)
	w.WriteFloat64(math.Pi)
	w.WriteFloat32(float32(math.Inf(1)))
	w.WriteBytes([]byte("hi"))
	w.WriteBits(0, 3)
	w.WriteBytes([]byte("there"))

	r := NewReader(w.Bytes())
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
	b1, _ := r.ReadBool()
	u8, _ := r.ReadUint8()
	b2, _ := r.ReadBool()
	u16, _ := r.ReadUint16()
	u32, _ := r.ReadUint32()
	u64, _ := r.ReadUint64()
	f32, _ := r.ReadFloat32()
	f64, _ := r.ReadFloat64()
	inf, _ := r.ReadFloat32()
	hi := make([]byte, 2)
	_ = r.ReadBytes(hi)
	_, _ = r.ReadBits(3)
	there := make([]byte, 5)
	_ = r.ReadBytes(there)
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	check("bool", b1, true)
	check("uint8", u8, uint8(0xA5))
	check("bool", b2, false)
	check("uint16", u16, uint16(0xBEEF))
	check("uint32", u32, uint32(0xDEADBEEF))
	check("uint64", u64, uint64(0x0123456789ABCDEF))
	check("float32", f32, float32(-1.5))
	check("float64", f64, math.Pi)
	check("inf", inf, float32(math.Inf(1)))
	check("bytes", string(hi), "hi")
	check("bytes", string(there), "there")
}

func TestFloatBitsAreKeptExactly(t *testing.T) {
	nan := math.Float64frombits(0x7FF8_0000_DEAD_BEEF) // a NaN with a payload
	var w Writer
	w.WriteFloat64(nan)
	w.WriteFloat64(math.Copysign(0, -1))
	r := NewReader(w.Bytes())
	a, _ := r.ReadFloat64()
	b, _ := r.ReadFloat64()
	if math.Float64bits(a) != math.Float64bits(nan) || math.Float64bits(b) != 1<<63 {
		t.Fatalf("bits %#x %#x", math.Float64bits(a), math.Float64bits(b))
	}
}

func TestRandomSequenceRoundTrip(t *testing.T) {
	const seed = 7
	rng := rand.New(rand.NewPCG(seed, 0))
	type field struct {
		v uint64
		n int
	}
	fields := make([]field, 5000)
	var w Writer
	w.Reset(make([]byte, 0, 64)) // reused storage grows as needed
	for i := range fields {
		f := field{rng.Uint64(), rng.IntN(65)}
		f.v = mask(f.v, f.n)
		fields[i] = f
		w.WriteBits(f.v, f.n)
	}
	r := NewReader(w.Bytes())
	for i, f := range fields {
		got, err := r.ReadBits(f.n)
		if err != nil || got != f.v {
			t.Fatalf("seed %d field %d (%d bits): got %#x, %v; want %#x", seed, i, f.n, got, err, f.v)
		}
	}
}

func TestReadingPastTheEnd(t *testing.T) {
	r := NewReader([]byte{0xFF})
	if v, err := r.ReadBits(5); err != nil || v != 0x1F {
		t.Fatalf("got %#x, %v", v, err)
	}
	if _, err := r.ReadBits(4); !errors.Is(err, ErrShort) {
		t.Fatalf("err = %v, want ErrShort", err)
	}
	// The error is sticky, even for a read that would have fit.
	if v, err := r.ReadBits(1); !errors.Is(err, ErrShort) || v != 0 {
		t.Fatalf("after error: got %#x, %v", v, err)
	}
	if !errors.Is(r.Err(), ErrShort) {
		t.Fatalf("Err = %v", r.Err())
	}

	var empty Reader
	if _, err := empty.ReadBool(); !errors.Is(err, ErrShort) {
		t.Fatalf("zero Reader: %v", err)
	}
	empty.Reset([]byte{1})
	if v, err := empty.ReadBool(); err != nil || !v {
		t.Fatalf("after Reset: %v, %v", v, err)
	}
	if _, err := empty.ReadBits(65); !errors.Is(err, ErrWidth) {
		t.Fatalf("width 65: %v", err)
	}
	if _, err := NewReader(nil).ReadBits(-1); !errors.Is(err, ErrWidth) {
		t.Fatalf("width -1: %v", err)
	}
	if v, err := NewReader(nil).ReadBits(0); err != nil || v != 0 {
		t.Fatalf("0 bits of nothing: %v, %v", v, err)
	}
	if err := NewReader([]byte{1, 2}).ReadBytes(make([]byte, 3)); !errors.Is(err, ErrShort) {
		t.Fatalf("ReadBytes: %v", err)
	}
}

func TestWriteBitsPanicsOnBadWidth(t *testing.T) {
	for _, n := range []int{-1, 65} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("WriteBits(_, %d) did not panic", n)
				}
			}()
			var w Writer
			w.WriteBits(0, n)
		}()
	}
}

// encodeSample writes a message of several fields of mixed widths whose last
// field ends in the last byte.
func encodeSample() []byte {
	var w Writer
	w.WriteUint16(0x1234)
	w.WriteBool(true)
	w.WriteBits(0x2A, 6)
	w.WriteFloat32(3.25)
	w.WriteUint64(math.MaxUint64)
	w.WriteBits(0x3, 2)
	w.WriteBytes([]byte{9, 8, 7})
	return w.Bytes()
}

func decodeSample(b []byte) error {
	r := NewReader(b)
	_, _ = r.ReadUint16()
	_, _ = r.ReadBool()
	_, _ = r.ReadBits(6)
	_, _ = r.ReadFloat32()
	_, _ = r.ReadUint64()
	_, _ = r.ReadBits(2)
	_ = r.ReadBytes(make([]byte, 3))
	return r.Err()
}

func TestEveryStrictPrefixFails(t *testing.T) {
	b := encodeSample()
	if err := decodeSample(b); err != nil {
		t.Fatalf("whole message: %v", err)
	}
	for n := range len(b) {
		if err := decodeSample(b[:n]); !errors.Is(err, ErrShort) {
			t.Errorf("prefix of %d/%d bytes: err = %v, want ErrShort", n, len(b), err)
		}
	}
}

func TestWriterReuseDoesNotAllocate(t *testing.T) {
	var w Writer
	buf := make([]byte, 0, 64)
	allocs := testing.AllocsPerRun(100, func() {
		w.Reset(buf)
		w.WriteBool(true)
		w.WriteUint32(7)
		w.WriteFloat64(1)
		r := NewReader(w.Bytes())
		_, _ = r.ReadBool()
		_, _ = r.ReadUint32()
		_, _ = r.ReadFloat64()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per encode and decode", allocs)
	}
}

func BenchmarkWriteRead(b *testing.B) {
	var w Writer
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		w.Reset(buf)
		for i := range 32 {
			w.WriteBits(uint64(i), 13)
			w.WriteBool(i&1 == 0)
		}
		r := NewReader(w.Bytes())
		for range 32 {
			_, _ = r.ReadBits(13)
			_, _ = r.ReadBool()
		}
	}
	b.ReportMetric(float64(len(w.Bytes())), "bytes/msg")
}

// TestWriteBitsMatchesBitByBit writes random fields, high bits of v set
// beyond the width, and compares the bytes with a writer that sets one bit
// at a time: the whole-word path must pack exactly the same bytes, padding
// included.
func TestWriteBitsMatchesBitByBit(t *testing.T) {
	const seed = 11
	rng := rand.New(rand.NewPCG(seed, 0))
	var w Writer
	var want []byte
	nbits := 0
	for i := 0; i < 20000; i++ {
		v, n := rng.Uint64(), rng.IntN(65)
		w.WriteBits(v, n)
		for j := 0; j < n; j++ {
			if nbits&7 == 0 {
				want = append(want, 0)
			}
			want[len(want)-1] |= byte(v>>j&1) << (nbits & 7)
			nbits++
		}
		if w.Len() != nbits || !bytes.Equal(w.Bytes(), want) {
			t.Fatalf("seed %d field %d (%d bits of %#x): %d bits %x; want %d bits %x", seed, i, n, v, w.Len(), w.Bytes(), nbits, want)
		}
	}
}

// TestWriterTouchesOnlyWhatItWrites: a Writer lent storage writes nothing
// past the bytes it has written; the lender may still hold what lies there.
func TestWriterTouchesOnlyWhatItWrites(t *testing.T) {
	store := bytes.Repeat([]byte{0xAA}, 32)
	var w Writer
	w.Reset(store[:0])
	w.WriteBits(0x5, 3)
	w.WriteBits(1<<40|3, 41)
	n := len(w.Bytes())
	if n != 6 {
		t.Fatalf("44 bits took %d bytes; want 6", n)
	}
	for i, b := range store[n:] {
		if b != 0xAA {
			t.Fatalf("byte %d past the written %d changed to %#x", n+i, n, b)
		}
	}
}

// TestWriteBitStringMatchesWriteBits copies random bit strings at every
// alignment and compares with writing the same bits one WriteBits at a
// time, padding and untouched storage included.
func TestWriteBitStringMatchesWriteBits(t *testing.T) {
	const seed = 13
	rng := rand.New(rand.NewPCG(seed, 0))
	for i := 0; i < 5000; i++ {
		lead, n := rng.IntN(20), rng.IntN(200)
		src := make([]byte, (n+7)/8+rng.IntN(2))
		for j := range src {
			src[j] = byte(rng.Uint32())
		}
		store := bytes.Repeat([]byte{0xAA}, 64)
		var got, want Writer
		got.Reset(store[:0])
		want.WriteBits(uint64(i), lead)
		got.WriteBits(uint64(i), lead)
		got.WriteBitString(src, n)
		for k := 0; k < n; k++ {
			want.WriteBits(uint64(src[k>>3]>>(k&7)), 1)
		}
		if got.Len() != want.Len() || !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("seed %d case %d: %d bits after %d: %x, want %x", seed, i, n, lead, got.Bytes(), want.Bytes())
		}
		for k, b := range store[len(got.Bytes()):] {
			if b != 0xAA {
				t.Fatalf("seed %d case %d: byte %d past the written ones changed", seed, i, len(got.Bytes())+k)
			}
		}
	}
}

// TestOwnedWriterWritesAsLent: a Writer reset with ResetOwned, which may
// scribble past its bytes, holds the same bytes as one lent storage after
// every field, of every width and at every alignment, whatever its
// storage held before (junk), through growth and the other writes.
func TestOwnedWriterWritesAsLent(t *testing.T) {
	const seed = 21
	rng := rand.New(rand.NewPCG(seed, 0))
	for round := range 200 {
		store := make([]byte, rng.IntN(40), 40+rng.IntN(40))
		store = store[:cap(store)]
		for i := range store {
			store[i] = byte(rng.Uint32())
		}
		var owned, lent Writer
		owned.ResetOwned(store[:rng.IntN(len(store))])
		lent.Reset(nil)
		for i := range 300 {
			switch k := rng.IntN(10); {
			case k < 7:
				v, n := rng.Uint64(), rng.IntN(65)
				owned.WriteBits(v, n)
				lent.WriteBits(v, n)
			case k < 9:
				src := make([]byte, 1+rng.IntN(12))
				for j := range src {
					src[j] = byte(rng.Uint32())
				}
				n := rng.IntN(8*len(src) + 1)
				owned.WriteBitString(src, n)
				lent.WriteBitString(src, n)
			default:
				p := []byte{byte(rng.Uint32()), byte(rng.Uint32())}
				owned.WriteBytes(p)
				lent.WriteBytes(p)
			}
			if owned.Len() != lent.Len() || !bytes.Equal(owned.Bytes(), lent.Bytes()) {
				t.Fatalf("seed %d round %d field %d: owned %d bits %x; lent %d bits %x", seed, round, i, owned.Len(), owned.Bytes(), lent.Len(), lent.Bytes())
			}
		}
		// Reset, then ResetOwned again over what it wrote: junk past
		// the bytes is fine, the bytes must be the fields'.
		buf := owned.Bytes()
		owned.ResetOwned(buf)
		lent.Reset(nil)
		for range 50 {
			v, n := rng.Uint64(), rng.IntN(57)
			owned.WriteBits(v, n)
			lent.WriteBits(v, n)
		}
		if !bytes.Equal(owned.Bytes(), lent.Bytes()) {
			t.Fatalf("seed %d round %d, reused: owned %x; lent %x", seed, round, owned.Bytes(), lent.Bytes())
		}
	}
}

// TestTruncateUndoesWrites writes a random run of fields, truncates to a
// random point and writes more, and compares with a writer that wrote
// only what was kept: lent or owned storage, at every alignment.
func TestTruncateUndoesWrites(t *testing.T) {
	const seed = 34
	rng := rand.New(rand.NewPCG(seed, 0))
	for round := range 400 {
		var got, want Writer
		if round%2 == 0 {
			got.ResetOwned(make([]byte, 0, 64))
		}
		type field struct {
			v uint64
			n int
		}
		var fields []field
		for range rng.IntN(20) {
			f := field{rng.Uint64(), rng.IntN(65)}
			fields = append(fields, f)
			got.WriteBits(f.v, f.n)
		}
		keep := rng.IntN(len(fields) + 1)
		at := 0
		for _, f := range fields[:keep] {
			want.WriteBits(f.v, f.n)
			at += f.n
		}
		got.Truncate(at)
		if got.Len() != want.Len() || !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("seed %d round %d: truncated to %d: %d bits %x, want %d bits %x", seed, round, at, got.Len(), got.Bytes(), want.Len(), want.Bytes())
		}
		for range rng.IntN(8) {
			f := field{rng.Uint64(), rng.IntN(65)}
			got.WriteBits(f.v, f.n)
			want.WriteBits(f.v, f.n)
		}
		if got.Len() != want.Len() || !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("seed %d round %d: written after truncating to %d: %d bits %x, want %d bits %x", seed, round, at, got.Len(), got.Bytes(), want.Len(), want.Bytes())
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Truncate past Len did not panic")
		}
	}()
	var w Writer
	w.WriteBits(1, 3)
	w.Truncate(4)
}

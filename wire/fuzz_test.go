package wire

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzReader drives a Reader over arbitrary bytes with an arbitrary sequence
// of reads. It must never panic; a successful read must fit its width; the
// error must be sticky; and writing back what was read, with the same widths,
// must reproduce the bits consumed.
func FuzzReader(f *testing.F) {
	f.Add([]byte{}, []byte{0})
	f.Add(encodeSample(), []byte{16, 1, 6, 32, 64, 2, 200, 201, 202})
	f.Add([]byte{0xFF, 0x00, 0xAA}, []byte{64, 65, 1})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, []byte{3, 130, 64, 7, 8})
	f.Fuzz(func(t *testing.T, data, ops []byte) {
		type read struct {
			v uint64
			n int
		}
		var done []read
		r := NewReader(data)
		var firstErr error
		for _, op := range ops {
			before := r.Remaining()
			var v uint64
			var n int
			var err error
			switch {
			case op <= 66: // widths -1..65, including the invalid ones
				n = int(op) - 1
				v, err = r.ReadBits(n)
			case op < 200:
				n = 1
				var b bool
				b, err = r.ReadBool()
				if b {
					v = 1
				}
			default: // a byte run of 0..55 bytes
				p := make([]byte, op-200)
				err = r.ReadBytes(p)
				if err == nil {
					for _, b := range p {
						done = append(done, read{uint64(b), 8})
					}
				}
			}
			if firstErr != nil && err != firstErr {
				t.Fatalf("error not sticky: %v then %v", firstErr, err)
			}
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				if !errors.Is(err, ErrShort) && !errors.Is(err, ErrWidth) {
					t.Fatalf("unexpected error %v", err)
				}
				if r.Remaining() != before {
					t.Fatalf("a failed read consumed bits")
				}
				continue
			}
			if op < 200 {
				if mask(v, n) != v {
					t.Fatalf("read %#x does not fit %d bits", v, n)
				}
				done = append(done, read{v, n})
			}
		}
		if r.Err() != firstErr {
			t.Fatalf("Err = %v, want %v", r.Err(), firstErr)
		}
		var w Writer
		for _, d := range done {
			w.WriteBits(d.v, d.n)
		}
		consumed := len(data)*8 - r.Remaining()
		if w.Len() != consumed {
			t.Fatalf("wrote %d bits back, reader consumed %d", w.Len(), consumed)
		}
		got := w.Bytes()
		want := bytes.Clone(data[:len(got)])
		if rem := consumed & 7; rem != 0 {
			want[len(want)-1] &= byte(1<<rem - 1)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("rewritten % x, consumed % x", got, want)
		}
	})
}

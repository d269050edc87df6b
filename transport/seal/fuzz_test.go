package seal

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzOpen hands a Receiver that has accepted a few datagrams arbitrary
// bytes. Open must not panic, must answer with one of its four errors, must
// leave the window alone whenever it refuses, and may accept only a
// datagram the peer's Sender really sealed at a counter not yet accepted.
func FuzzOpen(f *testing.F) {
	s, _ := pair(f, &keyA)
	for c := range uint64(4) {
		s.next = c
		f.Add(s.Seal(nil, header(byte(c)), []byte("seed")))
	}
	s.next = 300
	f.Add(s.Seal(nil, header(0), nil))
	s.next = 5
	f.Add(s.Seal(nil, header(9), bytes.Repeat([]byte{0xaa}, 100)))
	f.Add([]byte{})
	f.Add(make([]byte, testHeader+Overhead))
	f.Fuzz(func(t *testing.T, d []byte) {
		s, r := pair(t, &keyA)
		for _, c := range []uint64{0, 1, 3, 290} {
			s.next = c
			if _, _, err := r.Open(nil, s.Seal(nil, header(0), []byte("seed"))); err != nil {
				t.Fatal(err)
			}
		}
		before := stateOf(r)
		h, p, err := r.Open(nil, d)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTooOld) && !errors.Is(err, ErrReplayed) && !errors.Is(err, ErrForged) {
				t.Fatalf("Open = %v, not one of the package's errors", err)
			}
			if stateOf(r) != before {
				t.Fatalf("a refused datagram (%v) moved the window", err)
			}
			return
		}
		counter, _ := r.Newest()
		if counter < before.newest {
			// Accepted late: find its counter in the datagram itself.
			counter = uint64(d[testHeader]) | uint64(d[testHeader+1])<<8 | uint64(d[testHeader+2])<<16 | uint64(d[testHeader+3])<<24 |
				uint64(d[testHeader+4])<<32 | uint64(d[testHeader+5])<<40 | uint64(d[testHeader+6])<<48 | uint64(d[testHeader+7])<<56
		}
		s.next = counter
		if again := s.Seal(nil, h, p); !bytes.Equal(again, d) {
			t.Fatalf("accepted a datagram the Sender did not make:\n% x\nit makes\n% x", d, again)
		}
		if _, _, err := r.Open(nil, d); !errors.Is(err, ErrReplayed) {
			t.Fatalf("the same datagram again: %v", err)
		}
	})
}

// OpenOnce never panics, opens exactly what SealOnce sealed under its key,
// and refuses a datagram with any byte changed.
func FuzzOpenOnce(f *testing.F) {
	f.Add(SealOnce(nil, &keyA, header(1), 1<<63|5, []byte("refused")), uint16(0))
	f.Add(SealOnce(nil, &keyA, header(2), 7, nil), uint16(3))
	f.Add([]byte{}, uint16(0))
	f.Fuzz(func(t *testing.T, d []byte, flip uint16) {
		h, counter, p, err := OpenOnce(nil, &keyA, len(header(0)), d)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrForged) {
				t.Fatalf("error %v", err)
			}
			return
		}
		again := SealOnce(nil, &keyA, h, counter, p)
		if !bytes.Equal(again, d) {
			t.Fatal("an opened datagram does not seal back to itself")
		}
		d = bytes.Clone(d)
		d[int(flip)%len(d)] ^= 1
		if _, _, _, err := OpenOnce(nil, &keyA, len(header(0)), d); !errors.Is(err, ErrForged) {
			t.Fatalf("a changed datagram opened: %v", err)
		}
	})
}

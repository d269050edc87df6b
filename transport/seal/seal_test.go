package seal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"golang.org/x/crypto/chacha20poly1305"
)

// testHeader stands for the 12-byte message header a vkm Data datagram
// starts with.
const testHeader = 12

var (
	keyA = Key{0: 1, 31: 0xa1}
	keyB = Key{0: 2, 31: 0xb2}
)

func pair(t testing.TB, key *Key) (*Sender, *Receiver) {
	t.Helper()
	s, err := NewSender(key, testHeader)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReceiver(key, testHeader)
	if err != nil {
		t.Fatal(err)
	}
	return s, r
}

func header(b byte) []byte { return bytes.Repeat([]byte{b}, testHeader) }

// window is the part of a Receiver an Open may change.
type window struct {
	newest uint64
	any    bool
	seen   [WindowSize / 64]uint64
}

func stateOf(r *Receiver) window { return window{r.newest, r.any, r.seen} }

func TestSealOpenRoundTrip(t *testing.T) {
	s, r := pair(t, &keyA)
	for i, n := range []int{0, 1, 64, 400, 1164} {
		payload := make([]byte, n)
		for j := range payload {
			payload[j] = byte(i + j)
		}
		d := s.Seal(nil, header(byte(i)), payload)
		if len(d) != testHeader+n+Overhead {
			t.Fatalf("sealed %d bytes into %d, want %d", n, len(d), testHeader+n+Overhead)
		}
		if n > 16 && bytes.Contains(d, payload[:16]) {
			t.Fatalf("the payload travels in the clear")
		}
		h, p, err := r.Open(nil, d)
		if err != nil {
			t.Fatalf("Open of datagram %d: %v", i, err)
		}
		if !bytes.Equal(h, header(byte(i))) || !bytes.Equal(p, payload) {
			t.Fatalf("datagram %d opens as %x / %x", i, h, p)
		}
		if got, ok := r.Newest(); !ok || got != uint64(i) {
			t.Fatalf("Newest = %d, %v after counter %d", got, ok, i)
		}
	}
	if s.Next() != 5 {
		t.Fatalf("Next = %d after 5 datagrams", s.Next())
	}
}

// The layout is the documented one: header, counter little endian, then
// ChaCha20-Poly1305 under the nonce 0000 ‖ counter with header and counter
// as associated data.
func TestSealLayout(t *testing.T) {
	s, _ := pair(t, &keyA)
	s.next = 0x0102030405060708
	payload := []byte("a command packet")
	got := s.Seal(nil, header(7), payload)

	aead, _ := chacha20poly1305.New(keyA[:])
	want := binary.LittleEndian.AppendUint64(header(7), 0x0102030405060708)
	nonce := make([]byte, 12)
	binary.LittleEndian.PutUint64(nonce[4:], 0x0102030405060708)
	want = aead.Seal(want, nonce, payload, want)
	if !bytes.Equal(got, want) {
		t.Fatalf("sealed\n% x\nwant\n% x", got, want)
	}
}

func TestSealAndOpenInPlace(t *testing.T) {
	s, r := pair(t, &keyA)
	payload := []byte("snapshot bytes, sealed where they lie")
	buf := make([]byte, 0, 256)
	buf = append(buf, header(3)...)
	buf = append(buf, make([]byte, CounterSize)...)
	buf = append(buf, payload...)
	n := len(payload)
	d := s.Seal(buf[:0], buf[:testHeader], buf[testHeader+CounterSize:testHeader+CounterSize+n])
	if &d[0] != &buf[0] || len(d) != testHeader+n+Overhead {
		t.Fatalf("did not seal in place: %d bytes", len(d))
	}
	want := pairSealed(t, payload)
	if !bytes.Equal(d, want) {
		t.Fatalf("in place\n% x\nelsewhere\n% x", d, want)
	}
	h, p, err := r.Open(r.InPlace(d), d)
	if err != nil || !bytes.Equal(h, header(3)) || !bytes.Equal(p, payload) {
		t.Fatalf("Open in place: %x %q %v", h, p, err)
	}
	if &p[0] != &d[testHeader+CounterSize] {
		t.Fatalf("payload does not alias the datagram")
	}
}

// pairSealed seals payload as the first datagram of a fresh Sender, out of
// place.
func pairSealed(t *testing.T, payload []byte) []byte {
	s, _ := pair(t, &keyA)
	return s.Seal(nil, header(3), payload)
}

func TestOpenRefusesAndKeepsTheWindow(t *testing.T) {
	s, r := pair(t, &keyA)
	first := s.Seal(nil, header(1), []byte("one"))
	second := s.Seal(nil, header(1), []byte("two"))
	if _, _, err := r.Open(nil, second); err != nil {
		t.Fatal(err)
	}
	before := stateOf(r)

	refuse := func(name string, d []byte, want error) {
		t.Helper()
		if _, _, err := r.Open(nil, d); !errors.Is(err, want) {
			t.Errorf("%s: Open = %v, want %v", name, err, want)
		}
		if stateOf(r) != before {
			t.Errorf("%s moved the window", name)
		}
	}
	refuse("a replay", second, ErrReplayed)
	refuse("a short datagram", second[:testHeader+Overhead-1], ErrMalformed)
	refuse("nothing", nil, ErrMalformed)
	other, _ := pair(t, &keyB)
	other.next = 5
	refuse("another key", other.Seal(nil, header(1), []byte("two")), ErrForged)
	// Alterations of a datagram not yet seen.
	third := s.Seal(nil, header(1), []byte("three"))
	refuse("a truncated tag", third[:len(third)-1], ErrForged)
	for i := range third {
		if i >= testHeader && i < testHeader+CounterSize {
			continue // a changed counter is a counter not seen: still forged, below
		}
		bad := bytes.Clone(third)
		bad[i] ^= 0x20
		refuse("a flipped byte", bad, ErrForged)
	}
	bad := bytes.Clone(third)
	bad[testHeader] = 9 // counter 9: not seen, and the tag is not for it
	refuse("an altered counter", bad, ErrForged)

	// The first datagram, late but in the window, is still good once.
	if _, p, err := r.Open(nil, first); err != nil || string(p) != "one" {
		t.Fatalf("late datagram: %q %v", p, err)
	}
	if _, _, err := r.Open(nil, first); !errors.Is(err, ErrReplayed) {
		t.Fatalf("late datagram again: %v", err)
	}
}

func TestWindowEdges(t *testing.T) {
	s, r := pair(t, &keyA)
	sealAt := func(c uint64) []byte {
		s.next = c
		return s.Seal(nil, header(0), nil)
	}
	old := sealAt(10)
	edge := sealAt(11)
	if _, _, err := r.Open(nil, sealAt(10+WindowSize)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Open(nil, old); !errors.Is(err, ErrTooOld) {
		t.Fatalf("counter newest-%d: %v, want ErrTooOld", WindowSize, err)
	}
	if _, _, err := r.Open(nil, edge); err != nil {
		t.Fatalf("counter newest-%d: %v", WindowSize-1, err)
	}
	// A jump past the whole window forgets everything behind it.
	if _, _, err := r.Open(nil, sealAt(1_000_000)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Open(nil, sealAt(1_000_000-WindowSize+1)); err != nil {
		t.Fatalf("oldest counter of the new window: %v", err)
	}
	if _, _, err := r.Open(nil, sealAt(1_000_000)); !errors.Is(err, ErrReplayed) {
		t.Fatalf("newest again: %v", err)
	}
	// The very first datagram may carry any counter, even the highest a
	// Sender can reach.
	_, r2 := pair(t, &keyA)
	if _, _, err := r2.Open(nil, sealAt(^uint64(0)-1)); err != nil {
		t.Fatal(err)
	}
}

// The window agrees with a plain set of accepted counters over random
// traffic: duplicates, reordering and jumps.
func TestWindowMatchesAModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s, r := pair(t, &keyA)
	accepted := map[uint64]bool{}
	var newest uint64
	anyYet := false
	var c uint64 = 100
	for range 20000 {
		switch k := rng.IntN(10); {
		case k < 6:
			c += uint64(rng.IntN(4))
		case k < 9:
			c -= min(c, uint64(rng.IntN(300)))
		default:
			c += uint64(rng.IntN(600))
		}
		s.next = c
		_, _, err := r.Open(nil, s.Seal(nil, header(0), nil))
		var want error
		switch {
		case anyYet && c <= newest && newest-c >= WindowSize:
			want = ErrTooOld
		case accepted[c]:
			want = ErrReplayed
		}
		if !errors.Is(err, want) || (want == nil && err != nil) {
			t.Fatalf("counter %d (newest %d): %v, want %v", c, newest, err, want)
		}
		if err == nil {
			accepted[c] = true
			if !anyYet || c > newest {
				newest = c
			}
			anyYet = true
		}
	}
}

func TestHeaderLength(t *testing.T) {
	for _, n := range []int{-1, MaxHeader + 1} {
		if _, err := NewSender(&keyA, n); err == nil {
			t.Errorf("NewSender with a %d-byte header", n)
		}
		if _, err := NewReceiver(&keyA, n); err == nil {
			t.Errorf("NewReceiver with a %d-byte header", n)
		}
	}
	s, r := pair(t, &keyA)
	defer func() {
		if recover() == nil {
			t.Fatal("Seal took a header of the wrong length")
		}
	}()
	_, _, _ = r.Open(nil, nil)
	s.Seal(nil, header(0)[:5], nil)
}

func TestNoAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what escapes")
	}
	s, r := pair(t, &keyA)
	payload := make([]byte, 400)
	hdr := header(1)
	out := make([]byte, 0, 1200)
	plain := make([]byte, 0, 1200)
	allocs := testing.AllocsPerRun(200, func() {
		d := s.Seal(out, hdr, payload)
		if _, _, err := r.Open(plain, d); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per sealed and opened datagram", allocs)
	}
}

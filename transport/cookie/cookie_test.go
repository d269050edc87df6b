package cookie

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"testing"
	"time"

	"github.com/dchest/siphash"
)

// newGate builds a Gate whose key is the 16 bytes seed, seed+1, ..., so tests
// are repeatable.
func newGate(tb testing.TB, seed byte) *Gate {
	tb.Helper()
	key := make([]byte, KeySize)
	for i := range key {
		key[i] = seed + byte(i)
	}
	g, err := New(bytes.NewReader(key))
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

var (
	addrA = netip.MustParseAddrPort("192.0.2.7:27960")
	addrB = netip.MustParseAddrPort("192.0.2.8:27960")
	addrC = netip.MustParseAddrPort("192.0.2.7:27961")
	addr6 = netip.MustParseAddrPort("[2001:db8::7]:27960")
)

// nonceA and nonceB are two join attempts' nonces.
const nonceA, nonceB = 0x0123456789abcdef, 0x0123456789abcdee

func TestTokenIsSipHashOfAddressPortWindowAndNonce(t *testing.T) {
	g := newGate(t, 1)
	now := 35 * time.Second // window 3
	var msg [34]byte
	ip := addrA.Addr().As16()
	copy(msg[:16], ip[:])
	binary.LittleEndian.PutUint16(msg[16:], addrA.Port())
	binary.LittleEndian.PutUint64(msg[18:], 3)
	binary.LittleEndian.PutUint64(msg[26:], nonceA)
	k0 := binary.LittleEndian.Uint64([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	k1 := binary.LittleEndian.Uint64([]byte{9, 10, 11, 12, 13, 14, 15, 16})
	if got, want := g.Token(addrA, nonceA, now), nonzero(siphash.Hash(k0, k1, msg[:])); got != want {
		t.Fatalf("Token = %#x, want SipHash-2-4 of the documented message %#x", got, want)
	}
}

func TestSameAddressAndWindowGiveSameToken(t *testing.T) {
	g := newGate(t, 1)
	a := g.Token(addrA, nonceA, 20*time.Second)
	b := g.Token(addrA, nonceA, 29*time.Second+999*time.Millisecond)
	if a != b {
		t.Fatalf("two times in one window gave %#x and %#x", a, b)
	}
}

func TestTokenDependsOnIPPortAndWindow(t *testing.T) {
	g := newGate(t, 1)
	base := g.Token(addrA, nonceA, 20*time.Second)
	for _, c := range []struct {
		name string
		tok  uint64
	}{
		{"other IP", g.Token(addrB, nonceA, 20*time.Second)},
		{"other port", g.Token(addrC, nonceA, 20*time.Second)},
		{"other nonce", g.Token(addrA, nonceB, 20*time.Second)},
		{"IPv6", g.Token(addr6, nonceA, 20*time.Second)},
		{"next window", g.Token(addrA, nonceA, 30*time.Second)},
		{"previous window", g.Token(addrA, nonceA, 19*time.Second)},
	} {
		if c.tok == base {
			t.Errorf("%s: token %#x equals the base token", c.name, c.tok)
		}
	}
}

func TestDifferentKeysGiveDifferentTokens(t *testing.T) {
	a := newGate(t, 1).Token(addrA, nonceA, time.Minute)
	b := newGate(t, 2).Token(addrA, nonceA, time.Minute)
	if a == b {
		t.Fatalf("two keys gave the same token %#x", a)
	}
}

func TestCheckAcceptsItsWindowAndTheNextOnly(t *testing.T) {
	g := newGate(t, 1)
	issued := 42 * time.Second // window 4: [40 s, 50 s)
	tok := g.Token(addrA, nonceA, issued)
	for _, c := range []struct {
		now  time.Duration
		want bool
	}{
		{40 * time.Second, true},
		{49*time.Second + 999*time.Millisecond, true},
		{50 * time.Second, true}, // the next window
		{59*time.Second + 999*time.Millisecond, true},
		{60 * time.Second, false}, // two windows later
		{75 * time.Second, false},
		{39 * time.Second, false}, // before it was issued
	} {
		if got := g.Check(addrA, nonceA, tok, c.now); got != c.want {
			t.Errorf("Check at %v = %v, want %v", c.now, got, c.want)
		}
	}
	if g.Check(addrB, nonceA, tok, issued) || g.Check(addrC, nonceA, tok, issued) {
		t.Error("a token passed for another address")
	}
	if g.Check(addrA, nonceB, tok, issued) {
		t.Error("a token passed for another join attempt's nonce")
	}
	if newGate(t, 2).Check(addrA, nonceA, tok, issued) {
		t.Error("a token passed under another key")
	}
}

func TestNegativeTimeHasItsOwnWindows(t *testing.T) {
	g := newGate(t, 1)
	if g.Token(addrA, nonceA, -time.Second) == g.Token(addrA, nonceA, time.Second) {
		t.Fatal("the second before the epoch shares a window with the second after")
	}
	if !g.Check(addrA, nonceA, g.Token(addrA, nonceA, -time.Second), time.Second) {
		t.Fatal("a token from window -1 is refused in window 0")
	}
}

func TestZeroIsNeverIssuedNorAccepted(t *testing.T) {
	if nonzero(0) != 1 || nonzero(7) != 7 {
		t.Fatal("nonzero does not remap exactly 0")
	}
	g := newGate(t, 1)
	for i := range 10000 {
		ap := netip.AddrPortFrom(addrA.Addr(), uint16(i))
		if g.Token(ap, nonceA, time.Duration(i)*Window) == 0 {
			t.Fatalf("token 0 issued for %v", ap)
		}
	}
	var zero Gate
	if zero.Check(addrA, nonceA, 0, 0) || g.Check(addrA, nonceA, 0, 0) {
		t.Fatal("Check accepted token 0")
	}
}

func TestNewFailsOnShortRandom(t *testing.T) {
	_, err := New(bytes.NewReader(make([]byte, KeySize-1)))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("New with 15 random bytes: err = %v, want io.ErrUnexpectedEOF", err)
	}
}

func TestNewWithNilUsesCryptoRand(t *testing.T) {
	a, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if *a == *b {
		t.Fatal("two keys from crypto/rand are equal")
	}
}

func TestTokenDoesNotAllocate(t *testing.T) {
	g := newGate(t, 1)
	if n := testing.AllocsPerRun(100, func() { g.Check(addr6, nonceA, g.Token(addr6, nonceA, time.Hour), time.Hour) }); n != 0 {
		t.Fatalf("Token+Check allocate %v times", n)
	}
}

func BenchmarkToken(b *testing.B) {
	g := newGate(b, 1)
	b.ReportAllocs()
	var sink uint64
	for b.Loop() {
		sink += g.Token(addr6, nonceA, time.Hour)
	}
	_ = sink
}

func BenchmarkCheck(b *testing.B) {
	g := newGate(b, 1)
	tok := g.Token(addr6, nonceA, time.Hour)
	b.ReportAllocs()
	for b.Loop() {
		if !g.Check(addr6, nonceA, tok, time.Hour+Window) {
			b.Fatal("refused")
		}
	}
}

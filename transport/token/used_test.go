package token

import (
	"testing"
	"time"
)

func nonce(i int) [NonceSize]byte { return [NonceSize]byte{byte(i), byte(i >> 8), 0xee} }

func TestUsedRefusesASecondUse(t *testing.T) {
	u := NewUsed(16)
	exp := mintedAt.Add(45 * time.Second)
	if u.Seen(nonce(1), exp, mintedAt) {
		t.Fatal("a first use refused")
	}
	if !u.Seen(nonce(1), exp, mintedAt.Add(44*time.Second)) {
		t.Fatal("a second use accepted")
	}
	if u.Seen(nonce(2), exp, mintedAt) {
		t.Fatal("another token refused")
	}
	if !u.Seen(nonce(1), exp, exp) || !u.Seen(nonce(3), exp, exp.Add(time.Hour)) {
		t.Fatal("an expired token accepted")
	}
	if u.Len() != 0 {
		t.Fatalf("%d nonces held after every token expired", u.Len())
	}
}

func TestUsedIsBounded(t *testing.T) {
	u := NewUsed(4)
	for i := range 4 {
		// Expiries out of order: 40, 10, 30, 20 seconds on.
		exp := mintedAt.Add(time.Duration((4-i)%4*10+10) * time.Second)
		if u.Seen(nonce(i), exp, mintedAt) {
			t.Fatalf("token %d refused", i)
		}
	}
	if !u.Seen(nonce(9), mintedAt.Add(time.Minute), mintedAt) {
		t.Fatal("a full Used took a fifth nonce")
	}
	// At 10 s one token has expired; its place is free, and nothing held
	// is forgotten early.
	at := mintedAt.Add(10 * time.Second)
	if u.Seen(nonce(9), mintedAt.Add(time.Minute), at) {
		t.Fatal("refused although a place has freed")
	}
	for i := range 4 {
		if (4-i)%4*10+10 > 10 && !u.Seen(nonce(i), mintedAt.Add(time.Hour), at) {
			t.Fatalf("token %d forgotten before its expiry", i)
		}
	}
	if u.Len() != 4 {
		t.Fatalf("Len = %d, want 4", u.Len())
	}
	// Memory stays within the capacity over a long run.
	now := mintedAt
	for i := range 10000 {
		now = now.Add(time.Second)
		u.Seen(nonce(100+i), now.Add(3*time.Second), now)
		if u.Len() > 4 {
			t.Fatalf("Len = %d past the capacity", u.Len())
		}
	}
}

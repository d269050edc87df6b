package token

import (
	"testing"
)

// What a server with a key spends on a join's token: one Open (and one
// Used.Seen), only for a Hello that has echoed its cookie.
func BenchmarkOpen(b *testing.B) {
	tok := mint(b)
	now := mintedAt.Add(10e9)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Open(&testKey, tok.Sealed[:], now, server4); err != nil {
			b.Fatal(err)
		}
	}
}

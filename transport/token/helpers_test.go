package token

import (
	"net/netip"
	"testing"
	"time"
)

// countReader is a stand-in for crypto/rand: it yields next, next+1, ...
type countReader struct{ next byte }

func (r *countReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.next
		r.next++
	}
	return len(p), nil
}

var (
	testKey   = Key{0: 0x6b, 1: 0x65, 2: 0x79, 31: 0xff}
	otherKey  = Key{0: 0x6f}
	mintedAt  = time.Unix(1_800_000_000, 0).UTC()
	server4   = netip.MustParseAddrPort("203.0.113.7:7777")
	server6   = netip.MustParseAddrPort("[2001:db8::17]:7778")
	notServer = netip.MustParseAddrPort("203.0.113.8:7777")
)

func testClaims() Claims {
	return Claims{
		Protocol: 0x766b6d0000000004,
		Client:   0x1122334455667788,
		Expires:  mintedAt.Add(45 * time.Second),
		Servers:  []netip.AddrPort{server4, server6},
		Name:     "ada ✓",
	}
}

func mint(t testing.TB) Token {
	t.Helper()
	tok, err := Mint(&testKey, testClaims(), mintedAt, &countReader{})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

package token

import (
	"bytes"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMintAndOpen(t *testing.T) {
	tok := mint(t)
	c, err := Open(&testKey, tok.Sealed[:], mintedAt.Add(10*time.Second), server6)
	if err != nil {
		t.Fatal(err)
	}
	want := testClaims()
	if c.Protocol != want.Protocol || c.Client != want.Client || c.Name != want.Name ||
		!c.Created.Equal(mintedAt) || !c.Expires.Equal(want.Expires) || !slices.Equal(c.Servers, want.Servers) {
		t.Fatalf("Open = %+v", c)
	}
	// The nonce and keys come from rand, in that order.
	var drawn [NonceSize + 2*KeySize]byte
	(&countReader{}).Read(drawn[:])
	if !bytes.Equal(c.Nonce[:], drawn[:NonceSize]) || !bytes.Equal(c.ClientToServer[:], drawn[NonceSize:NonceSize+KeySize]) ||
		!bytes.Equal(c.ServerToClient[:], drawn[NonceSize+KeySize:]) {
		t.Fatalf("nonce and keys are not the drawn bytes")
	}
	// The client reads the same public fields and keys.
	if tok.Protocol != c.Protocol || !tok.Created.Equal(c.Created) || !tok.Expires.Equal(c.Expires) ||
		!slices.Equal(tok.Servers, c.Servers) || tok.ClientToServer != c.ClientToServer || tok.ServerToClient != c.ServerToClient {
		t.Fatalf("the token's public part %+v disagrees with its claims %+v", tok, c)
	}
	// The private part travels encrypted: neither the keys nor the name
	// nor the client id appear in the clear.
	for _, secret := range [][]byte{c.ClientToServer[:8], c.ServerToClient[:8], []byte("ada"), {0x88, 0x77, 0x66, 0x55}} {
		if bytes.Contains(tok.Sealed[:], secret) {
			t.Fatalf("Sealed holds % x in the clear", secret)
		}
	}
}

func TestOpenRefuses(t *testing.T) {
	tok := mint(t)
	now := mintedAt.Add(time.Second)
	cases := []struct {
		name   string
		key    *Key
		sealed []byte
		now    time.Time
		addr   netip.AddrPort
		want   error
	}{
		{"expired", &testKey, tok.Sealed[:], tok.Expires, server4, ErrExpired},
		{"long expired", &testKey, tok.Sealed[:], tok.Expires.Add(time.Hour), server4, ErrExpired},
		{"another server", &testKey, tok.Sealed[:], now, notServer, ErrWrongServer},
		{"another port", &testKey, tok.Sealed[:], now, netip.AddrPortFrom(server4.Addr(), 7778), ErrWrongServer},
		{"another key", &otherKey, tok.Sealed[:], now, server4, ErrForged},
		{"short", &testKey, tok.Sealed[:SealedSize-1], now, server4, ErrMalformed},
		{"long", &testKey, append(tok.Sealed[:], 0), now, server4, ErrMalformed},
		{"empty", &testKey, nil, now, server4, ErrMalformed},
		{"whole token", &testKey, tok.Append(nil), now, server4, ErrMalformed},
	}
	for _, c := range cases {
		if _, err := Open(c.key, c.sealed, c.now, c.addr); !errors.Is(err, c.want) {
			t.Errorf("%s: Open = %v, want %v", c.name, err, c.want)
		}
	}
}

// A change to any byte is refused: as malformed when the public part no
// longer reads, and otherwise as forged. Never accepted, never misreported
// as expired or as another server's.
func TestOpenRefusesEveryAlteredByte(t *testing.T) {
	tok := mint(t)
	for i := range SealedSize {
		for _, flip := range []byte{0x01, 0x80} {
			bad := tok.Sealed
			bad[i] ^= flip
			_, err := Open(&testKey, bad[:], mintedAt, server4)
			if !errors.Is(err, ErrForged) && !errors.Is(err, ErrMalformed) {
				t.Fatalf("byte %d ^ %#x: Open = %v", i, flip, err)
			}
			if i >= publicSize && !errors.Is(err, ErrForged) {
				t.Fatalf("byte %d of the ciphertext ^ %#x: Open = %v, want ErrForged", i, flip, err)
			}
		}
	}
	bad := tok.Sealed
	bad[0] = Version + 1
	if _, err := Open(&testKey, bad[:], mintedAt, server4); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "version") {
		t.Fatalf("another version: %v", err)
	}
}

func TestIPv4Mapped(t *testing.T) {
	c := testClaims()
	mapped := netip.AddrPortFrom(netip.AddrFrom16(server4.Addr().As16()), server4.Port())
	c.Servers = []netip.AddrPort{mapped}
	tok, err := Mint(&testKey, c, mintedAt, &countReader{})
	if err != nil {
		t.Fatal(err)
	}
	if tok.Servers[0] != server4 {
		t.Fatalf("server kept as %s, want %s", tok.Servers[0], server4)
	}
	for _, addr := range []netip.AddrPort{server4, mapped} {
		if _, err := Open(&testKey, tok.Sealed[:], mintedAt, addr); err != nil {
			t.Errorf("presented to %s: %v", addr, err)
		}
	}
	// A server listening on a link-local address with a zone is named
	// without it.
	link := netip.MustParseAddrPort("[fe80::1]:7777")
	c.Servers = []netip.AddrPort{link}
	tok, err = Mint(&testKey, c, mintedAt, &countReader{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(&testKey, tok.Sealed[:], mintedAt, netip.MustParseAddrPort("[fe80::1%eth0]:7777")); err != nil {
		t.Errorf("presented to a zoned address: %v", err)
	}
}

func TestMintRefusesBadClaims(t *testing.T) {
	many := make([]netip.AddrPort, MaxServers+1)
	for i := range many {
		many[i] = netip.AddrPortFrom(server4.Addr(), uint16(1000+i))
	}
	cases := []struct {
		name   string
		change func(*Claims)
	}{
		{"expires now", func(c *Claims) { c.Expires = mintedAt }},
		{"expires within the second", func(c *Claims) { c.Expires = mintedAt.Add(999 * time.Millisecond) }},
		{"expired", func(c *Claims) { c.Expires = mintedAt.Add(-time.Minute) }},
		{"no servers", func(c *Claims) { c.Servers = nil }},
		{"too many servers", func(c *Claims) { c.Servers = many }},
		{"a server twice", func(c *Claims) { c.Servers = []netip.AddrPort{server4, server4} }},
		{"a mapped twin", func(c *Claims) {
			c.Servers = []netip.AddrPort{server4, netip.AddrPortFrom(netip.AddrFrom16(server4.Addr().As16()), server4.Port())}
		}},
		{"no port", func(c *Claims) { c.Servers = []netip.AddrPort{netip.AddrPortFrom(server4.Addr(), 0)} }},
		{"no address", func(c *Claims) { c.Servers = []netip.AddrPort{{}} }},
		{"unspecified", func(c *Claims) { c.Servers = []netip.AddrPort{netip.MustParseAddrPort("0.0.0.0:7777")} }},
		{"a zone", func(c *Claims) { c.Servers = []netip.AddrPort{netip.MustParseAddrPort("[fe80::1%eth0]:7777")} }},
		{"a long name", func(c *Claims) { c.Name = strings.Repeat("é", 17) }},
		{"a control in the name", func(c *Claims) { c.Name = "ada\n" }},
		{"invalid UTF-8", func(c *Claims) { c.Name = "ad\xff" }},
	}
	for _, tc := range cases {
		c := testClaims()
		tc.change(&c)
		if _, err := Mint(&testKey, c, mintedAt, &countReader{}); !errors.Is(err, ErrClaims) {
			t.Errorf("%s: Mint = %v, want ErrClaims", tc.name, err)
		}
	}
	c := testClaims()
	c.Name = strings.Repeat("é", 16)
	c.Servers = many[:MaxServers]
	if _, err := Mint(&testKey, c, mintedAt, &countReader{}); err != nil {
		t.Errorf("a %d-byte name and %d servers: %v", len(c.Name), MaxServers, err)
	}
	if _, err := Mint(&testKey, testClaims(), mintedAt, strings.NewReader("short")); err == nil || errors.Is(err, ErrClaims) {
		t.Errorf("a failing rand: %v", err)
	}
}

// Mint draws fresh keys and a fresh nonce each time from crypto/rand when
// given no reader.
func TestMintDrawsFromCryptoRand(t *testing.T) {
	a, err := Mint(&testKey, testClaims(), mintedAt, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Mint(&testKey, testClaims(), mintedAt, nil)
	if a.Sealed == b.Sealed || a.ClientToServer == b.ClientToServer || a.ClientToServer == a.ServerToClient {
		t.Fatal("two tokens share their nonce or keys")
	}
}

func TestBinaryAndTextForms(t *testing.T) {
	tok := mint(t)
	bin := tok.Append(nil)
	if len(bin) != Size {
		t.Fatalf("binary form of %d bytes, want %d", len(bin), Size)
	}
	back, err := Parse(bin)
	if err != nil || !sameToken(back, tok) {
		t.Fatalf("Parse = %+v, %v", back, err)
	}
	txt, _ := tok.MarshalText()
	if len(txt) != TextSize {
		t.Fatalf("text form of %d characters, want %d", len(txt), TextSize)
	}
	for _, file := range [][]byte{txt, append(bytes.Clone(txt), '\n'), append([]byte("  \r\n"), append(bytes.Clone(txt), "\r\n\n"...)...)} {
		var got Token
		if err := got.UnmarshalText(file); err != nil || !sameToken(got, tok) {
			t.Fatalf("UnmarshalText(%q...) = %v", file[:8], err)
		}
	}
	bad := []struct {
		name string
		text []byte
	}{
		{"empty", nil},
		{"cut", txt[:len(txt)-4]},
		{"a space inside", append(append(bytes.Clone(txt[:100]), ' '), txt[101:]...)},
		{"not base64", append(append(bytes.Clone(txt[:100]), '*'), txt[101:]...)},
		{"URL alphabet", bytes.ReplaceAll(bytes.ReplaceAll(txt, []byte("+"), []byte("-")), []byte("/"), []byte("_"))},
	}
	for _, b := range bad {
		if bytes.Equal(b.text, txt) {
			continue // the alphabet swap changed nothing
		}
		if _, err := ParseText(b.text); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: ParseText = %v", b.name, err)
		}
	}
	// A client can check the public part, not the seal.
	garbled := bytes.Clone(bin)
	garbled[offServers] = 0
	if _, err := Parse(garbled); !errors.Is(err, ErrMalformed) {
		t.Errorf("no servers: Parse = %v", err)
	}
}

func sameToken(a, b Token) bool {
	return a.Protocol == b.Protocol && a.Created.Equal(b.Created) && a.Expires.Equal(b.Expires) &&
		slices.Equal(a.Servers, b.Servers) && a.ClientToServer == b.ClientToServer &&
		a.ServerToClient == b.ServerToClient && a.Sealed == b.Sealed
}

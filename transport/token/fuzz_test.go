package token

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

// seedSealed adds a genuine token's Sealed bytes and damaged copies.
func seedSealed(f *testing.F) {
	tok := mint(f)
	f.Add(tok.Sealed[:])
	for _, i := range []int{0, offExpires, offServers, offAddrs, publicSize, SealedSize - 1} {
		bad := tok.Sealed
		bad[i] ^= 1
		f.Add(bad[:])
	}
	f.Add(tok.Sealed[:SealedSize-1])
	f.Add([]byte{})
}

// FuzzOpen: Open never panics, refuses with one of its four errors, and
// accepts only what Mint makes: the claims it returns, minted again with
// the same nonce and keys, give back the very same bytes.
func FuzzOpen(f *testing.F) {
	seedSealed(f)
	f.Fuzz(func(t *testing.T, sealed []byte) {
		c, err := Open(&testKey, sealed, mintedAt, server4)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrForged) && !errors.Is(err, ErrExpired) && !errors.Is(err, ErrWrongServer) {
				t.Fatalf("Open = %v, not one of the package's errors", err)
			}
			return
		}
		drawn := slices.Concat(c.Nonce[:], c.ClientToServer[:], c.ServerToClient[:])
		again, err := Mint(&testKey, c, c.Created, bytes.NewReader(drawn))
		if err != nil || !bytes.Equal(again.Sealed[:], sealed) {
			t.Fatalf("accepted bytes Mint does not make from their claims (%v)", err)
		}
	})
}

// FuzzParse: the binary decoder a client runs on what its backend sent.
// What it accepts is the canonical form of what it returns.
func FuzzParse(f *testing.F) {
	tok := mint(f)
	f.Add(tok.Append(nil))
	seedSealed(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		tok, err := Parse(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Parse = %v, not ErrMalformed", err)
			}
			return
		}
		if again := tok.Append(nil); !bytes.Equal(again, b) {
			t.Fatalf("Parse accepted a form Append does not write")
		}
	})
}

// FuzzParseText: the --token file decoder.
func FuzzParseText(f *testing.F) {
	tok := mint(f)
	txt, _ := tok.MarshalText()
	f.Add(txt)
	f.Add(append(bytes.Clone(txt), '\n'))
	f.Add(txt[:len(txt)-1])
	f.Add([]byte("not a token\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		tok, err := ParseText(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("ParseText = %v, not ErrMalformed", err)
			}
			return
		}
		if again, _ := tok.MarshalText(); !bytes.Equal(again, bytes.TrimSpace(b)) {
			t.Fatalf("ParseText accepted %q, which MarshalText writes as %q", b, again)
		}
	})
}

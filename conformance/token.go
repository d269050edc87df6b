package conformance

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"

	"golang.org/x/crypto/chacha20poly1305"
)

// Connect token layout ("Connect tokens"): the sealed part's table and the
// private part's.
const (
	SealedTokenLen  = 323
	HeldTokenLen    = 387 // Sealed, then the two session keys
	tokenVersion    = 1
	tokenNonceAt    = 25
	tokenNonceEnd   = 49
	tokenCountAt    = 49
	tokenSlotsAt    = 50
	tokenSlotLen    = 19
	tokenMaxServers = 8
	tokenPrivateAt  = 202 // bytes 0..201 are in the clear
	tokenPrivateLen = 105
	sessionKeyLen   = 32
)

// Token is an opened connect token.
type Token struct {
	Version        uint8
	ProtocolID     uint64
	Created        int64
	Expires        int64
	Nonce          []byte
	Servers        []netip.AddrPort
	ClientID       uint64
	ClientToServer []byte
	ServerToClient []byte
	Name           string
}

// OpenToken opens the 323 sealed bytes of a connect token under the
// shared key with XChaCha20-Poly1305 (the nonce at 25, bytes 0..201 the
// associated data) and parses both tables. It refuses a token that does
// not authenticate or whose fields are not canonical.
func OpenToken(key, sealed []byte) (Token, error) {
	if len(sealed) != SealedTokenLen {
		return Token{}, fmt.Errorf("conformance: sealed token of %d bytes, not %d", len(sealed), SealedTokenLen)
	}
	t, err := parsePublic(sealed[:tokenPrivateAt])
	if err != nil {
		return Token{}, err
	}
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return Token{}, fmt.Errorf("conformance: token key: %w", err)
	}
	private, err := aead.Open(nil, sealed[tokenNonceAt:tokenNonceEnd], sealed[tokenPrivateAt:], sealed[:tokenPrivateAt])
	if err != nil {
		return Token{}, fmt.Errorf("conformance: token does not open: %w", err)
	}
	if err := t.parsePrivate(private); err != nil {
		return Token{}, err
	}
	return t, nil
}

// parsePublic reads bytes 0..201: version, protocol id, times, nonce and
// the server slots.
func parsePublic(p []byte) (Token, error) {
	le := binary.LittleEndian
	t := Token{
		Version:    p[0],
		ProtocolID: le.Uint64(p[1:9]),
		Created:    int64(le.Uint64(p[9:17])),
		Expires:    int64(le.Uint64(p[17:25])),
		Nonce:      p[tokenNonceAt:tokenNonceEnd],
	}
	if t.Version != tokenVersion {
		return Token{}, fmt.Errorf("conformance: token format version %d, not %d", t.Version, tokenVersion)
	}
	if t.Expires <= t.Created {
		return Token{}, errors.New("conformance: token expires before it was created")
	}
	n := int(p[tokenCountAt])
	if n < 1 || n > tokenMaxServers {
		return Token{}, fmt.Errorf("conformance: token server count %d, not 1..8", n)
	}
	for i := range tokenMaxServers {
		slot := p[tokenSlotsAt+i*tokenSlotLen : tokenSlotsAt+(i+1)*tokenSlotLen]
		if i >= n {
			if !allZero(slot) {
				return Token{}, fmt.Errorf("conformance: token's unused server slot %d is not zero", i)
			}
			continue
		}
		ap, err := parseServerSlot(slot)
		if err != nil {
			return Token{}, err
		}
		for _, s := range t.Servers {
			if s == ap {
				return Token{}, fmt.Errorf("conformance: token names %v twice", ap)
			}
		}
		t.Servers = append(t.Servers, ap)
	}
	return t, nil
}

// parseServerSlot reads one 19-byte slot: family (4 or 6), 16 bytes of IP
// (IPv4 in the first 4, the rest zero), port u16. An IPv4-mapped address
// must be written as IPv4.
func parseServerSlot(s []byte) (netip.AddrPort, error) {
	port := binary.LittleEndian.Uint16(s[17:19])
	switch s[0] {
	case 4:
		if !allZero(s[5:17]) {
			return netip.AddrPort{}, errors.New("conformance: IPv4 server slot with bytes after the address")
		}
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte(s[1:5])), port), nil
	case 6:
		a := netip.AddrFrom16([16]byte(s[1:17]))
		if a.Is4In6() {
			return netip.AddrPort{}, errors.New("conformance: IPv4-mapped server written as IPv6")
		}
		return netip.AddrPortFrom(a, port), nil
	}
	return netip.AddrPort{}, fmt.Errorf("conformance: server slot family %d", s[0])
}

// parsePrivate reads the 105-byte private part: client id, the two
// session keys, the name's length and 32 bytes of name, zeros after it.
func (t *Token) parsePrivate(p []byte) error {
	if len(p) != tokenPrivateLen {
		return fmt.Errorf("conformance: token private part of %d bytes, not %d", len(p), tokenPrivateLen)
	}
	t.ClientID = binary.LittleEndian.Uint64(p[0:8])
	t.ClientToServer = p[8:40]
	t.ServerToClient = p[40:72]
	n := int(p[72])
	if n > MaxNameLen {
		return fmt.Errorf("conformance: token name of %d bytes, over %d", n, MaxNameLen)
	}
	name := p[73 : 73+n]
	if err := checkName(name); err != nil {
		return err
	}
	if !allZero(p[73+n:]) {
		return errors.New("conformance: token name not followed by zeros")
	}
	t.Name = string(name)
	return nil
}

// SplitHeldToken splits the 387 bytes a client holds into the sealed part
// and the two session keys.
func SplitHeldToken(held []byte) (sealed, c2s, s2c []byte, err error) {
	if len(held) != HeldTokenLen {
		return nil, nil, nil, fmt.Errorf("conformance: held token of %d bytes, not %d", len(held), HeldTokenLen)
	}
	return held[:SealedTokenLen], held[SealedTokenLen : SealedTokenLen+sessionKeyLen], held[SealedTokenLen+sessionKeyLen:], nil
}

// KeysMatch reports whether the held keys are the ones the token seals.
func (t Token) KeysMatch(c2s, s2c []byte) bool {
	return bytes.Equal(t.ClientToServer, c2s) && bytes.Equal(t.ServerToClient, s2c)
}

package conformance

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// Sealed datagram layout ("Sealed datagrams"): the 12-byte header, a
// counter u64, the payload encrypted with ChaCha20-Poly1305 (RFC 8439),
// the 16-byte tag. The nonce is four zero bytes and the counter little
// endian; the associated data is the header and the counter.
const (
	counterLen   = 8
	tagLen       = chacha20poly1305.Overhead
	sealedPrefix = HeaderLen + counterLen
)

// sealNonce is the 12-byte nonce of a counter.
func sealNonce(counter uint64) []byte {
	n := make([]byte, chacha20poly1305.NonceSize)
	binary.LittleEndian.PutUint64(n[4:], counter)
	return n
}

// Open authenticates and decrypts a sealed datagram under key, returning
// its counter and the payload (a new slice).
func Open(key, b []byte) (uint64, []byte, error) {
	if len(b) < sealedPrefix+tagLen {
		return 0, nil, fmt.Errorf("conformance: sealed datagram of %d bytes, under %d", len(b), sealedPrefix+tagLen)
	}
	aead, err := chacha20poly1305.New(key)
	if err != nil {
		return 0, nil, fmt.Errorf("conformance: seal key: %w", err)
	}
	counter := binary.LittleEndian.Uint64(b[HeaderLen:sealedPrefix])
	body, err := aead.Open(nil, sealNonce(counter), b[sealedPrefix:], b[:sealedPrefix])
	if err != nil {
		return counter, nil, fmt.Errorf("conformance: sealed datagram does not open: %w", err)
	}
	return counter, body, nil
}

// Seal is Open's inverse, for checking that a vector's sealed bytes are
// the only ones its inputs give: header, counter, ciphertext and tag.
func Seal(key, header []byte, counter uint64, payload []byte) ([]byte, error) {
	aead, err := chacha20poly1305.New(key)
	if err != nil {
		return nil, fmt.Errorf("conformance: seal key: %w", err)
	}
	ad := binary.LittleEndian.AppendUint64(append([]byte(nil), header...), counter)
	// dst and the associated data must not overlap, so dst is a copy.
	return aead.Seal(append([]byte(nil), ad...), sealNonce(counter), payload, ad), nil
}

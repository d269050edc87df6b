package token

import (
	"bytes"
	crand "crypto/rand"
	"fmt"
	"io"
)

// KeyTextSize is the length of a Key's text form, without a newline.
var KeyTextSize = text.EncodedLen(KeySize)

// NewKey draws a fresh shared key from rand (crypto/rand.Reader when nil).
func NewKey(rand io.Reader) (Key, error) {
	if rand == nil {
		rand = crand.Reader
	}
	var k Key
	if _, err := io.ReadFull(rand, k[:]); err != nil {
		return Key{}, fmt.Errorf("token: drawing a key: %w", err)
	}
	return k, nil
}

// MarshalText returns the key's text form, as a server's key file holds
// it: standard base64 with padding, KeyTextSize characters.
func (k Key) MarshalText() ([]byte, error) {
	return text.AppendEncode(nil, k[:]), nil
}

// UnmarshalText sets k from its text form, as ParseKey does.
func (k *Key) UnmarshalText(b []byte) error {
	v, err := ParseKey(b)
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// ParseKey reads a key's text form, with any whitespace around it ignored.
// Its error wraps ErrMalformed and says what is wrong but never echoes the
// text, which may be most of a secret.
func ParseKey(b []byte) (Key, error) {
	b = bytes.TrimSpace(b)
	if len(b) != KeyTextSize {
		return Key{}, fmt.Errorf("%w: key of %d characters, want %d of base64", ErrMalformed, len(b), KeyTextSize)
	}
	// Decode may write a whole 3-byte group before it sees the padding, so
	// it gets the room for one.
	var raw [KeySize + 1]byte
	if n, err := text.Decode(raw[:], b); err != nil || n != KeySize {
		return Key{}, fmt.Errorf("%w: key is not base64", ErrMalformed)
	}
	return Key(raw[:KeySize]), nil
}

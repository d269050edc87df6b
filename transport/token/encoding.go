package token

import (
	"bytes"
	"encoding/base64"
	"fmt"
)

// Append appends the token's binary form, Size bytes, to b: Sealed, then
// the client-to-server key, then the server-to-client key. The public
// fields are not written again: they are read from Sealed.
func (t *Token) Append(b []byte) []byte {
	b = append(b, t.Sealed[:]...)
	b = append(b, t.ClientToServer[:]...)
	return append(b, t.ServerToClient[:]...)
}

// Parse reads a token's binary form. It checks everything a client can
// check: the length, the version and the public fields; only a server
// holding the key can tell whether Sealed is genuine. It fails with an error
// wrapping ErrMalformed.
func Parse(b []byte) (Token, error) {
	if len(b) != Size {
		return Token{}, fmt.Errorf("%w: %d bytes, want %d", ErrMalformed, len(b), Size)
	}
	var c Claims
	if err := readPublic(b[:SealedSize], &c); err != nil {
		return Token{}, err
	}
	t := Token{Protocol: c.Protocol, Created: c.Created, Expires: c.Expires, Servers: c.Servers}
	copy(t.Sealed[:], b)
	copy(t.ClientToServer[:], b[SealedSize:])
	copy(t.ServerToClient[:], b[SealedSize+KeySize:])
	return t, nil
}

// text is the token's text form: standard base64 with padding, strictly
// decoded so that one token has one text.
var text = base64.StdEncoding.Strict()

// Size's text form has no padding: base64 takes bytes three at a time.
var _ [0]struct{} = [Size % 3]struct{}{}

// TextSize is the length of a token's text form, without a newline.
var TextSize = text.EncodedLen(Size)

// MarshalText returns the token's text form: its binary form in standard
// base64, one line of TextSize characters with no newline. It is what a
// backend hands a client and what a --token file holds.
func (t Token) MarshalText() ([]byte, error) {
	return text.AppendEncode(nil, t.Append(nil)), nil
}

// UnmarshalText sets t from its text form, as ParseText does.
func (t *Token) UnmarshalText(b []byte) error {
	v, err := ParseText(b)
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// ParseText reads a token's text form, as a --token file holds it: the
// base64 of the binary form, with any spaces, tabs and line breaks around
// it (not within) ignored. It fails with an error wrapping ErrMalformed that
// says what is wrong, for the caller to prefix with the file's name.
func ParseText(b []byte) (Token, error) {
	b = bytes.TrimSpace(b)
	if len(b) != TextSize {
		return Token{}, fmt.Errorf("%w: %d characters, want %d of base64", ErrMalformed, len(b), TextSize)
	}
	// Size is a multiple of 3, so the text has no padding and Decode
	// writes at most Size bytes.
	var raw [Size]byte
	if n, err := text.Decode(raw[:], b); err != nil || n != Size {
		return Token{}, fmt.Errorf("%w: not base64 (%v)", ErrMalformed, err)
	}
	return Parse(raw[:])
}

// Package conformance decodes vkm's datagrams from docs/protocol.md
// (protocol version 11) alone, and its tests check the repository's test
// vectors against what the doc says. It imports nothing of vkm: where the
// doc and a vector disagree, the decoder follows the doc and the
// disagreement is a finding (FINDINGS.md).
package conformance

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Protocol constants ("Conventions", "The message header").
const (
	Version     = 11   // the header's version byte
	HeaderLen   = 12   // tag, version, kind, token
	MaxDatagram = 1200 // no datagram is longer
	tag0, tag1  = 0x76, 0x6b
)

// Kind is a message header's kind byte.
type Kind uint8

// The kinds of "The message header".
const (
	KindHello Kind = 1 + iota
	KindChallenge
	KindWelcome
	KindRefuse
	KindGoodbye
	KindData
	KindSealedRefuse
)

var kindNames = [...]string{"", "hello", "challenge", "welcome", "refuse", "goodbye", "data", "sealed refuse"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && k != 0 {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Header is the 12 bytes every datagram starts with.
type Header struct {
	Version uint8
	Kind    Kind
	Token   uint64
}

// ParseHeader reads the message header of a version-9 datagram: the tag,
// the version, a kind in 1..7 and the token. It refuses what the doc says
// a receiver drops: no tag, under 12 bytes, over 1200, another version or
// an unknown kind.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < HeaderLen {
		return Header{}, fmt.Errorf("conformance: datagram of %d bytes, under the header's 12", len(b))
	}
	if len(b) > MaxDatagram {
		return Header{}, fmt.Errorf("conformance: datagram of %d bytes, over %d", len(b), MaxDatagram)
	}
	if b[0] != tag0 || b[1] != tag1 {
		return Header{}, errors.New("conformance: no \"vk\" tag")
	}
	h := Header{Version: b[2], Kind: Kind(b[3]), Token: binary.LittleEndian.Uint64(b[4:12])}
	if h.Version != Version {
		return h, fmt.Errorf("conformance: version %d, not %d", h.Version, Version)
	}
	if h.Kind < KindHello || h.Kind > KindSealedRefuse {
		return h, fmt.Errorf("conformance: unknown kind %d", h.Kind)
	}
	return h, nil
}

// expectKind parses the header and requires the kind k.
func expectKind(b []byte, k Kind) (Header, error) {
	h, err := ParseHeader(b)
	if err != nil {
		return h, err
	}
	if h.Kind != k {
		return h, fmt.Errorf("conformance: kind %v, want %v", h.Kind, k)
	}
	return h, nil
}

// allZero reports whether every byte of b is 0.
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

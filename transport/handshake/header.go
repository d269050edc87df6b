package handshake

import (
	"encoding/binary"
	"strconv"
)

// Protocol constants. The header layout, the numbers of KindHello and
// KindRefuse, and the numbers of the refusal reasons are frozen: they are the
// same in every protocol version, so two builds that share nothing else can
// still tell each other that they share nothing else.
const (
	// HeaderSize is the length of the header every datagram starts with:
	// tag (2), version (1), kind (1), token (8).
	HeaderSize = 12

	// Tag marks a datagram as vkm's. It is written little endian, so the
	// first two bytes on the wire are the ASCII letters "vk". Anything else
	// is not ours and is dropped unread.
	Tag uint16 = 0x6b76

	// Version is the protocol version this build speaks. Raise it whenever
	// a message body or the meaning of a field changes; a peer at another
	// version is then refused with ReasonVersion rather than misread.
	Version uint8 = 11
)

// SealedRefuseBit is set in the counter of every sealed Refuse. A
// connection's own datagrams count from 0 and never come near it, so the
// nonce of a sealed Refuse is never one a Welcome, Data or Goodbye used
// under the same key; its other 63 bits are the server's to choose (the Go
// server starts them at a random number and counts up), and the client
// opens it apart from its connection's replay window.
const SealedRefuseBit = uint64(1) << 63

// Kind says which message a datagram carries.
type Kind uint8

// The message kinds. KindHello and KindRefuse keep their numbers in every
// protocol version; the others may be renumbered by a new version.
const (
	// KindHello asks to join; the client repeats it until answered.
	KindHello Kind = 1
	// KindChallenge hands a joining address the token to echo.
	KindChallenge Kind = 2
	// KindWelcome seats the player.
	KindWelcome Kind = 3
	// KindRefuse declines a join, with a reason a player can be shown.
	KindRefuse Kind = 4
	// KindGoodbye ends a connection from either end.
	KindGoodbye Kind = 5
	// KindData carries the connection core's packets; its body is not
	// this package's business.
	KindData Kind = 6
	// KindSealedRefuse declines a join whose connect token the server
	// opened: a Refuse body sealed under the token's server-to-client key
	// (transport/seal's layout, with a counter of its own; see
	// SealedRefuseCounter), so nobody but that server can end the join.
	KindSealedRefuse Kind = 7
)

// String returns the kind's name, or "kind(N)" for a number this build does
// not know.
// Not made by stringer, which would spell that Kind(N).
func (k Kind) String() string {
	switch k {
	case KindHello:
		return "hello"
	case KindChallenge:
		return "challenge"
	case KindWelcome:
		return "welcome"
	case KindRefuse:
		return "refuse"
	case KindGoodbye:
		return "goodbye"
	case KindData:
		return "data"
	case KindSealedRefuse:
		return "sealed_refuse"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// known reports whether k is a kind of this protocol version.
func (k Kind) known() bool { return k >= KindHello && k <= KindSealedRefuse }

// Header is the first HeaderSize bytes of every datagram. The tag is not a
// field: Append always writes it and ParseHeader always checks it.
//
// Token is the peer's join token (0 means none, as in a first Hello). It is
// written little endian.
type Header struct {
	Version uint8
	Kind    Kind
	Token   uint64
}

// Append appends the header's HeaderSize bytes to b and returns the longer
// slice.
func (h Header) Append(b []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, Tag)
	b = append(b, h.Version, byte(h.Kind))
	return binary.LittleEndian.AppendUint64(b, h.Token)
}

// ParseHeader reads the header at the start of b and returns it with the
// rest of b, which aliases b. It fails, with a *ParseError, on fewer than
// HeaderSize bytes or a tag that is not Tag. It accepts any version and any
// kind, because what to do with those is Classify's decision.
func ParseHeader(b []byte) (Header, []byte, error) {
	if len(b) < HeaderSize {
		return Header{}, nil, &ParseError{Problem: ProblemShort}
	}
	if binary.LittleEndian.Uint16(b) != Tag {
		return Header{}, nil, &ParseError{Problem: ProblemTag}
	}
	h := Header{
		Version: b[2],
		Kind:    Kind(b[3]),
		Token:   binary.LittleEndian.Uint64(b[4:12]),
	}
	return h, b[HeaderSize:], nil
}

// Message is a handshake message body: it knows its kind and appends its
// bytes after a header.
type Message interface {
	Kind() Kind
	Append(b []byte) []byte
}

var (
	_ Message = Hello{}
	_ Message = Challenge{}
	_ Message = Welcome{}
	_ Message = Refuse{}
	_ Message = Goodbye{}
)

// AppendDatagram appends a whole datagram to b: a header at this build's
// Version carrying m's kind and token, then m's body.
func AppendDatagram(b []byte, token uint64, m Message) []byte {
	b = Header{Version: Version, Kind: m.Kind(), Token: token}.Append(b)
	return m.Append(b)
}

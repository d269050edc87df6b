package relay

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Every datagram to or from a relay starts with a 4-byte header: the tag
// "vr", the relay protocol's version and the kind. Byte fields are little
// endian.
const (
	tag0, tag1 = 'v', 'r'
	// Version is the relay protocol's version.
	Version    = 1
	HeaderSize = 4
	// KeySize is the length of a server's public key (X25519).
	KeySize = 32
)

// Kind is a relay datagram's kind.
type Kind byte

// The kinds. A server sends Register, Leave and ToPeer; a joiner Join and
// ToServer; the relay Registered, Joined, Refused, FromPeer and
// FromServer.
const (
	KindRegister   Kind = 1  // pub key [32], lease u64, wanted code u32
	KindRegistered Kind = 2  // lease u64, code u32, refresh within u16 seconds
	KindLeave      Kind = 3  // lease u64
	KindJoin       Kind = 4  // code u32, nonce u64, zeros to JoinSize
	KindJoined     Kind = 5  // nonce u64, the server's pub key [32]
	KindRefused    Kind = 6  // nonce u64, reason u8
	KindToServer   Kind = 7  // tunnel frame
	KindFromPeer   Kind = 8  // peer u32, tunnel frame
	KindToPeer     Kind = 9  // peer u32, tunnel frame
	KindFromServer Kind = 10 // tunnel frame
)

// Sizes of the fixed-size messages, header included.
const (
	RegisterSize   = HeaderSize + KeySize + 8 + 4
	RegisteredSize = HeaderSize + 8 + 4 + 2
	LeaveSize      = HeaderSize + 8
	// JoinSize pads a Join to the size of the largest answer to it (a
	// Joined), so the relay never sends more than it was sent.
	JoinSize     = JoinedSize
	JoinedSize   = HeaderSize + 8 + KeySize
	RefusedSize  = HeaderSize + 8 + 1
	PeerHeadSize = HeaderSize + 4
)

// MaxFrame is the largest tunnel frame a relay carries: a vkm datagram
// (1200 bytes) sealed in the tunnel, with the joiner's key on the first.
// A datagram carrying one is at most MaxDatagram.
const (
	MaxFrame    = 1200 + frameHead + KeySize + sealOverhead
	MaxDatagram = PeerHeadSize + MaxFrame
)

// Reason says why a relay refused a join.
type Reason byte

// The reasons a join is refused.
const (
	// ReasonUnknown: no server holds the code (mistyped, or never given).
	ReasonUnknown Reason = 1
	// ReasonExpired: the code's server left, or stopped refreshing it.
	ReasonExpired Reason = 2
	// ReasonFull: the code has as many joiners as the relay lets one have.
	ReasonFull Reason = 3
	// ReasonRate: this source asked too often; try again in a second.
	ReasonRate Reason = 4
)

func (r Reason) String() string {
	switch r {
	case ReasonUnknown:
		return "no server holds this code: check it, or ask the host for theirs"
	case ReasonExpired:
		return "the code has expired: its server left or lost the relay; ask the host for a new one"
	case ReasonFull:
		return "the code has all the players the relay lets one code have"
	case ReasonRate:
		return "too many join attempts from here; wait a second"
	}
	return fmt.Sprintf("refused for reason %d", byte(r))
}

// Errors a parse returns.
var (
	ErrNotRelay = errors.New("relay: not a relay datagram")
	ErrVersion  = errors.New("relay: another version of the relay protocol")
	ErrLength   = errors.New("relay: wrong length for its kind")
)

// Message is a parsed relay datagram. Which fields are set depends on
// Kind; Frame aliases the parsed bytes.
type Message struct {
	Kind   Kind
	Key    [KeySize]byte // Register, Joined
	Lease  uint64        // Register, Registered, Leave
	Code   Code          // Register (the one wanted; 0 any), Registered, Join
	Nonce  uint64        // Join, Joined, Refused
	Reason Reason        // Refused
	// Refresh is how long the relay keeps a registration it hears
	// nothing more of, in seconds (Registered).
	Refresh uint16
	Peer    uint32 // FromPeer, ToPeer
	Frame   []byte // ToServer, FromPeer, ToPeer, FromServer
}

// AppendHeader appends a relay header of kind k.
func AppendHeader(b []byte, k Kind) []byte { return append(b, tag0, tag1, Version, byte(k)) }

// Append appends m as a datagram.
func (m *Message) Append(b []byte) []byte {
	b = AppendHeader(b, m.Kind)
	le := binary.LittleEndian
	switch m.Kind {
	case KindRegister:
		b = append(b, m.Key[:]...)
		b = le.AppendUint64(b, m.Lease)
		b = le.AppendUint32(b, uint32(m.Code))
	case KindRegistered:
		b = le.AppendUint64(b, m.Lease)
		b = le.AppendUint32(b, uint32(m.Code))
		b = le.AppendUint16(b, m.Refresh)
	case KindLeave:
		b = le.AppendUint64(b, m.Lease)
	case KindJoin:
		b = le.AppendUint32(b, uint32(m.Code))
		b = le.AppendUint64(b, m.Nonce)
		b = append(b, make([]byte, JoinSize-HeaderSize-12)...)
	case KindJoined:
		b = le.AppendUint64(b, m.Nonce)
		b = append(b, m.Key[:]...)
	case KindRefused:
		b = le.AppendUint64(b, m.Nonce)
		b = append(b, byte(m.Reason))
	case KindFromPeer, KindToPeer:
		b = le.AppendUint32(b, m.Peer)
		b = append(b, m.Frame...)
	case KindToServer, KindFromServer:
		b = append(b, m.Frame...)
	}
	return b
}

// Parse reads a relay datagram. It refuses another tag or version, an
// unknown kind, a fixed-size message of another length, a code out of
// range, non-zero padding, and a frame longer than MaxFrame.
func Parse(b []byte) (Message, error) {
	var m Message
	if len(b) < HeaderSize || b[0] != tag0 || b[1] != tag1 {
		return m, ErrNotRelay
	}
	if b[2] != Version {
		return m, ErrVersion
	}
	m.Kind = Kind(b[3])
	body := b[HeaderSize:]
	le := binary.LittleEndian
	if n, ok := fixedSize(m.Kind); ok {
		if len(b) != n {
			return m, fmt.Errorf("%w: kind %d of %d bytes, want %d", ErrLength, m.Kind, len(b), n)
		}
	}
	switch m.Kind {
	case KindRegister:
		copy(m.Key[:], body)
		m.Lease = le.Uint64(body[KeySize:])
		m.Code = Code(le.Uint32(body[KeySize+8:]))
	case KindRegistered:
		m.Lease = le.Uint64(body)
		m.Code = Code(le.Uint32(body[8:]))
		m.Refresh = le.Uint16(body[12:])
		if m.Code == 0 {
			return m, errors.New("relay: a registration of code 0")
		}
	case KindLeave:
		m.Lease = le.Uint64(body)
	case KindJoin:
		m.Code = Code(le.Uint32(body))
		m.Nonce = le.Uint64(body[4:])
		for _, x := range body[12:] {
			if x != 0 {
				return m, errors.New("relay: a join's padding is not zero")
			}
		}
	case KindJoined:
		m.Nonce = le.Uint64(body)
		copy(m.Key[:], body[8:])
	case KindRefused:
		m.Nonce = le.Uint64(body)
		m.Reason = Reason(body[8])
	case KindFromPeer, KindToPeer:
		if len(body) < 4 {
			return m, fmt.Errorf("%w: kind %d of %d bytes", ErrLength, m.Kind, len(b))
		}
		m.Peer = le.Uint32(body)
		m.Frame = body[4:]
	case KindToServer, KindFromServer:
		m.Frame = body
	default:
		return m, fmt.Errorf("relay: unknown kind %d", m.Kind)
	}
	if m.Code > MaxCode {
		return m, fmt.Errorf("relay: code %d out of range", m.Code)
	}
	if len(m.Frame) > MaxFrame {
		return m, fmt.Errorf("%w: a frame of %d bytes, over %d", ErrLength, len(m.Frame), MaxFrame)
	}
	return m, nil
}

func fixedSize(k Kind) (int, bool) {
	switch k {
	case KindRegister:
		return RegisterSize, true
	case KindRegistered:
		return RegisteredSize, true
	case KindLeave:
		return LeaveSize, true
	case KindJoin:
		return JoinSize, true
	case KindJoined:
		return JoinedSize, true
	case KindRefused:
		return RefusedSize, true
	}
	return 0, false
}

package conformance

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Refuse layout ("Messages"): reason at 12, nonce 13, max players 21,
// server tick rate 23, client tick rate 25, server version 27, client
// version 28, detail length 29, detail at 30.
const (
	RefuseLen      = 30 // without a detail
	refuseBodyLen  = RefuseLen - HeaderLen
	sealedOverhead = 8 + 16 // counter and tag ("Sealed datagrams")
	// SealedRefuseStatedLen is the sealed Refuse's length without a
	// detail as "Messages" states it in words: "54 bytes and the detail"
	// (the header, the counter, the Refuse body, the tag).
	SealedRefuseStatedLen = 54
	sealedRefuseTopBit    = 1 << 63
)

// Reason is a Refuse's reason byte.
type Reason uint8

// The reasons of "Messages", Refuse.
const (
	ReasonFull Reason = 1 + iota
	ReasonDeclined
	ReasonMismatch
	ReasonTickRate
	ReasonVersion
	ReasonJoinFailed
	ReasonNoToken
	ReasonBadToken
	ReasonTokenExpired
	ReasonWrongServer
	ReasonTokenUsed
	ReasonClientSeated
	ReasonShuttingDown
)

var reasonNames = [...]string{"", "Full", "Declined", "Mismatch", "TickRate", "Version", "JoinFailed",
	"NoToken", "BadToken", "TokenExpired", "WrongServer", "TokenUsed", "ClientSeated", "ShuttingDown"}

func (r Reason) String() string {
	if r != 0 && int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return fmt.Sprintf("reason(%d)", uint8(r))
}

// Refuse is a decoded Refuse (kind 4) or opened sealed Refuse (kind 7).
type Refuse struct {
	Header
	Reason                         Reason
	Nonce                          uint64
	MaxPlayers                     uint16
	ServerTickRate, ClientTickRate uint16
	ServerVersion, ClientVersion   uint8
	Detail                         string
}

// ParseRefuse decodes an unsealed Refuse.
func ParseRefuse(b []byte) (Refuse, error) {
	h, err := expectKind(b, KindRefuse)
	if err != nil {
		return Refuse{}, err
	}
	return parseRefuseBody(h, b[HeaderLen:])
}

// parseRefuseBody reads the bytes after the header (sealed: after the
// counter, once opened).
func parseRefuseBody(h Header, body []byte) (Refuse, error) {
	if len(body) < refuseBodyLen {
		return Refuse{}, fmt.Errorf("conformance: refuse body of %d bytes, under %d", len(body), refuseBodyLen)
	}
	le := binary.LittleEndian
	r := Refuse{
		Header:         h,
		Reason:         Reason(body[0]),
		Nonce:          le.Uint64(body[1:9]),
		MaxPlayers:     le.Uint16(body[9:11]),
		ServerTickRate: le.Uint16(body[11:13]),
		ClientTickRate: le.Uint16(body[13:15]),
		ServerVersion:  body[15],
		ClientVersion:  body[16],
	}
	n := int(body[17])
	if len(body) != refuseBodyLen+n {
		return Refuse{}, fmt.Errorf("conformance: refuse with detail length %d and %d detail bytes", n, len(body)-refuseBodyLen)
	}
	detail := body[refuseBodyLen:]
	if err := checkDetail(detail); err != nil {
		return Refuse{}, err
	}
	r.Detail = string(detail)
	return r, nil
}

// checkDetail applies the detail's rule: one printable line, no control
// or format characters, valid UTF-8, no space at either end or two in a
// row.
func checkDetail(d []byte) error {
	if !utf8.Valid(d) {
		return errors.New("conformance: refuse detail is not valid UTF-8")
	}
	s := string(d)
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return fmt.Errorf("conformance: refuse detail has the character %U", r)
		}
	}
	if strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") || strings.Contains(s, "  ") {
		return errors.New("conformance: refuse detail with a space at an end or two in a row")
	}
	return nil
}

// UnusedFieldsZero checks "Fields a reason does not use are 0": max
// players belongs to Full, the tick rates to TickRate, the versions to
// Version, and the detail to BadToken and JoinFailed.
func (r Refuse) UnusedFieldsZero() error {
	if r.Reason != ReasonFull && r.MaxPlayers != 0 {
		return fmt.Errorf("conformance: %v refuse with max players %d", r.Reason, r.MaxPlayers)
	}
	if r.Reason != ReasonTickRate && (r.ServerTickRate != 0 || r.ClientTickRate != 0) {
		return fmt.Errorf("conformance: %v refuse with tick rates set", r.Reason)
	}
	if r.Reason != ReasonVersion && (r.ServerVersion != 0 || r.ClientVersion != 0) {
		return fmt.Errorf("conformance: %v refuse with versions set", r.Reason)
	}
	if r.Reason != ReasonBadToken && r.Reason != ReasonJoinFailed && r.Detail != "" {
		return fmt.Errorf("conformance: %v refuse with a detail", r.Reason)
	}
	return nil
}

// OpenSealedRefuse opens a sealed Refuse (kind 7) under the
// server-to-client key: the header, a counter with its top bit set, the
// Refuse body encrypted, the tag. It returns the counter.
func OpenSealedRefuse(s2c []byte, b []byte) (Refuse, uint64, error) {
	h, err := expectKind(b, KindSealedRefuse)
	if err != nil {
		return Refuse{}, 0, err
	}
	counter, body, err := Open(s2c, b)
	if err != nil {
		return Refuse{}, 0, err
	}
	if counter&sealedRefuseTopBit == 0 {
		return Refuse{}, counter, fmt.Errorf("conformance: sealed refuse counter %#x without the top bit", counter)
	}
	r, err := parseRefuseBody(h, body)
	return r, counter, err
}

// CheckSealedRefuseStatedLen compares a sealed Refuse's length with the
// one "Messages" states for it: 54 bytes and the detail.
func CheckSealedRefuseStatedLen(b []byte, detailLen int) error {
	if want := SealedRefuseStatedLen + detailLen; len(b) != want {
		return fmt.Errorf("conformance: sealed refuse of %d bytes with a %d-byte detail; the doc says %d (54 and the detail)", len(b), detailLen, want)
	}
	return nil
}

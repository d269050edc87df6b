package handshake

import "strconv"

// Verdict is what to do with a datagram before reading its body.
type Verdict uint8

// The verdicts Classify returns. A server acts on VerdictAnswerVersion and
// ignores VerdictRefusedVersion; a client does the reverse.
const (
	// VerdictDrop: not vkm's, too short, of a kind this version does not
	// define, or a message at another version that is not a Hello or a
	// Refuse. Drop it unread; a host counts these rather than logging them.
	VerdictDrop Verdict = iota
	// VerdictRead: this version's message; parse the body by Header.Kind.
	VerdictRead
	// VerdictAnswerVersion: a Hello at another version. Answer it with
	// VersionRefusal(Version, hdr.Version), in a header at this build's
	// Version carrying the Hello's token, so the other build can tell its
	// player why.
	VerdictAnswerVersion
	// VerdictRefusedVersion: a Refuse at another version, which can only
	// answer a Hello this build sent. The join ends with
	// VersionRefusal(hdr.Version, Version); the body is not read.
	VerdictRefusedVersion
)

// String returns the verdict's name.
// Not made by stringer, which would spell an unknown verdict Verdict(9), not verdict(9).
func (v Verdict) String() string {
	switch v {
	case VerdictDrop:
		return "drop"
	case VerdictRead:
		return "read"
	case VerdictAnswerVersion:
		return "answer_version"
	case VerdictRefusedVersion:
		return "refused_version"
	}
	return "verdict(" + strconv.Itoa(int(v)) + ")"
}

// versionAnswerSize is the length of the datagram that answers a Hello at
// another version: a header and a Refuse body without a detail.
const versionAnswerSize = HeaderSize + refuseBody

// Classify reads the header of datagram b and says what to do with it,
// returning the header and the body after it (which aliases b). It relies
// only on what every protocol version shares: the header's layout and the
// numbers of KindHello and KindRefuse.
//
// A Hello at another version shorter than the Refuse that would answer it is
// dropped: this build does not know that version's padding rule, and no
// answer may be larger than what asked for it.
func Classify(b []byte) (Header, []byte, Verdict) {
	h, body, err := ParseHeader(b)
	switch {
	case err != nil:
		return h, nil, VerdictDrop
	case h.Version == Version && h.Kind.known():
		return h, body, VerdictRead
	case h.Version == Version:
		return h, body, VerdictDrop
	case h.Kind == KindHello && len(b) >= versionAnswerSize:
		return h, body, VerdictAnswerVersion
	case h.Kind == KindRefuse:
		return h, body, VerdictRefusedVersion
	}
	return h, body, VerdictDrop
}

package conformance

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ChallengeLen is a Challenge's length: the header and the nonce.
const ChallengeLen = 20

// Challenge is a decoded Challenge (kind 2): the cookie is the header's
// token, and the nonce echoes the Hello's.
type Challenge struct {
	Header
	Nonce uint64
}

// ParseChallenge decodes a Challenge and refuses what a client drops: a
// token of 0 or a body that is not 8 bytes.
func ParseChallenge(b []byte) (Challenge, error) {
	h, err := expectKind(b, KindChallenge)
	if err != nil {
		return Challenge{}, err
	}
	if len(b) != ChallengeLen {
		return Challenge{}, fmt.Errorf("conformance: challenge of %d bytes, not %d", len(b), ChallengeLen)
	}
	if h.Token == 0 {
		return Challenge{}, errors.New("conformance: challenge with token 0")
	}
	return Challenge{Header: h, Nonce: binary.LittleEndian.Uint64(b[12:20])}, nil
}

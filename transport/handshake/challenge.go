package handshake

import "encoding/binary"

// challengeBody is the length of a Challenge's body: the nonce it echoes.
const challengeBody = 8

// Challenge answers a Hello that does not carry a valid token. The token to
// echo (the cookie) travels in the header; the body echoes the nonce of the
// Hello it answers, so a client takes a Challenge only from someone who saw
// its Hello. Sending one costs the server a hash and no memory, and the
// datagram is far smaller than the padded Hello it answers.
//
// Body layout: 12 Nonce u64. 20 bytes in all.
type Challenge struct {
	// Nonce is the nonce of the Hello this Challenge answers.
	Nonce uint64
}

// Kind returns KindChallenge.
func (Challenge) Kind() Kind { return KindChallenge }

// Append appends the Challenge's body to b and returns the longer slice.
func (c Challenge) Append(b []byte) []byte { return binary.LittleEndian.AppendUint64(b, c.Nonce) }

// ParseChallenge reads a Challenge body: the nonce it echoes, 8 bytes.
func ParseChallenge(body []byte) (Challenge, error) {
	if err := exact(KindChallenge, body, challengeBody); err != nil {
		return Challenge{}, err
	}
	return Challenge{Nonce: binary.LittleEndian.Uint64(body)}, nil
}

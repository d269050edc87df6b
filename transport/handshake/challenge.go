package handshake

// Challenge answers a Hello that does not carry a valid token. The token to
// echo travels in the header; the body is empty. Sending one costs the server
// a hash and no memory, and the datagram is far smaller than the padded Hello
// it answers.
type Challenge struct{}

// Kind returns KindChallenge.
func (Challenge) Kind() Kind { return KindChallenge }

// Append appends the Challenge's empty body to b, which is to say returns b.
func (Challenge) Append(b []byte) []byte { return b }

// ParseChallenge reads a Challenge body, which must be empty.
func ParseChallenge(body []byte) (Challenge, error) {
	return Challenge{}, exact(KindChallenge, body, 0)
}

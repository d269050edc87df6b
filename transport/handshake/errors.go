package handshake

import "strconv"

// Problem says what was wrong with a datagram that failed to parse. It is a
// small number so a host can count dropped datagrams by problem rather than
// log each one.
type Problem uint8

// The problems a parser reports.
const (
	// ProblemShort: fewer bytes than the layout needs.
	ProblemShort Problem = iota + 1
	// ProblemTag: the first two bytes are not Tag.
	ProblemTag
	// ProblemLength: bytes left over after the layout.
	ProblemLength
	// ProblemUnpadded: a Hello shorter than HelloSize, which the server
	// must not answer (see HelloSize).
	ProblemUnpadded
	// ProblemPadding: a Hello's padding is not all zero.
	ProblemPadding
	// ProblemName: a player name that is too long, not UTF-8, or holds a
	// control character.
	ProblemName
	// ProblemFlags: a flag bit this version does not define is set.
	ProblemFlags
	// ProblemValue: a field holds a value its message forbids, such as
	// player number 0 in a Welcome.
	ProblemValue
)

// String returns a short lower-case description of the problem.
// Not made by stringer, which would spell an unknown problem Problem(9), not problem(9).
func (p Problem) String() string {
	switch p {
	case ProblemShort:
		return "too short"
	case ProblemTag:
		return "not a vkm datagram"
	case ProblemLength:
		return "trailing bytes"
	case ProblemUnpadded:
		return "not padded to HelloSize"
	case ProblemPadding:
		return "non-zero padding"
	case ProblemName:
		return "bad player name"
	case ProblemFlags:
		return "unknown flag bits"
	case ProblemValue:
		return "forbidden value"
	}
	return "problem(" + strconv.Itoa(int(p)) + ")"
}

// ParseError is the error every parser in this package returns. Kind is the
// message being read (0 for the header). A peer whose datagrams keep failing
// to parse after it was seated may be sent a Goodbye with GoodbyeProtocol;
// before that, a bad datagram is simply dropped.
type ParseError struct {
	Kind    Kind
	Problem Problem
}

// Error describes the failure, starting with the package name.
func (e *ParseError) Error() string {
	if e.Kind == 0 {
		return "handshake: header: " + e.Problem.String()
	}
	return "handshake: " + e.Kind.String() + ": " + e.Problem.String()
}

// fail returns a *ParseError for kind k.
func fail(k Kind, p Problem) error { return &ParseError{Kind: k, Problem: p} }

// exact checks that body is exactly n bytes long.
func exact(k Kind, body []byte, n int) error {
	switch {
	case len(body) < n:
		return fail(k, ProblemShort)
	case len(body) > n:
		return fail(k, ProblemLength)
	}
	return nil
}

package handshake

import "strconv"

// GoodbyeReason says why a connection ended. Numbers this build does not
// know are kept as they are and read as "for a reason of its own".
type GoodbyeReason uint8

// The goodbye reasons.
const (
	// GoodbyeQuit: the player chose to leave.
	GoodbyeQuit GoodbyeReason = 1
	// GoodbyeShutdown: the server is stopping.
	GoodbyeShutdown GoodbyeReason = 2
	// GoodbyeTimeout: nothing was heard from the other end for too long.
	GoodbyeTimeout GoodbyeReason = 3
	// GoodbyeKicked: the game removed the player.
	GoodbyeKicked GoodbyeReason = 4
	// GoodbyeProtocol: the other end sent something the protocol forbids.
	GoodbyeProtocol GoodbyeReason = 5
	// GoodbyeFlood: the other end sent more datagrams than its seat may,
	// for too long.
	GoodbyeFlood GoodbyeReason = 6
)

// String returns the reason's name, or "goodbye(N)" for a number this build
// does not know.
// Not made by stringer, which would spell that GoodbyeReason(N).
func (r GoodbyeReason) String() string {
	switch r {
	case GoodbyeQuit:
		return "quit"
	case GoodbyeShutdown:
		return "shutdown"
	case GoodbyeTimeout:
		return "timeout"
	case GoodbyeKicked:
		return "kicked"
	case GoodbyeProtocol:
		return "protocol"
	case GoodbyeFlood:
		return "flood"
	}
	return "goodbye(" + strconv.Itoa(int(r)) + ")"
}

// Sentence returns what a player is shown when the connection ends for
// this reason.
func (r GoodbyeReason) Sentence() string {
	switch r {
	case GoodbyeQuit:
		return "The player left the game."
	case GoodbyeShutdown:
		return "The server shut down."
	case GoodbyeTimeout:
		return "The connection timed out."
	case GoodbyeKicked:
		return "The game removed you from the match."
	case GoodbyeProtocol:
		return "The connection was closed after a protocol error."
	case GoodbyeFlood:
		return "The connection was closed: this client sent far more than a game sends."
	}
	return "The connection was closed (reason " + strconv.Itoa(int(r)) + ")."
}

// Goodbye ends a connection; either end may send it, carrying the seat's
// token in the header. Body layout: 12 Reason u8. 13 bytes in all.
type Goodbye struct {
	Reason GoodbyeReason
}

// Kind returns KindGoodbye.
func (Goodbye) Kind() Kind { return KindGoodbye }

// Append appends the Goodbye's body to b and returns the longer slice.
func (g Goodbye) Append(b []byte) []byte { return append(b, byte(g.Reason)) }

// ParseGoodbye reads a Goodbye body: exactly one byte, any reason.
func ParseGoodbye(body []byte) (Goodbye, error) {
	if err := exact(KindGoodbye, body, 1); err != nil {
		return Goodbye{}, err
	}
	return Goodbye{Reason: GoodbyeReason(body[0])}, nil
}

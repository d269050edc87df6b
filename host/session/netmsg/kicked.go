package netmsg

// Kicked tells a player the server is removing them, and why (KindKicked):
// an operator's kick or ban. The client ends its session with the
// sentence; the server ends the seat (Goodbye reason 4, kicked) once the
// message is delivered, or after a grace period. On the wire:
//
//	kind u8 = 8, then the sentence (UTF-8, as CleanText leaves it, at
//	most MaxChat bytes; it may be empty) to the end of the message
type Kicked struct {
	// Sentence is shown to the player as it is.
	Sentence string
}

// Append appends the kicked message of k, its sentence as CleanText
// makes it.
func (k Kicked) Append(b []byte) []byte {
	return append(append(b, byte(KindKicked)), CleanText(k.Sentence)...)
}

// ParseKicked reads a kicked message. It refuses another kind, and a
// sentence over MaxChat bytes or one CleanText would change.
func ParseKicked(msg []byte) (Kicked, error) {
	if KindOf(msg) != KindKicked {
		return Kicked{}, fail(FormatKicked)
	}
	if len(msg) == 1 {
		return Kicked{}, nil
	}
	s, err := parseText(FormatKicked, msg[1:])
	return Kicked{Sentence: s}, err
}

package netmsg

// NoReload is the no-reload message (KindNoReload): a sentence telling a
// client that did not join with --dev why it cannot follow the reload the
// server is about to make; the client ends its session with it. On the
// wire:
//
//	kind u8 = 2, then the sentence (UTF-8) to the end of the message
type NoReload struct {
	// Sentence is shown to the player as it is.
	Sentence string
}

// Append appends the no-reload message of n.
func (n NoReload) Append(b []byte) []byte {
	return append(append(b, byte(KindNoReload)), n.Sentence...)
}

// ParseNoReload reads a no-reload message. It refuses only another kind
// (or none): the sentence is whatever follows, bounded by the reliable
// channel's largest message.
func ParseNoReload(msg []byte) (NoReload, error) {
	if KindOf(msg) != KindNoReload {
		return NoReload{}, fail(FormatNoReload)
	}
	return NoReload{Sentence: string(msg[1:])}, nil
}

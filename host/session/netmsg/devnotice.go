package netmsg

import (
	"strings"
	"unicode/utf8"
)

// MaxNotice bounds a dev notice's sentence in bytes: a compiler's error
// with its file and line, far inside the message channel. Protocol
// constant.
const MaxNotice = 1000

// DevNotice tells a client that joined with --dev what its developer
// should see of the server's own work (KindDevNotice): a hot reload the
// server refused, and why ("scripts/runner.lua:12: ..."), while the old
// code keeps running. Server to dev clients only; the client shows it and
// plays on. On the wire:
//
//	kind u8 = 9, then the sentence (UTF-8, as CleanNotice leaves it, 1 to
//	MaxNotice bytes) to the end of the message
//
// A client from before kind 9 ignores it, as it ignores any kind it does
// not know.
type DevNotice struct {
	// Sentence is shown to the developer as it is.
	Sentence string
}

// Append appends the dev notice of n, its sentence as CleanNotice makes
// it.
func (n DevNotice) Append(b []byte) []byte {
	return append(append(b, byte(KindDevNotice)), CleanNotice(n.Sentence)...)
}

// ParseDevNotice reads a dev notice. It refuses another kind, an empty
// sentence, one over MaxNotice bytes, and one CleanNotice would change.
func ParseDevNotice(msg []byte) (DevNotice, error) {
	if KindOf(msg) != KindDevNotice {
		return DevNotice{}, fail(FormatDevNotice)
	}
	b := msg[1:]
	switch {
	case len(b) == 0:
		return DevNotice{}, failf(FormatDevNotice, "no text")
	case len(b) > MaxNotice:
		return DevNotice{}, failf(FormatDevNotice, "%d bytes of text", len(b))
	}
	if s := string(b); CleanNotice(s) == s {
		return DevNotice{Sentence: s}, nil
	}
	return DevNotice{}, failf(FormatDevNotice, "the text is not printable")
}

// CleanNotice returns s made fit to travel as a dev notice: as CleanText
// does for a chat line, but with line breaks and tabs turned into spaces
// (a compiler's message may hold them) and cut to MaxNotice bytes; "" for
// a text with nothing printable, which Append then sends as an empty and
// so refused notice: callers send a sentence.
func CleanNotice(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s { // an invalid byte ranges as utf8.RuneError
		if r == '\n' || r == '\t' || r == '\r' {
			r = ' '
		}
		if !textRune(r) {
			continue
		}
		if r == ' ' {
			if space {
				continue // runs of spaces, as line breaks leave them, as one
			}
			space = true
		} else {
			space = false
		}
		if b.Len()+utf8.RuneLen(r) > MaxNotice {
			break
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

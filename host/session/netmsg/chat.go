package netmsg

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxChat bounds a chat line's text in bytes: a couple of sentences, and
// far inside a datagram. Protocol constant.
const MaxChat = 200

// Chat is a chat line a player typed (KindChat), client to server; the
// server judges it (the project's net.on_chat may rewrite or refuse it)
// and sends what it keeps to the players as a ChatLine. On the wire:
//
//	kind u8 = 6, then the text (UTF-8, at most MaxChat bytes, as
//	CleanText leaves it) to the end of the message
type Chat struct {
	Text string
}

// Append appends the chat message of c, its text as CleanText makes it.
func (c Chat) Append(b []byte) []byte {
	return append(append(b, byte(KindChat)), CleanText(c.Text)...)
}

// ParseChat reads a chat message. It refuses another kind, an empty text,
// and a text over MaxChat bytes or one CleanText would change.
func ParseChat(msg []byte) (Chat, error) {
	if KindOf(msg) != KindChat {
		return Chat{}, fail(FormatChat)
	}
	text, err := parseText(FormatChat, msg[1:])
	return Chat{Text: text}, err
}

// parseText reads a chat text that must be as CleanText leaves it, and
// not empty.
func parseText(f Format, b []byte) (string, error) {
	switch {
	case len(b) == 0:
		return "", failf(f, "no text")
	case len(b) > MaxChat:
		return "", failf(f, "%d bytes of text", len(b))
	}
	s := string(b)
	if CleanText(s) != s {
		return "", failf(f, "the text is not printable")
	}
	return s, nil
}

// CleanText returns s made fit to travel as a chat line: each invalid
// UTF-8 byte becomes U+FFFD, characters that draw nothing (controls,
// format characters, line and paragraph separators) are dropped, spaces
// at either end are trimmed, and the result is cut at a character
// boundary to at most MaxChat bytes. A text already fit is returned
// unchanged.
func CleanText(s string) string {
	if cleanText(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s { // an invalid byte ranges as utf8.RuneError
		if !textRune(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > MaxChat {
			break
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

// cleanText reports whether CleanText would leave s unchanged.
func cleanText(s string) bool {
	if len(s) > MaxChat || !utf8.ValidString(s) || strings.TrimSpace(s) != s {
		return false
	}
	for _, r := range s {
		if !textRune(r) {
			return false
		}
	}
	return true
}

// textRune reports whether r may stand in a chat line.
func textRune(r rune) bool {
	return !unicode.IsControl(r) && !unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

package netmsg

import (
	"fmt"
	"strconv"
)

// Format names one of the package's formats, for its errors.
type Format uint8

// The formats.
const (
	FormatPayload Format = iota + 1
	FormatRelay
	FormatPlayers
	FormatRoundTrips
	FormatBundle
	FormatNoReload
	FormatMessage
	FormatChat
	FormatChatLine
	FormatKicked
	FormatDevNotice
	FormatGuest
	FormatGuests
	FormatGuestCommands
	FormatFollow
	FormatVoice
	FormatInspect
)

// String returns what the format is called in a sentence.
// Not made by stringer, which would spell the names as Go's.
func (f Format) String() string {
	switch f {
	case FormatPayload:
		return "payload"
	case FormatRelay:
		return "relay section"
	case FormatPlayers:
		return "player list"
	case FormatRoundTrips:
		return "round trips"
	case FormatBundle:
		return "script bundle"
	case FormatNoReload:
		return "no-reload message"
	case FormatMessage:
		return "project message"
	case FormatChat:
		return "chat message"
	case FormatChatLine:
		return "chat line"
	case FormatKicked:
		return "kicked message"
	case FormatDevNotice:
		return "dev notice"
	case FormatGuest:
		return "guest message"
	case FormatGuests:
		return "guest section"
	case FormatGuestCommands:
		return "guest command stream"
	case FormatFollow:
		return "follow message"
	case FormatVoice:
		return "voice message"
	case FormatInspect:
		return "inspector message"
	}
	return "format(" + strconv.Itoa(int(f)) + ")"
}

// ParseError is the error every parser in this package returns (and
// Bundle.Check, which says what ParseBundle would refuse). Its text is fit
// for a log line or a player's screen: the session shows it when it ends
// over a message it cannot read.
type ParseError struct {
	// Format is what was being read.
	Format Format
	// Reason says what was wrong, in lower case; empty when the bytes
	// merely do not fit the layout (cut short, the wrong kind).
	Reason string
}

// Error describes the failure, starting with the package name.
func (e *ParseError) Error() string {
	if e.Reason == "" {
		return "netmsg: malformed " + e.Format.String()
	}
	return "netmsg: malformed " + e.Format.String() + ": " + e.Reason
}

// fail returns a *ParseError for f.
func fail(f Format) error { return &ParseError{Format: f} }

// failf returns a *ParseError for f whose reason is formatted.
func failf(f Format, format string, args ...any) error {
	return &ParseError{Format: f, Reason: fmt.Sprintf(format, args...)}
}

package netmsg

import (
	"errors"
	"testing"

	"vkm/transport"
)

// mustParseError fails t unless err is nil or a *ParseError.
func mustParseError(t *testing.T, err error) {
	t.Helper()
	var pe *ParseError
	if err != nil && !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *ParseError", err)
	}
}

// prefixesFail checks that every strict prefix of a valid message b is
// refused with a *ParseError: a message cut short never reads as another.
func prefixesFail(t *testing.T, name string, b []byte, parse func([]byte) error) {
	t.Helper()
	for n := range len(b) {
		err := parse(b[:n:n])
		if err == nil {
			t.Errorf("%s: the %d-byte prefix of % x parses", name, n, b)
			continue
		}
		mustParseError(t, err)
	}
}

// newReliable returns a message channel with the default limits.
func newReliable(tb testing.TB) *transport.Reliable {
	tb.Helper()
	rel, err := transport.NewReliable(transport.ReliableConfig{})
	if err != nil {
		tb.Fatal(err)
	}
	return rel
}

// sending returns a channel with msgs queued to send.
func sending(tb testing.TB, msgs ...string) *transport.Reliable {
	tb.Helper()
	rel := newReliable(tb)
	for _, m := range msgs {
		if err := rel.Send([]byte(m)); err != nil {
			tb.Fatal(err)
		}
	}
	return rel
}

package netmsg

import (
	"bytes"
	"testing"
)

// FuzzMessage feeds the message parser anything: it must not panic, and
// what it accepts is what Append writes for it.
func FuzzMessage(f *testing.F) {
	f.Add(Message{Number: 2, Body: []byte{0x37, 0x01}}.Append(nil))
	f.Add(Message{Number: 65535}.Append(nil))
	f.Add(Message{Body: make([]byte, MaxMessageBody)}.Append(nil))
	f.Add(append(Message{}.Append(nil), make([]byte, MaxMessageBody+1)...))
	f.Add([]byte{byte(KindMessage), 1})
	f.Add([]byte{byte(KindPlayers), 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseMessage(b)
		mustParseError(t, err)
		if err != nil {
			return
		}
		if !bytes.Equal(m.Append(nil), b) {
			t.Fatalf("parsed %+v from % x, which encodes as % x", m, b, m.Append(nil))
		}
	})
}

func TestMessageRoundTrip(t *testing.T) {
	for _, m := range []Message{{Number: 0, Body: []byte{}}, {Number: 513, Body: []byte{1, 2, 3}}, {Number: 7, Body: make([]byte, MaxMessageBody)}} {
		b := m.Append(nil)
		got, err := ParseMessage(b)
		if err != nil || got.Number != m.Number || !bytes.Equal(got.Body, m.Body) {
			t.Fatalf("%+v came back %+v, %v", m, got, err)
		}
		prefixesFail(t, "message", b[:3], func(b []byte) error { _, err := ParseMessage(b); return err })
	}
	if _, err := ParseMessage(append(Message{}.Append(nil), make([]byte, MaxMessageBody+1)...)); err == nil {
		t.Fatal("an oversized body parsed")
	}
}

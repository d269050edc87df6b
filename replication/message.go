package replication

import (
	"errors"
	"fmt"
	"strings"

	"vkm/wire"
)

// A project's messages are schema too: each is a Type (a name and typed
// fields, the same codecs as a component's), declared in vkmSetupNetwork
// beside the components. Their order is their number on the wire, and the
// fingerprint covers them, so a peer built with other messages is refused
// at join. A message's body is its fields through their codecs, in
// declared order, bit-packed as a snapshot packs a component, then zero
// bits to the next byte.

// MaxMessageFields bounds a message's fields: a message is a request or a
// notice, not a world. Protocol constant.
const MaxMessageFields = 32

// MaxMessages bounds the messages a schema declares: the number travels as
// a u16. Protocol constant.
const MaxMessages = 1 << 16

// AddMessage appends message type t to the schema's messages. It refuses
// what Add refuses of a component type, a name declared twice as a
// message, and more than MaxMessageFields fields.
func (s *Schema) AddMessage(t Type) error {
	at := ""
	if t.Where != "" {
		at = " (" + t.Where + ")"
	}
	if i := s.MessageIndex(t.Name); i >= 0 {
		return fmt.Errorf("replication: message %q declared twice%s; first at %s", t.Name, at, s.Messages[i].Where)
	}
	if len(t.Fields) > MaxMessageFields {
		return fmt.Errorf("replication: message %q has %d fields, at most %d%s", t.Name, len(t.Fields), MaxMessageFields, at)
	}
	if len(s.Messages) >= MaxMessages {
		return fmt.Errorf("replication: more than %d messages%s", MaxMessages, at)
	}
	// Add checks a type's name and fields: it is borrowed on a scratch
	// schema.
	var check Schema
	if err := check.Add(t); err != nil {
		return errors.New(strings.ReplaceAll(err.Error(), "component type", "message"))
	}
	s.Messages = append(s.Messages, check.Types[0])
	return nil
}

// MessageIndex returns the number of the message named name, or -1.
func (s *Schema) MessageIndex(name string) int {
	for i := range s.Messages {
		if s.Messages[i].Name == name {
			return i
		}
	}
	return -1
}

// MessageBodySize returns the bytes of message typ's body.
func (s *Schema) MessageBodySize(typ int) int {
	bits := 0
	for _, f := range s.Messages[typ].Fields {
		bits += f.Codec.Bits
	}
	return (bits + 7) / 8
}

// AppendMessageBody appends the body of message typ with values (one per
// field in declared order; missing ones are zero, and each is written as
// its codec quantises it). typ must be a message of s.
func (s *Schema) AppendMessageBody(b []byte, typ int, values []float64) []byte {
	var w wire.Writer
	writeValues(&w, &s.Messages[typ], values)
	return append(b, w.Bytes()...)
}

// ParseMessageBody reads the body of message typ, appending its values to
// dst[:0]. It refuses a typ the schema does not declare, a body of another
// size, a code no writer produces and padding bits that are not zero, so
// what it accepts is exactly what AppendMessageBody writes for its values.
func (s *Schema) ParseMessageBody(typ int, body []byte, dst []float64) ([]float64, error) {
	dst = dst[:0]
	if typ < 0 || typ >= len(s.Messages) {
		return dst, fmt.Errorf("replication: message %d of %d", typ, len(s.Messages))
	}
	t := &s.Messages[typ]
	if n := s.MessageBodySize(typ); len(body) != n {
		return dst, fmt.Errorf("replication: message %s: %d bytes, want %d", t.Name, len(body), n)
	}
	r := wire.NewReader(body)
	dst, err := readValues(r, t, dst)
	if err != nil {
		return dst, fmt.Errorf("replication: message %s: %w", t.Name, err)
	}
	if pad := r.Remaining(); pad > 0 {
		if v, err := r.ReadBits(pad); err != nil || v != 0 {
			return dst, fmt.Errorf("replication: message %s: padding bits are not zero", t.Name)
		}
	}
	return dst, nil
}

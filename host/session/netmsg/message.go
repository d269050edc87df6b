package netmsg

import "encoding/binary"

// MaxMessageBody bounds a project message's body: 32 fields
// (replication.MaxMessageFields) of at most 64 bits each. Protocol
// constant.
const MaxMessageBody = 32 * 8

// Message is a project message (KindMessage): one the project declared in
// vkmSetupNetwork, sent by a client's net.send to the server or by the
// server's net.send_to and net.broadcast to players. The same layout goes
// both ways; on the wire:
//
//	kind u8 = 5, message u16 (its place among the project's messages, from
//	0), then the body to the end of the message: its fields through their
//	codecs, as replication.Schema.AppendMessageBody writes them
//
// This package reads only the envelope; the project's schema reads the
// body (replication.Schema.ParseMessageBody).
type Message struct {
	// Number is the message's place in the schema's messages.
	Number uint16
	// Body is its fields, at most MaxMessageBody bytes. A parsed Body
	// aliases the message it was read from.
	Body []byte
}

// Append appends the message m, whose body is at most MaxMessageBody
// bytes.
func (m Message) Append(b []byte) []byte {
	b = append(b, byte(KindMessage))
	b = binary.LittleEndian.AppendUint16(b, m.Number)
	return append(b, m.Body...)
}

// ParseMessage reads a project message. It refuses another kind, a
// message cut short of its number and a body longer than MaxMessageBody.
func ParseMessage(msg []byte) (Message, error) {
	if len(msg) < 3 || Kind(msg[0]) != KindMessage {
		return Message{}, fail(FormatMessage)
	}
	body := msg[3:]
	if len(body) > MaxMessageBody {
		return Message{}, failf(FormatMessage, "a body of %d bytes", len(body))
	}
	return Message{Number: binary.LittleEndian.Uint16(msg[1:3]), Body: body}, nil
}

package netmsg

import "encoding/binary"

// ChatLine is a chat line the server sends players (KindChatLine): a
// player's line as the server kept it, or the server's own word (a
// message of the day, an operator's say) from player 0. On the wire:
//
//	kind u8 = 7, from u16 (the player's number; 0: the server), then the
//	text (UTF-8, at most MaxChat bytes, as CleanText leaves it) to the
//	end of the message
type ChatLine struct {
	From uint16
	Text string
}

// Append appends the chat line of l, its text as CleanText makes it.
func (l ChatLine) Append(b []byte) []byte {
	b = append(b, byte(KindChatLine))
	b = binary.LittleEndian.AppendUint16(b, l.From)
	return append(b, CleanText(l.Text)...)
}

// ParseChatLine reads a chat line. It refuses another kind, a message cut
// short of its sender, an empty text, and a text over MaxChat bytes or one
// CleanText would change.
func ParseChatLine(msg []byte) (ChatLine, error) {
	if len(msg) < 3 || Kind(msg[0]) != KindChatLine {
		return ChatLine{}, fail(FormatChatLine)
	}
	text, err := parseText(FormatChatLine, msg[3:])
	return ChatLine{From: binary.LittleEndian.Uint16(msg[1:3]), Text: text}, err
}

package view

import "sync"

// The chat: the page has a text box (Enter sends) and a log. What the
// player types comes as {"t":"chat","text":"gg"} and is handed to
// Config.OnChat (SinkConfig.OnChat); the log goes to the page, whole, each
// time it changes, as
//
//	{"t":"chat","lines":[{"from":2,"name":"ada","text":"gg"}, ...]}
//
// (from 0 is the server's own line, with no name).

// MaxChatText bounds the text of a chat message from the page, in bytes;
// the session cleans and bounds it again (netmsg.MaxChat).
const MaxChatText = 400

// ChatLine is one line of the chat log the page shows.
type ChatLine struct {
	From uint16 `json:"from"`
	Name string `json:"name"`
	Text string `json:"text"`
}

// chatMsg is the chat message.
type chatMsg struct {
	T     string     `json:"t"` // "chat"
	Lines []ChatLine `json:"lines"`
}

// encodeChat returns the chat message for lines.
func encodeChat(lines []ChatLine) []byte {
	if lines == nil {
		lines = []ChatLine{}
	}
	return marshal(&chatMsg{T: "chat", Lines: lines})
}

// chatState is a Server's chat message and its version.
type chatState struct {
	mu  sync.Mutex
	msg []byte
	ver uint64
}

// set keeps msg when it differs from the last, and reports whether it did.
func (c *chatState) set(msg []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if string(msg) == string(c.msg) {
		return false
	}
	c.msg = msg
	c.ver++
	return true
}

func (c *chatState) get() ([]byte, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.msg, c.ver
}

// SetChat hands the page the chat log when it differs from the last.
func (s *Sink) SetChat(lines []ChatLine) { s.setOnChange(&s.chat, encodeChat(lines)) }

// chatText returns a chat message's text, cut to MaxChatText bytes at a
// character boundary.
func chatText(raw *rawMessage) string {
	if raw.Text == nil {
		return ""
	}
	t := *raw.Text
	if len(t) <= MaxChatText {
		return t
	}
	cut := MaxChatText
	for cut > 0 && t[cut]&0xC0 == 0x80 {
		cut--
	}
	return t[:cut]
}

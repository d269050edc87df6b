package session

import (
	"errors"
	"time"

	"vkm/host/session/netmsg"
	"vkm/transport"
)

// The chat: a player's line goes to the server (netmsg.Chat), which
// bounds it, asks the project's net.on_chat, and sends what it keeps to
// every player (netmsg.ChatLine); the server's own lines (a message of the
// day, an operator's say) come from player 0.

// Tuning constants: what a player may type. A line a second, with a few
// in a row, is more than a person types and less than a spammer needs.
const (
	// ChatPerSecond is the steady rate a player's lines are taken at.
	ChatPerSecond = 1
	// ChatBurst is how many may come at once after a quiet spell.
	ChatBurst = 5
	// ChatLog is how many lines a client keeps for its view.
	ChatLog = 64
)

// ChatCounts are a server's chat figures: lines sent to the players
// (Lines, the server's own among them), refused by the project's
// net.on_chat or unreadable (Refused), and dropped for the rate bound or a
// mute (Dropped).
type ChatCounts struct {
	Lines, Refused, Dropped uint64
}

// tooFast is what a player over the chat's bound is told, at most once a
// second.
const tooFast = "You are typing faster than the server takes lines; some were not sent."

// takeChat takes a line a player typed.
func (s *Server) takeChat(st *seat, msg []byte) {
	c, err := netmsg.ParseChat(msg)
	if err != nil {
		s.chat.Refused++
		return
	}
	if st.muted {
		s.chat.Dropped++
		return
	}
	if ok, _ := st.chatBound.admitAt(s.now, true, ChatPerSecond, ChatBurst); !ok {
		s.chat.Dropped++
		if s.now >= st.toldTooFast {
			st.toldTooFast = s.now + transport.Time(time.Second)
			s.tell(st, 0, tooFast)
		}
		return
	}
	if s.rec != nil {
		s.rec.Chat(st.player, c.Text)
	}
	text, keep, to, err := s.game.Chat(st.player, c.Text)
	if err != nil {
		s.log.Warn("chat handler failed: line refused", "player", st.player, "err", err)
	}
	text = netmsg.CleanText(text)
	if !keep || text == "" {
		s.chat.Refused++
		return
	}
	if to != nil {
		// A channel of the game's (a team's): those players alone.
		s.log.Info("chat", "player", st.player, "name", st.name, "text", text, "to", to)
		msg := netmsg.ChatLine{From: st.player, Text: text}.Append(nil)
		s.eachConn(to, func(other *seat) { s.sendChat(other, msg) })
		s.chat.Lines++
		return
	}
	s.log.Info("chat", "player", st.player, "name", st.name, "text", text)
	s.chatAll(st.player, text)
}

// chatAll sends every seated player a line from player from (0: the
// server).
func (s *Server) chatAll(from uint16, text string) {
	msg := netmsg.ChatLine{From: from, Text: text}.Append(nil)
	for _, st := range s.seats {
		s.sendChat(st, msg)
	}
	s.chat.Lines++
}

// tell sends one player a line from player from (0: the server).
func (s *Server) tell(st *seat, from uint16, text string) {
	s.sendChat(st, netmsg.ChatLine{From: from, Text: text}.Append(nil))
}

// sendChat queues a chat line to st's player.
func (s *Server) sendChat(st *seat, msg []byte) {
	if err := st.rel.Send(msg); err != nil {
		s.log.Debug("chat line not sent", "player", st.player, "err", err)
	}
}

// Say sends every seated player a line from the server (player 0): an
// operator's say. It returns false for a line CleanText leaves empty.
func (s *Server) Say(text string) bool {
	text = netmsg.CleanText(text)
	if text == "" {
		return false
	}
	s.log.Info("say", "text", text)
	s.chatAll(0, text)
	return true
}

// greetNew sends the message of the day to every player seated since the
// last call, after the player list that names them.
func (s *Server) greetNew() {
	for _, st := range s.seats {
		if st.greet {
			st.greet = false
			if s.motd != "" {
				s.tell(st, 0, s.motd)
			}
		}
	}
}

// Chat returns the server's chat figures.
func (s *Server) Chat() ChatCounts { return s.chat }

// The client's side.

// ChatEntry is one line of a client's chat log.
type ChatEntry struct {
	// From is the sender's player number; 0 is the server.
	From uint16
	// Name is the sender's name as the player list gave it when the line
	// came ("" for the server, or a player no longer listed).
	Name string
	Text string
}

// errChatEmpty is Say's error for a line with nothing to show.
var errChatEmpty = errors.New("session: a chat line with no text")

// Say sends a line the player typed to the server, as netmsg.CleanText
// leaves it. It returns an error for a line left empty, or one the channel
// cannot take. The server judges it; it comes back in ChatLog, to this
// player as to the others, if the server keeps it.
func (c *Client) Say(text string) error {
	text = netmsg.CleanText(text)
	if text == "" {
		return errChatEmpty
	}
	return c.rel.Send(netmsg.Chat{Text: text}.Append(nil))
}

// ChatLog returns the newest ChatLog lines the server sent, oldest first.
// The slice is the client's: read it before the next Receive.
func (c *Client) ChatLog() []ChatEntry { return c.chat }

// takeChatLine reads a chat line from the server. One this client cannot
// read ends the session.
func (c *Client) takeChatLine(msg []byte) {
	l, err := netmsg.ParseChatLine(msg)
	if err != nil {
		c.end("The server sent a chat line this client cannot read: " + err.Error())
		return
	}
	e := ChatEntry{From: l.From, Text: l.Text}
	if i, ok := c.rosterIndex(l.From); ok && l.From != 0 {
		e.Name = c.roster[i].Name
	}
	if len(c.chat) == ChatLog {
		copy(c.chat, c.chat[1:])
		c.chat = c.chat[:ChatLog-1]
	}
	c.chat = append(c.chat, e)
	if c.onChat != nil {
		c.onChat(e)
	}
}

package browser

import (
	"sync"

	"vkm/host/session"
	"vkm/host/view"
)

// The page's chat: what its player types reaches the session's Say on the
// client's loop (Publish), and the session's chat log goes to the page
// whenever it changes.

// typed holds the lines the page's player typed until the loop takes
// them: the page's messages come on its connection's goroutine.
type typed struct {
	mu    sync.Mutex
	lines []string
}

// add is view.Config.OnChat.
func (q *typed) add(text string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.lines) < 16 { // a person types a line at a time; the rest is noise
		q.lines = append(q.lines, text)
	}
}

// take returns the lines typed since the last call.
func (q *typed) take() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	l := q.lines
	q.lines = nil
	return l
}

// updateChat says what the page's player typed and hands the page the
// session's chat log when it changed. Offline there is nobody to talk to.
func (v *Viewer) updateChat() {
	c := v.c
	if c == nil {
		return
	}
	for _, text := range v.typed.take() {
		_ = c.Say(text) // an empty or unsendable line is not sent; nothing to show
	}
	log := c.ChatLog()
	if len(log) == v.chatShown && (len(log) == 0 || log[len(log)-1] == v.chatLast) {
		return
	}
	v.chatShown = len(log)
	if len(log) > 0 {
		v.chatLast = log[len(log)-1]
	}
	lines := make([]view.ChatLine, len(log))
	for i, e := range log {
		lines[i] = view.ChatLine{From: e.From, Name: e.Name, Text: e.Text}
	}
	v.srv.SetChat(lines)
}

// chatSeen is what updateChat last showed of the log.
type chatSeen struct {
	typed     *typed
	chatShown int
	chatLast  session.ChatEntry
}

package browser

import (
	"sync"
	"time"

	"vkm/host/view"
)

// The page's own code sends the project's messages (vkm.send) and hears
// the server's (vkm.onMessage; view's send.go): what it sends reaches the
// game on the client's loop (Publish) and goes with the scripts' own
// net.send, under the same bounds; what the server tells this player is
// handed to the page in the frames of the next moment, as effects are.

// maxPageSends bounds the sends waiting for the loop: the server takes a
// burst of session.MessageBurst; more between two frames is a page in a
// loop, and is dropped here.
const maxPageSends = 64

// pageSends holds what the page's code sent until the loop takes it: the
// page's messages come on its connection's goroutine.
type pageSends struct {
	mu      sync.Mutex
	list    []view.PageSend
	dropped int
}

// add is view.Config.OnSend.
func (q *pageSends) add(p view.PageSend) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.list) >= maxPageSends {
		q.dropped++
		return
	}
	q.list = append(q.list, p)
}

// take returns the sends since the last call.
func (q *pageSends) take() []view.PageSend {
	q.mu.Lock()
	defer q.mu.Unlock()
	l := q.list
	q.list = nil
	return l
}

// told is the messages the server told this player, kept for the frames
// of the next effectLinger.
type told struct {
	seq  uint64
	list []view.Effect
	at   []time.Time
}

// tell keeps a message from the server for the page.
func (v *Viewer) tell(name string, fields map[string]any) {
	t := &v.told
	t.seq++
	if len(t.list) == maxEffects {
		t.list, t.at = t.list[1:], t.at[1:]
	}
	t.list = append(t.list, view.Effect{Seq: t.seq, Name: name, Fields: fields})
	t.at = append(t.at, time.Now())
}

// recentMessages drops the told messages older than effectLinger and
// returns the rest.
func (v *Viewer) recentMessages() []view.Effect {
	t := &v.told
	now := time.Now()
	n := 0
	for n < len(t.at) && now.Sub(t.at[n]) > effectLinger {
		n++
	}
	if n > 0 {
		t.list = append(t.list[:0], t.list[n:]...)
		t.at = append(t.at[:0], t.at[n:]...)
	}
	return t.list
}

// updateSends sends what the page's code sent, as the client's net.send
// does (offline, to the game's own handler). A message the schema does not
// declare, or a field it does not have, is logged and not sent.
func (v *Viewer) updateSends() {
	if v.sends == nil {
		return
	}
	for _, p := range v.sends.take() {
		if _, err := v.g.Send(p.Name, p.Fields); err != nil {
			v.log.Warn("the page's message not sent", "err", err)
		}
	}
}

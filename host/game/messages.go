package game

import (
	"vkm/replication"
	"vkm/scripting"
)

// The project's messages (scripting's net.send, net.send_to and
// net.broadcast) are carried by the session; the game only hands them
// between it and the scripts.

// PostMessage hands the scripts a message: from a player (from is their
// number) on a server, from the server (0) on a client. Its handler runs
// at the top of the next tick this end plays.
func (g *Game) PostMessage(from uint16, message int, values []float64) {
	g.scripts.PostMessage(from, message, values)
}

// TakeMessages calls fn with each message the scripts sent since it was
// last called, in order, and forgets them.
func (g *Game) TakeMessages(fn func(scripting.Outgoing)) { g.scripts.TakeMessages(fn) }

// MessageErrors returns how many message handlers have failed.
func (g *Game) MessageErrors() int { return g.scripts.MessageErrors() }

// Chat asks the project's chat handler (net.on_chat) about a line player
// typed: the line to send, whether to send it, and to whom (nil: everyone;
// scripting.Runtime.Chat).
func (g *Game) Chat(player uint16, text string) (string, bool, []uint16, error) {
	return g.scripts.Chat(player, text)
}

// Send sends the message name with fields (by name) to the server as a
// client's net.send does (scripting.Runtime.Send): the page's own code
// sending. Offline it reaches the handler as the local player's.
func (g *Game) Send(name string, fields map[string]float64) (bool, error) {
	return g.scripts.Send(name, fields)
}

// WatchServerMessages calls fn with each message from the server as this
// end's handlers are handed it (scripting.Runtime.OnServerMessage): its
// name and its fields by name, a bool field's as a bool. A view hands
// them to the page's own code. nil stops watching.
func (g *Game) WatchServerMessages(fn func(name string, fields map[string]any)) {
	if fn == nil {
		g.scripts.OnServerMessage(nil)
		return
	}
	g.scripts.OnServerMessage(func(message int, values []float64) {
		t := &g.scripts.Schema().Messages[message]
		fields := make(map[string]any, len(t.Fields))
		for i, f := range t.Fields {
			if i >= len(values) {
				break
			}
			if f.Codec.Kind == replication.Bool {
				fields[f.Name] = values[i] != 0
			} else {
				fields[f.Name] = values[i]
			}
		}
		fn(t.Name, fields)
	})
}

// VoiceHears asks the project's net.voice_hears whether listener hears
// speaker (scripting.Runtime.VoiceHears): the gain, and whether it
// decided.
func (g *Game) VoiceHears(listener, speaker uint16) (float64, bool, error) {
	return g.scripts.VoiceHears(listener, speaker)
}

// HasVoiceJudge reports whether the project replaced net.voice_hears.
func (g *Game) HasVoiceJudge() bool { return g.scripts.HasVoiceJudge() }

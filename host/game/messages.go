package game

import "vkm/scripting"

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

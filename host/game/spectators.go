package game

import "vkm/scripting"

// Spectators lists the spectators of an Authority that has them (a
// server session's), for net.spectators(); none otherwise.
func (g *world) Spectators(dst []scripting.SpectatorInfo) []scripting.SpectatorInfo {
	if w, ok := g.auth.(scripting.Watched); ok {
		return w.Spectators(dst)
	}
	return dst
}

// Spectators lists the Authority's spectators, as net.spectators() does.
func (g *Game) Spectators() []scripting.SpectatorInfo {
	return (*world)(g).Spectators(nil)
}

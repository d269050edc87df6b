package game

import "vkm/scripting"

// TakeKillcam returns the killcam the scripts asked for (net.killcam)
// since the last call, for the view to show.
func (g *Game) TakeKillcam() (scripting.Killcam, bool) { return g.scripts.TakeKillcam() }

package game

import "vkm/scripting"

// MaxKillcamSeconds bounds a killcam (net.killcam): what a view keeps of
// what it drew, to play back.
const MaxKillcamSeconds = scripting.MaxKillcamSeconds

// TakeKillcam returns the killcam the scripts asked for (net.killcam)
// since the last call, for the view to show: the player whose character
// the camera follows and how many seconds back it starts.
func (g *Game) TakeKillcam() (player uint16, seconds float64, ok bool) {
	k, ok := g.scripts.TakeKillcam()
	return k.Player, k.Seconds, ok
}

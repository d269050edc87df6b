package scripting

import lua "github.com/yuin/gopher-lua"

// A killcam shows this end's player the last seconds again, from another
// player's character: net.killcam(player, seconds). It is presentation: a
// client's view keeps what it drew over the last MaxKillcamSeconds and
// plays it back with its camera on that player's character, then goes
// back to the game, which plays on meanwhile. A server, an offline game
// and a replay have no view to show it in, and the call does nothing there.

// MaxKillcamSeconds bounds a killcam: what a view keeps to play back.
const MaxKillcamSeconds = 10

// Killcam is a script's ask for a killcam: Player's character, the last
// Seconds.
type Killcam struct {
	Player  uint16
	Seconds float64
}

// luaKillcam implements net.killcam(player, seconds): on a client, asks
// its view for a killcam and returns true; elsewhere it returns false.
func (r *Runtime) luaKillcam(L *lua.LState) int {
	p := L.CheckNumber(1)
	secs := L.CheckNumber(2)
	if p < 1 || p > 65535 || float64(p) != float64(int(p)) {
		L.ArgError(1, "a player number (1..65535) expected")
	}
	if !(secs > 0 && secs <= MaxKillcamSeconds) {
		L.ArgError(2, "seconds above 0 and at most 10 expected")
	}
	if r.world.Role() != RoleClient {
		L.Push(lua.LFalse)
		return 1
	}
	r.killcam = &Killcam{Player: uint16(p), Seconds: float64(secs)}
	L.Push(lua.LTrue)
	return 1
}

// TakeKillcam returns the killcam the scripts last asked for since the
// last call, if any.
func (r *Runtime) TakeKillcam() (Killcam, bool) {
	k := r.killcam
	r.killcam = nil
	if k == nil {
		return Killcam{}, false
	}
	return *k, true
}

package game

import "vkm/physics"

// rewindDepth is how many of its latest ticks an end that replays keeps
// the physics of (physics.State): a second at 64 Hz, more than a round
// trip and the interpolation delay on any link a game is played over. A
// replay from further back than that starts from the physics as it stands,
// as replays did before the world could be restored, which is right only
// to the millimetre.
const rewindDepth = 64

// rewindSlot is the physics as it stood after one tick.
type rewindSlot struct {
	tick uint32
	st   physics.State
}

// keepPhysics saves the physics after the tick just run, on an end that
// replays (one its Authority tells where the bodies it does not simulate
// are: a client), so that a replay can start from it. A replayed tick
// overwrites what its first run saved.
func (g *Game) keepPhysics() {
	if !g.auth.Told() {
		return
	}
	if g.rewind == nil {
		g.rewind = make([]rewindSlot, rewindDepth)
	}
	s := &g.rewind[g.tick%rewindDepth]
	s.tick = g.tick
	g.phys.Save(&s.st)
}

// restorePhysics puts the physics back as it stood after tick, when this
// end kept it, and then the components of what this end simulates (the
// server's answer, which a correction has put there) into their bodies. It
// reports whether it had the tick.
//
// A replay's ticks must compute what they would have, had the server's
// answer been known then: box2d carries from each step to the next the
// impulses it found for every contact and joint and the state of its
// broad phase, and a replay started from the physics as it stands now
// starts from the end of the mistaken prediction.
func (g *Game) restorePhysics(tick uint32) bool {
	if g.rewind == nil {
		return false
	}
	s := &g.rewind[tick%rewindDepth]
	if s.tick != tick || !s.st.Saved() {
		return false
	}
	g.phys.Restore(&s.st)
	g.phys.Gather((*world)(g))
	return true
}

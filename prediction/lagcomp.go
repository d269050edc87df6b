package prediction

import (
	"math"

	"vkm/internal/entity"
)

// RewindTicks is how many ticks of every player's pose a server keeps for
// lag compensation: 64, a second at 64 Hz and half of one at 128. A shot is
// judged against what its shooter saw, which is one round trip plus the
// interpolation delay behind the server; a player further behind than this
// is judged against the oldest pose kept, so someone on a very bad link
// cannot reach back arbitrarily far into the past.
const RewindTicks = 64

// PoseHistory is the server's record of where each player's root entity
// was at the end of each of the last RewindTicks ticks. It answers "where
// was p at server tick t (with a fraction)", which is what the client that
// fired was drawing.
//
// The zero value is empty and ready. A PoseHistory is not safe for
// concurrent use.
type PoseHistory struct {
	rings map[entity.ID]*poseRing
}

type poseRing struct {
	newest uint32
	n      int // how many ticks ending at newest are held (≤ RewindTicks)
	poses  [RewindTicks]entity.Transform
}

// Record keeps id's pose at the end of tick. Ticks are recorded in order;
// a tick that skips ahead leaves the ticks between holding the last pose
// known, and a tick recorded again replaces it.
func (h *PoseHistory) Record(tick uint32, id entity.ID, t entity.Transform) {
	if h.rings == nil {
		h.rings = map[entity.ID]*poseRing{}
	}
	r := h.rings[id]
	if r == nil {
		r = &poseRing{newest: tick, n: 1}
		r.poses[tick%RewindTicks] = t
		h.rings[id] = r
		return
	}
	if tick <= r.newest {
		if r.newest-tick < uint32(r.n) {
			r.poses[tick%RewindTicks] = t
		}
		return
	}
	gap := tick - r.newest
	if gap > RewindTicks {
		gap = RewindTicks
	}
	last := r.poses[r.newest%RewindTicks]
	for i := uint32(1); i < gap; i++ {
		r.poses[(tick-gap+i)%RewindTicks] = last
	}
	r.poses[tick%RewindTicks] = t
	r.newest = tick
	r.n = min(r.n+int(gap), RewindTicks)
}

// Forget drops id's history, when its player leaves.
func (h *PoseHistory) Forget(id entity.ID) { delete(h.rings, id) }

// Span returns the oldest and newest tick held for id.
func (h *PoseHistory) Span(id entity.ID) (oldest, newest uint32, ok bool) {
	r := h.rings[id]
	if r == nil {
		return 0, 0, false
	}
	return r.newest - uint32(r.n-1), r.newest, true
}

// At returns id's pose at tick (a whole tick plus a fraction), interpolated
// between the two recorded ticks around it, the angle along the shorter
// arc. A tick outside what is held is clamped to the oldest or the newest
// pose: a claim from before the history is judged against its start, one
// from the future against the present.
func (h *PoseHistory) At(id entity.ID, tick float64) (entity.Transform, bool) {
	r := h.rings[id]
	if r == nil {
		return entity.Transform{}, false
	}
	oldest := float64(r.newest) - float64(r.n-1)
	tick = math.Max(oldest, math.Min(float64(r.newest), tick))
	if math.IsNaN(tick) {
		tick = float64(r.newest)
	}
	whole := math.Floor(tick)
	frac := tick - whole
	a := r.poses[uint32(whole)%RewindTicks]
	if frac == 0 {
		return a, true
	}
	return Lerp(a, r.poses[(uint32(whole)+1)%RewindTicks], frac), true
}

// DrawnAt is the server tick a client was drawing when it made command seq,
// given that the packet whose newest command was newestSeq said it was
// drawing drawn: the client made one command a tick and its drawing clock
// advances a server tick a tick, so each command older than the newest was
// made one tick earlier in what it drew.
func DrawnAt(drawn float64, newestSeq, seq uint32) float64 {
	if seq >= newestSeq {
		return drawn
	}
	return drawn - float64(newestSeq-seq)
}

// DrawnTick splits a drawing time in server ticks into the whole tick and
// the 1/256ths a command packet carries.
func DrawnTick(t float64) (uint32, uint8) {
	if !(t > 0) {
		return 0, 0
	}
	if t >= math.MaxUint32 {
		return math.MaxUint32, 0
	}
	whole := math.Floor(t)
	return uint32(whole), uint8(math.Min(255, math.Floor((t-whole)*256)))
}

// Drawn is the inverse of DrawnTick.
func Drawn(whole uint32, frac uint8) float64 { return float64(whole) + float64(frac)/256 }

package prediction

import (
	"math"

	"vkm/internal/entity"
)

// PredictionWindow is how many consecutive client ticks a Predictions
// keeps: the same 256 as HistorySize, so a tick whose command the client
// still remembers also has its predicted outcome, and a snapshot judging a
// tick the commands can no longer replay finds no prediction either.
// Tuning constant.
const PredictionWindow = HistorySize

// CorrectionThreshold is the largest distance, in metres, between the
// predicted and the server's position of the own entity at which the
// prediction stands: 3 mm.
//
// The wire carries a position to the millimetre, so the server's answer is
// up to half a millimetre out on each axis before any simulation has
// differed at all, and two ends running the same physics still collect
// float noise in the last bits. A gap under 3 mm is that and nothing else.
// Closing it would mean re-running every tick since the judged one (about
// ten at a typical round trip) through behaviors, the controller and
// physics, to move the character by less than can be seen. The floor keeps
// that expensive path out of the common case.
const CorrectionThreshold = 0.003 // metres

// Distance returns the distance in metres between the positions of a and b.
// Angle and scale play no part.
func Distance(a, b entity.Transform) float64 {
	return math.Hypot(a.X-b.X, a.Y-b.Y)
}

// Agrees reports whether the server's transform of the own entity for a
// judged tick confirms what the client predicted for it: the positions are
// within CorrectionThreshold of each other.
//
// Only the position decides. It is what a wrong prediction shows as and
// what the player sees: a velocity or spin predicted wrong puts the body in
// the wrong place within a tick or two, and the next snapshot's position
// catches it then. The other fields would trip on the wire's own coarseness
// instead (a velocity travels to the centimetre a second), replaying on
// noise. When the position agrees, the held prediction of the own entity
// and of every leased body is put back as a whole; when it does not, the
// server's answer is taken for all of them and the ticks since are
// replayed. A non-finite position on either side never agrees.
func Agrees(predicted, server entity.Transform) bool {
	return Distance(predicted, server) <= CorrectionThreshold
}

// Predictions holds, per predicted client tick, the Transform and Rigidbody
// of every body the client predicted (its own entity and each leased body)
// as they stood after that tick ran. When a snapshot judges a tick, the
// client compares the server's answer against it and, if the prediction
// stands, puts these values back.
//
// It is a ring of PredictionWindow ticks indexed by tick modulo the window.
// A tick's slot is taken by the next Record for a tick that shares it, so a
// tick PredictionWindow or more behind the newest recorded one is gone: At
// reports false for it exactly as for a tick never recorded (or forgotten),
// and a caller that cannot find its prediction treats the tick as
// mispredicted and takes the server's answer. A Record always wins its
// slot, so a client whose tick counter restarts lower simply starts
// recording over.
//
// Each slot keeps its body list's storage when it is reused, so once every
// slot has held as many bodies as a tick records, Record does not allocate.
//
// The zero value is empty and ready to use. A Predictions is not safe for
// concurrent use.
type Predictions struct {
	ring [PredictionWindow]predictedTick
}

// predictedTick is one tick's slot in the ring.
type predictedTick struct {
	tick   uint32
	held   bool // the slot holds tick's bodies
	bodies []predictedBody
}

// predictedBody is one body's state after a predicted tick.
type predictedBody struct {
	id entity.ID
	t  entity.Transform
	rb entity.Rigidbody
}

// slot returns the slot tick maps to.
func (p *Predictions) slot(tick uint32) *predictedTick {
	return &p.ring[tick%PredictionWindow]
}

// Record stores t and rb as body id's state after client tick tick ran. A
// second Record of the same tick and body replaces the first (a replayed
// tick records over what was predicted before). The first Record of a tick
// drops whatever older tick held its slot.
func (p *Predictions) Record(tick uint32, id entity.ID, t entity.Transform, rb entity.Rigidbody) {
	s := p.slot(tick)
	if !s.held || s.tick != tick {
		s.tick, s.held, s.bodies = tick, true, s.bodies[:0]
	}
	for i := range s.bodies {
		if s.bodies[i].id == id {
			s.bodies[i].t, s.bodies[i].rb = t, rb
			return
		}
	}
	s.bodies = append(s.bodies, predictedBody{id: id, t: t, rb: rb})
}

// At returns body id's state recorded for tick, and false when there is
// none: the tick was never recorded, was forgotten, has left the window, or
// recorded other bodies only.
func (p *Predictions) At(tick uint32, id entity.ID) (entity.Transform, entity.Rigidbody, bool) {
	s := p.slot(tick)
	if !s.held || s.tick != tick {
		return entity.Transform{}, entity.Rigidbody{}, false
	}
	for i := range s.bodies {
		if s.bodies[i].id == id {
			return s.bodies[i].t, s.bodies[i].rb, true
		}
	}
	return entity.Transform{}, entity.Rigidbody{}, false
}

// Each calls fn for every body recorded for tick, in the order they were
// first recorded, and does nothing when the tick is not held. It is how a
// standing prediction puts every leased body back along with the own
// entity. fn must not call Record or Forget.
func (p *Predictions) Each(tick uint32, fn func(id entity.ID, t entity.Transform, rb entity.Rigidbody)) {
	s := p.slot(tick)
	if !s.held || s.tick != tick {
		return
	}
	for i := range s.bodies {
		fn(s.bodies[i].id, s.bodies[i].t, s.bodies[i].rb)
	}
}

// Forget drops every tick before before. A client calls it once a snapshot
// has judged a tick: nothing older can be judged again. Ticks compare as
// plain numbers, like command sequences; at 128 Hz a uint32 tick lasts 388
// days.
func (p *Predictions) Forget(before uint32) {
	for i := range p.ring {
		s := &p.ring[i]
		if s.held && s.tick < before {
			s.held, s.bodies = false, s.bodies[:0]
		}
	}
}

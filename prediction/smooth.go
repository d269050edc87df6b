package prediction

import (
	"math"

	"vkm/internal/entity"
	"vkm/wire"
)

// SmoothTimeConstant is the time constant, in seconds, of the exponential
// decay of a drawn correction offset: 1/15 s. A sixth of a second is two and
// a half time constants, by which 92% of a correction is gone; a 40 cm
// correction is under a millimetre after 0.4 s and dropped (see SmoothEpsilon)
// after about 0.55 s. Tuning constant.
//
// Exponential rather than linear to zero because it has no memory: an
// offset's next step depends only on the offset now, so a second correction
// arriving while the first is still decaying just adds to it, with no
// per-body timer to restart and no earlier residue suddenly sped up or
// slowed down. The body eases in, moving less each frame, instead of
// gliding at a constant speed and stopping dead. And exp(-a)·exp(-b) =
// exp(-(a+b)), so the curve is the same whatever the frame rate: two
// frames of dt/2 decay exactly as one frame of dt. Its tail never reaches
// zero, which SmoothEpsilon cuts off.
const SmoothTimeConstant = 1.0 / 15

// SmoothEpsilon is the size below which an offset is dropped: 0.1 mm, a
// tenth of the wire's position step, for each of dx and dy, and 1e-4 rad for
// the angle (0.1 mm at the end of a one-metre arm).
const (
	SmoothEpsilon      = 0.0001 // metres
	SmoothAngleEpsilon = 0.0001 // radians
)

// Smoother keeps, per predicted body, the offset between where a
// correction moved it and where it was about to be drawn, and adds that
// offset to the body's Transform only while it is drawn. The simulation
// takes a correction exactly and at once; the picture eases across it over
// about a sixth of a second, so a 40 cm correction is not seen as a
// teleport. Every body this end predicts (the own entity and each leased
// body) has its own offset, corrected by the same replay, so a character
// and the crate it leans on ease together; a lapsing lease handed back to
// interpolation is eased the same way.
//
// The zero value is empty and ready to use. A Smoother is not safe for
// concurrent use.
type Smoother struct {
	offsets []smoothOffset
	saved   []savedTransform // Draw's restore list, reused between frames
	drawing bool
}

// smoothOffset is one body's drawn offset.
type smoothOffset struct {
	id             entity.ID
	dx, dy, dangle float64
}

// savedTransform is a Transform as it stood before Draw added an offset.
type savedTransform struct {
	at *entity.Transform
	t  entity.Transform
}

// find returns the index of id's offset, or -1.
func (s *Smoother) find(id entity.ID) int {
	for i := range s.offsets {
		if s.offsets[i].id == id {
			return i
		}
	}
	return -1
}

// finite returns v, or 0 when v is NaN or infinite, so one bad transform
// cannot leave a body drawn at NaN for good.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// Correct records that a correction moved body id from before (where it was
// about to be drawn, offset included, or what the prediction said) to
// after (where the simulation now has it): before − after is added to id's
// offset, so the body is drawn where it was and eases toward where it is.
// The angle difference, and the summed angle offset, are wrapped to ±π so a
// body eases round the short way. A non-finite difference counts as zero.
func (s *Smoother) Correct(id entity.ID, before, after entity.Transform) {
	dx := finite(before.X - after.X)
	dy := finite(before.Y - after.Y)
	da := wire.Wrap(before.Angle - after.Angle)
	if dx == 0 && dy == 0 && da == 0 {
		return
	}
	i := s.find(id)
	if i < 0 {
		s.offsets = append(s.offsets, smoothOffset{id: id})
		i = len(s.offsets) - 1
	}
	o := &s.offsets[i]
	o.dx += dx
	o.dy += dy
	o.dangle = wire.Wrap(o.dangle + da)
	if o.small() {
		s.remove(i)
	}
}

// Advance decays every offset by dt seconds of drawing time (see
// SmoothTimeConstant) and drops those that have become smaller than
// SmoothEpsilon. A dt that is not positive and finite does nothing.
func (s *Smoother) Advance(dt float64) {
	if !(dt > 0) || math.IsInf(dt, 0) {
		return
	}
	k := math.Exp(-dt / SmoothTimeConstant)
	for i := 0; i < len(s.offsets); {
		o := &s.offsets[i]
		o.dx *= k
		o.dy *= k
		o.dangle *= k
		if o.small() {
			s.remove(i)
			continue
		}
		i++
	}
}

// small reports whether every part of o is below its epsilon.
func (o *smoothOffset) small() bool {
	return math.Abs(o.dx) < SmoothEpsilon && math.Abs(o.dy) < SmoothEpsilon &&
		math.Abs(o.dangle) < SmoothAngleEpsilon
}

// remove deletes offset i, keeping the order of the rest.
func (s *Smoother) remove(i int) {
	s.offsets = append(s.offsets[:i], s.offsets[i+1:]...)
}

// Offset returns body id's current offset, zero when it has none.
func (s *Smoother) Offset(id entity.ID) (dx, dy, dangle float64) {
	if i := s.find(id); i >= 0 {
		o := s.offsets[i]
		return o.dx, o.dy, o.dangle
	}
	return 0, 0, 0
}

// Len returns how many bodies have an offset.
func (s *Smoother) Len() int { return len(s.offsets) }

// Draw is the drawing scope. It adds each body's offset to the Transform
// that get returns for it (a body get returns nil for, one despawned say,
// is skipped), calls draw, and then puts every Transform back exactly as it
// was, bit for bit: the values are saved and restored, not the offset
// subtracted, since x + d − d need not be x in floating point. The restore
// is deferred, so it happens even when draw panics.
//
// It takes the drawing as a callback rather than being a pair of calls
// (apply, then remove) because a pair is a rule that the next edit between
// the two calls (an early return, an error path, a panic) can break
// without anyone noticing, and then a tick simulates from a position chosen
// to look nice. Here the offset is in the component for exactly the one
// scope and cannot be left there.
//
// Draw is not reentrant: a Draw called from inside draw only calls its own
// draw, since the offsets are already applied. draw may call Correct and
// Advance; the Transforms are still restored as they were on entry.
func (s *Smoother) Draw(get func(entity.ID) *entity.Transform, draw func()) {
	if s.drawing {
		draw()
		return
	}
	s.drawing = true
	defer s.restore()
	for _, o := range s.offsets {
		t := get(o.id)
		if t == nil {
			continue
		}
		s.saved = append(s.saved, savedTransform{at: t, t: *t})
		t.X += o.dx
		t.Y += o.dy
		t.Angle += o.dangle
	}
	draw()
}

// restore puts back every Transform Draw changed, newest first (so a body
// get returned twice ends as it started), and forgets the pointers.
func (s *Smoother) restore() {
	for i := len(s.saved) - 1; i >= 0; i-- {
		*s.saved[i].at = s.saved[i].t
	}
	clear(s.saved)
	s.saved = s.saved[:0]
	s.drawing = false
}

// Drop forgets body id's offset, so it is drawn where it is: a teleport
// snaps rather than easing an earlier correction's residue across the jump.
func (s *Smoother) Drop(id entity.ID) {
	if i := s.find(id); i >= 0 {
		s.remove(i)
	}
}

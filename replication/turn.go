package replication

import (
	"errors"
	"math"
	"math/bits"

	"vkm/internal/entity"
	"vkm/wire"
)

// The state of a moving body: its position, velocity and turn (angle,
// scale and angular velocity), the part of a moving-body entry after its
// occupant.
//
// A body that moves and turns smoothly goes on about as its velocity and
// turn carry it, and the client still holds what it heard of it a few
// ticks ago. So the server names a state the client holds (by the tick of
// the snapshot that carried it: one the connection has acknowledged, no
// more than MaxTurnGap ticks back) and sends each part of the state now
// as the difference from what that state predicts:
//
//   - the velocity's turn, its direction's change a tick (in steps of
//     2^−16 rad), less the state's;
//   - the velocity, less the state's velocity turned by that turn over
//     the gap;
//   - the position, less the state's moved by the velocity now turned
//     back tick by tick over the gap (a body moves each tick by the
//     velocity it ends the tick with, which is how the physics steps);
//   - the angular velocity, less the state's;
//   - the angle, less the state's turned by the angular velocity now.
//
// A body on a circle at a steady speed (the velocity turning steadily)
// that spins steadily is predicted to within a step of each: seven codes
// of one to three bits, where its position and velocity alone took 76.
//
// The form, after the moving bit (see the package doc):
//
//	0                      whole: x 22, y 22, vx 16, vy 16, then
//	                       0 (still: angle 0, scale 1, angular velocity
//	                       0) or 1 and angle 18, scaled 1 [scale
//	                       float32], spinning 1 [angular velocity 20];
//	                       the velocity's turn is 0
//	1 0                    predicted from the state the header's gap names
//	1 1, gap−1 (4)         predicted from the state gap ticks back
//
// then, when predicted, seven differences in codes, each zigzagged (0,
// −1, 1, −2 … as 0, 1, 2, 3 …) and written as an order-0 Exp-Golomb code
// (v + 1 in binary, its width less one in zeros first: 0 is the one bit
// 1): the velocity's turn, vx, vy, x, y, the angular velocity, the angle.
// The scale is the named state's.
//
// Both ends keep, per slot, the last TurnStates states the entries of its
// occupant carried (a Transform and a Rigidbody both: an entry in the
// general form leaves the velocity's turn 0), by the snapshot's tick; the
// server keeps the one each connection has acknowledged last. A state at
// most MaxTurnGap ticks back is always among a client's last TurnStates:
// a snapshot carries one tick, and MaxTurnGap ≤ TurnStates.
const (
	// MaxTurnGap is the furthest back, in ticks, a predicted state's
	// reference may be: 250 ms at 64 Hz, a round trip's worth of
	// acknowledgement lag.
	MaxTurnGap = 16
	// TurnStates is how many states a client keeps per slot.
	TurnStates = 16

	turnGapBits = 4
	// vtShift sets the step of the velocity's turn: 2^−vtShift rad a
	// tick, so a turn over a gap is exact in float64.
	vtShift = 16
	// maxVT bounds the velocity's turn: half a radian a tick. A faster
	// one is sent as the fastest, and its prediction is poor.
	maxVT = 1<<(vtShift-1) - 1
	// wholeMotionBits is the whole form's position and velocity, its
	// form bit included; maxMotionBits bounds the whole form, turn and
	// all, which is the widest a moving entry's state is ever sent.
	wholeMotionBits = 1 + 2*22 + 2*16
	maxMotionBits   = wholeMotionBits + 1 + 18 + 1 + 32 + 1 + 20
	// minMotionBits is the narrowest: predicted from the header's gap,
	// every difference 0.
	minMotionBits = 2 + predictedCodes
	// predictedCodes is how many differences a predicted state sends.
	predictedCodes = 7
)

// velPerPos is how many position steps a velocity step moves a body in
// one second (wire.Velocity.Step / wire.Position.Step).
const velPerPos = 10

// angleHalf is the code count either side of the angle's zero; the codes
// n and −n for n = angleHalf both mean ±π, and a state keeps +π.
const (
	angleHalf   = 1<<17 - 1
	anglePeriod = 2 * angleHalf
)

// turn is what a state holds of a moving body, in codes: the angle as a
// signed count of steps in (−angleHalf, angleHalf], the angular
// velocity's code, the scale as it travels, and the position, velocity
// and velocity's turn as signed counts of their steps. (A velocity and a
// velocity's turn fit 16 bits: the server keeps one of these per slot per
// connection, and a client 16 per slot.)
type turn struct {
	n      int32
	av     uint32
	scale  float32
	x, y   int32
	vx, vy int16
	vt     int16
}

// turnOf returns the turn of an angle, scale and angular velocity as the
// wire carries them, at the origin and at rest.
func turnOf(angle, scale, av float64) turn {
	n := angleSteps(angle)
	if n == -angleHalf {
		n = angleHalf
	}
	return turn{n: n, av: uint32(wire.AngularVelocity.Encode(av)), scale: float32(scale)}
}

// steps returns v's code under q as a signed count of steps: what
// q.Encode(v) says, less its zero's code.
func steps(q wire.Signed, v float64) int32 { return rounded(v/q.Step, stepsHalf(q)) }

// transformSteps returns t's position and angle as signed step counts:
// the codes wire.Position and wire.Angle give them (codeOf, and the
// angle's plus angleHalf + 1), less their zeros' codes; a NaN, an
// infinity and a value beyond range as the quantisers have them. The
// angle is not turned from −π to π, as turnOf turns it.
func transformSteps(t entity.Transform) (x, y, n int32) {
	return steps(wire.Position, t.X), steps(wire.Position, t.Y), angleSteps(t.Angle)
}

// stepsHalf returns the largest step count q says either way.
func stepsHalf(q wire.Signed) int64 { return 1<<(q.Bits-1) - 1 }

// codeOf returns the code of a signed step count under q.
func codeOf(q wire.Signed, n int32) uint64 { return uint64(int64(n) + stepsHalf(q) + 1) }

// placed returns t at the position and velocity of x, y, vx, vy (in
// metres and metres a second, as the wire carries them).
func (t turn) placed(x, y, vx, vy float64) turn {
	t.x, t.y = steps(wire.Position, x), steps(wire.Position, y)
	t.vx, t.vy = int16(steps(wire.Velocity, vx)), int16(steps(wire.Velocity, vy))
	return t
}

// still reports whether t is angle 0, scale 1 and no spin.
func (t turn) still() bool { return t.n == 0 && t.scale == 1 && uint64(t.av) == angularZero }

func (t turn) angle() float64 { return wire.Angle.Decode(uint64(int64(t.n) + angleHalf + 1)) }

func (t turn) angularVelocity() float64 { return wire.AngularVelocity.Decode(uint64(t.av)) }

// predictAngle returns where the angle of ref stands after gap ticks at
// angular velocity av (a code), at tickRate ticks a second, as a signed
// step count. Both ends must get the same: each product and quotient is
// rounded on its own (an explicit conversion forbids a fused multiply-add).
func predictAngle(ref turn, av uint32, gap int, tickRate float64) int32 {
	by := float64(wire.AngularVelocity.Decode(uint64(av)) * float64(gap))
	by = float64(by / tickRate)
	a := float64(ref.angle() + by)
	return angleSteps(a)
}

// angleSteps returns a's code under wire.Angle as a signed count of steps:
// what wire.Angle.Encode(a) says, less its zero's code.
func angleSteps(a float64) int32 {
	if !(a >= -math.Pi && a <= math.Pi) { // what wire.Wrap leaves as it is
		a = wire.Wrap(a)
	}
	return rounded(a/wire.Angle.Step, angleHalf)
}

// sincos returns the sine and cosine of a, the same on every end: only
// additions, products and quotients each rounded on its own (no library
// function, whose last bit may differ between builds), a halved until
// within ±1/2, a Taylor series, then the angle doubled back. Within
// 10^−8 for the turns a state predicts (a few parts in 10^15 within
// ±1/2, the usual), and 0, 1 beyond ±64 rad.
func sincos(a float64) (s, c float64) {
	if !(a >= -64 && a <= 64) {
		return 0, 1 // beyond any turn a state predicts (NaN included)
	}
	k := 0
	for a > 0.5 || a < -0.5 {
		a /= 2 // exact
		k++
	}
	a2 := float64(a * a)
	s = float64(a2 / 72)
	s = float64(a2 / 42 * float64(1-s))
	s = float64(a2 / 20 * float64(1-s))
	s = float64(a2 / 6 * float64(1-s))
	s = float64(a * float64(1-s))
	c = float64(a2 / 56)
	c = float64(a2 / 30 * float64(1-c))
	c = float64(a2 / 12 * float64(1-c))
	c = float64(a2 / 2 * float64(1-c))
	c = float64(1 - c)
	for range k {
		s, c = float64(2*float64(s*c)), float64(float64(c*c)-float64(s*s))
	}
	return s, c
}

// rounded returns v rounded to a whole count of steps, half away from
// zero as math.Round does, within ±lim (NaN as 0), so that no conversion
// meets a value it cannot hold. lim is below 2^31.
func rounded(v float64, lim int64) int32 {
	switch l := float64(lim); {
	case v != v:
		return 0
	case v >= l:
		return int32(lim)
	case v <= -l:
		return int32(-lim)
	}
	// |v| < 2^31: its whole part converts exactly, and what is left is
	// exact too.
	i := int32(v)
	if f := v - float64(i); f >= 0.5 {
		i++
	} else if f <= -0.5 {
		i--
	}
	return i
}

// vtTurn returns the sine and cosine of vt's turn a tick (0 and 1 for
// none). The turn back, −vt, has the sine negated and the same cosine, to
// the bit: sincos is odd in its sine and even in its cosine, every step.
func vtTurn(vt int32) (s, c float64) {
	if vt == 0 {
		return 0, 1
	}
	return sincos(float64(vt) / (1 << vtShift))
}

// predictVelocity returns ref's velocity turned by vt (steps of 2^−vtShift
// rad a tick) over gap ticks, in velocity steps. s1 and c1 are vtTurn(vt)
// when gap is 1 (unused otherwise).
func predictVelocity(ref turn, vt int32, gap int, s1, c1 float64) (vx, vy int32) {
	if vt == 0 {
		return int32(ref.vx), int32(ref.vy)
	}
	s, c := s1, c1
	if gap != 1 {
		s, c = sincos(float64(int64(vt)*int64(gap)) / (1 << vtShift))
	}
	x, y := float64(ref.vx), float64(ref.vy)
	lim := stepsHalf(wire.Velocity)
	return rounded(float64(x*c)-float64(y*s), lim), rounded(float64(x*s)+float64(y*c), lim)
}

// predictPosition returns where ref's position stands after gap ticks of
// a body that ends them at velocity vx, vy (steps) and whose velocity
// turned by vt a tick: each tick it moved by that tick's velocity, the
// velocity now turned back by vt for each tick since, at tickRate ticks a
// second. In position steps. s1 and c1 are vtTurn(vt).
func predictPosition(ref turn, vx, vy, vt int32, gap int, tickRate, s1, c1 float64) (x, y int32) {
	var sx, sy float64
	if vt == 0 {
		sx, sy = float64(int64(vx)*int64(gap)), float64(int64(vy)*int64(gap))
	} else {
		s, c := -s1, c1 // the turn back
		ux, uy := float64(vx), float64(vy)
		for range gap {
			sx, sy = float64(sx+ux), float64(sy+uy)
			ux, uy = float64(ux*c)-float64(uy*s), float64(ux*s)+float64(uy*c)
		}
	}
	dx := float64(float64(sx*velPerPos) / tickRate)
	dy := float64(float64(sy*velPerPos) / tickRate)
	lim := stepsHalf(wire.Position)
	return rounded(float64(float64(ref.x)+dx), lim), rounded(float64(float64(ref.y)+dy), lim)
}

// velocityTurn returns how far the direction of a velocity turned a tick
// from (px, py) to (vx, vy) over ticks ticks, in radians, smoothed with
// the turn before, prev. A body a script steers along a curve by setting
// the velocity that carries it from where it stands to its next point
// turns its velocity by the curve's turn and by up to a hundredth of a
// radian of noise a tick (where it stands carries the physics' rounding,
// and its velocity each tick corrects it), which would change the turn a
// state predicts with every few ticks. A turn more than vturnJump from
// prev starts again from itself; 0 when either velocity is zero. The
// server works it out from the velocities it simulates and sends it, so
// it need not be the same on every end.
func velocityTurn(px, py, prev, vx, vy float64, ticks uint32) float64 {
	if ticks == 0 || px == 0 && py == 0 || vx == 0 && vy == 0 {
		return 0
	}
	a := math.Atan2(px*vy-py*vx, px*vx+py*vy) / float64(ticks)
	if !(math.Abs(a-prev) <= vturnJump) {
		return a
	}
	return prev + (a-prev)/vturnSmooth
}

// vturnJump and vturnSmooth tune velocityTurn: a jump in radians a tick,
// and the weight a new measure has against the smoothed turn (1/16).
const (
	vturnJump   = 0.05
	vturnSmooth = 16
)

// wrapSteps brings a difference of angle steps into (−period/2, period/2].
func wrapSteps(d int64) int64 {
	d %= anglePeriod
	if d > anglePeriod/2 {
		d -= anglePeriod
	} else if d <= -anglePeriod/2 {
		d += anglePeriod
	}
	return d
}

// normalSteps brings an angle step count into (−angleHalf, angleHalf].
func normalSteps(n int64) int32 {
	for n > angleHalf {
		n -= anglePeriod
	}
	for n <= -angleHalf {
		n += anglePeriod
	}
	return int32(n)
}

func zigzag(d int64) uint64 { return uint64(d<<1) ^ uint64(d>>63) }

func unzigzag(v uint64) int64 { return int64(v>>1) ^ -int64(v&1) }

// golombBits returns the width of v's order-0 Exp-Golomb code.
func golombBits(v uint64) int { return 2*(bits.Len64(v+1)-1) + 1 }

// maxGolombZeros bounds a code's leading zeros: no difference a predicted
// state carries needs more than 40 bits.
const maxGolombZeros = 40

func readGolomb(r *wire.Reader) (uint64, error) {
	k := 0
	for {
		one, err := r.ReadBool()
		if err != nil {
			return 0, err
		}
		if one {
			break
		}
		if k++; k > maxGolombZeros {
			return 0, errors.New("replication: motion: a difference code too long")
		}
	}
	low, err := r.ReadBits(k)
	if err != nil {
		return 0, err
	}
	return (1<<k | low) - 1, nil
}

// turnRef is a state of a slot's occupant the connection has
// acknowledged, at the tick of the snapshot that carried it.
type turnRef struct {
	tick uint32
	t    turn
	ok   bool
}

// turnChoice is how a moving body's state goes for one connection: its
// form, the gap of a predicted one, the velocity's turn it predicts with,
// and its width; a predicted one also holds its bits as they go on the
// wire (form, gap and codes, least significant first).
type turnChoice struct {
	form   uint8 // turnWhole, turnHeader, turnGap
	gap    uint8
	vt     int16
	bits   int32
	packed [packedWords]uint64
}

// packedWords holds a predicted state: one is sent only when narrower
// than the whole form, which is at most maxMotionBits + 1.
const packedWords = (maxMotionBits + 1 + 63) / 64

const (
	turnWhole = iota
	turnHeader
	turnGap
)

// wholeTurnBits is the width of t in the whole form, its position and
// velocity included.
func wholeTurnBits(t turn) int {
	n := wholeMotionBits + 1
	if t.still() {
		return n
	}
	n += int(wire.Angle.Bits) + 1 + 1
	if t.scale != 1 {
		n += 32
	}
	if uint64(t.av) != angularZero {
		n += int(wire.AngularVelocity.Bits)
	}
	return n
}

// predictTurn sets the last two of a prediction's seven codes (the angular
// velocity's and the angle's, which the velocity's turn does not bear on)
// and returns their width.
func predictTurn(codes *[predictedCodes]uint64, now, ref *turn, gap int, tickRate float64) int {
	codes[5] = zigzag(int64(now.av) - int64(ref.av))
	codes[6] = zigzag(wrapSteps(int64(now.n) - int64(predictAngle(*ref, now.av, gap, tickRate))))
	return golombBits(codes[5]) + golombBits(codes[6])
}

// predictMotion sets the first five of a prediction's seven codes (those the
// velocity's turn bears on) and returns their width. Once the velocity's
// turn and velocity's codes, with a bit for each of the position's, are
// wider than most, it stops there and returns that width: a bound the
// caller has no use for past most.
func predictMotion(codes *[predictedCodes]uint64, now, ref *turn, vt int32, gap int, tickRate float64, most int) int {
	codes[0] = zigzag(int64(vt) - int64(ref.vt))
	var s1, c1 float64 // vtTurn(vt), once needed
	if gap == 1 {
		s1, c1 = vtTurn(vt)
	}
	pvx, pvy := predictVelocity(*ref, vt, gap, s1, c1)
	codes[1] = zigzag(int64(now.vx) - int64(pvx))
	codes[2] = zigzag(int64(now.vy) - int64(pvy))
	n := golombBits(codes[0]) + golombBits(codes[1]) + golombBits(codes[2])
	if n+2 > most {
		return n + 2
	}
	if gap != 1 {
		s1, c1 = vtTurn(vt)
	}
	px, py := predictPosition(*ref, int32(now.vx), int32(now.vy), vt, gap, tickRate, s1, c1)
	codes[3] = zigzag(int64(now.x) - int64(px))
	codes[4] = zigzag(int64(now.y) - int64(py))
	return n + golombBits(codes[3]) + golombBits(codes[4])
}

// chooseTurn picks the narrowest form of now (whose vt is the velocity's
// turn the server measured) for a connection whose acknowledged state of
// the occupant is ref (none when !ref.ok), in a snapshot of tick whose
// header names gap hdr (0: none). A prediction goes with the state's own
// velocity turn, unless the measured one predicts the rest narrower by
// enough to pay for the change within switchHorizon entries: a body
// turning steadily then pays for its turn once and keeps it, and one
// whose turn wanders a little does not pay for every wander.
func (p *Peer) chooseTurn(now turn, ref turnRef, tick uint32, hdr int) turnChoice {
	c := turnChoice{form: turnWhole, bits: int32(wholeTurnBits(now))}
	gap := int(int32(tick - ref.tick))
	if !ref.ok || p.tickRate <= 0 || gap < 1 || gap > MaxTurnGap || ref.t.scale != now.scale {
		return c
	}
	form, head := uint8(turnHeader), 2
	if gap != hdr {
		form, head = turnGap, 2+turnGapBits
	}
	var codes [predictedCodes]uint64
	old := predictMotion(&codes, &now, &ref.t, int32(ref.t.vt), gap, p.tickRate, math.MaxInt)
	n := old + predictTurn(&codes, &now, &ref.t, gap, p.tickRate)
	vt := ref.t.vt
	if now.vt != vt {
		// The measured turn pays when the velocity's and position's four
		// codes with it are narrower than with the state's (old less the
		// state's turn's one bit) by at least the change's width less one
		// over switchHorizon, rounded up (at least a bit: the change is
		// never under 3 bits). Its codes are worked out no further than
		// can still pay, and not at all when four bits would not.
		change := golombBits(zigzag(int64(now.vt) - int64(ref.t.vt)))
		gain := (change - 1 + switchHorizon - 1) / switchHorizon
		if most := old - 1 - gain; most >= 4 {
			var mc [predictedCodes]uint64
			if mn := predictMotion(&mc, &now, &ref.t, int32(now.vt), gap, p.tickRate, most+change); mn-change <= most {
				mc[5], mc[6] = codes[5], codes[6]
				codes, n, vt = mc, n-old+mn, now.vt
			}
		}
	}
	if n += head; n < int(c.bits) {
		c = turnChoice{form: form, gap: uint8(gap), vt: vt, bits: int32(n)}
		c.pack(&codes)
	}
	return c
}

// switchHorizon is how many entries a change of the velocity's turn a
// state predicts with is reckoned to serve: the change is made when the
// bits it saves this entry, so many times, pay for it. Tuning constant.
const switchHorizon = 4

// pack lays out c's bits as writeTurn sends them: the form, its gap, and
// the codes, each code's zeros, its one and its low bits in one value
// (a code under 2^31 − 1, as they all are but for a wild guess, takes
// one step).
func (c *turnChoice) pack(codes *[predictedCodes]uint64) {
	// acc holds the bits from word i on, pos of them (under 64).
	acc, pos, i := uint64(0b01), uint(2), 0 // 1, 0 in the order read
	if c.form == turnGap {
		acc, pos = 0b11|uint64(c.gap-1)<<2, 2+turnGapBits
	}
	put := func(v uint64, n uint) { // n < 64, v no wider (shifts masked: all under 64)
		acc |= v << (pos & 63)
		if pos += n; pos >= 64 {
			c.packed[i] = acc
			i++
			pos -= 64
			acc = 0
			if pos > 0 {
				acc = v >> ((n - pos) & 63) // what did not fit
			}
		}
	}
	for _, v := range codes {
		m := v + 1
		k := uint(bits.Len64(m)-1) & 63
		if k >= 32 {
			put(0, k)                       // the zeros
			put((m<<1|1)&(1<<(k+1)-1), k+1) // the one, then m's low k bits
			continue
		}
		// k zeros, the one, m's low k bits: m's top bit, shifted to 2k+1,
		// dropped.
		put((m<<1|1)<<k^1<<(2*k+1), 2*k+1)
	}
	if pos > 0 {
		c.packed[i] = acc
	}
}

// sent returns the state a connection is left with by now sent as c:
// the velocity's turn is the one c predicted with, 0 when whole.
func (c *turnChoice) sent(now turn) turn {
	now.vt = c.vt
	return now
}

// writeTurn writes a moving body's state as chooseTurn chose it.
func writeTurn(w *wire.Writer, c *turnChoice, now turn) {
	if c.form != turnWhole {
		n := int(c.bits)
		for i := 0; n > 0; i++ {
			k := min(n, 64)
			w.WriteBits(c.packed[i], k)
			n -= k
		}
		return
	}
	w.WriteBool(false)
	w.WriteBits(codeOf(wire.Position, now.x), int(wire.Position.Bits))
	w.WriteBits(codeOf(wire.Position, now.y), int(wire.Position.Bits))
	w.WriteBits(codeOf(wire.Velocity, int32(now.vx)), int(wire.Velocity.Bits))
	w.WriteBits(codeOf(wire.Velocity, int32(now.vy)), int(wire.Velocity.Bits))
	w.WriteBool(!now.still())
	if now.still() {
		return
	}
	w.WriteBits(uint64(int64(now.n)+angleHalf+1), int(wire.Angle.Bits))
	w.WriteBool(now.scale != 1)
	if now.scale != 1 {
		w.WriteFloat32(now.scale)
	}
	w.WriteBool(uint64(now.av) != angularZero)
	if uint64(now.av) != angularZero {
		w.WriteBits(uint64(now.av), int(wire.AngularVelocity.Bits))
	}
}

// turnRing is what a client keeps of one slot's states: the last
// TurnStates states of its occupant, by tick.
type turnRing struct {
	id    entity.ID // the occupant
	ticks [TurnStates]uint32
	turns [TurnStates]turn
	n     int // states held
	head  int // the newest
}

func (tr *turnRing) push(tick uint32, t turn) {
	if tr.n > 0 && tr.ticks[tr.head] == tick {
		tr.turns[tr.head] = t
		return
	}
	tr.head = (tr.head + 1) % TurnStates
	tr.ticks[tr.head], tr.turns[tr.head] = tick, t
	tr.n = min(tr.n+1, TurnStates)
}

func (tr *turnRing) at(tick uint32) (turn, bool) {
	for i := range tr.n {
		j := (tr.head - i + TurnStates) % TurnStates
		if tr.ticks[j] == tick {
			return tr.turns[j], true
		}
	}
	return turn{}, false
}

// readTurn reads a moving body's state in a snapshot whose header named
// gap hdr (0: none), resolving a predicted one against ring (nil: the
// client holds no state of the occupant).
func (sn *Snapshot) readTurn(r *wire.Reader, ring *turnRing, hdr int) (turn, error) {
	if pred, _ := r.ReadBool(); !pred {
		return readWholeTurn(r)
	}
	gap := hdr
	if own, _ := r.ReadBool(); own {
		g, _ := r.ReadBits(turnGapBits)
		gap = int(g) + 1
	} else if r.Err() == nil && hdr == 0 {
		return turn{}, errors.New("replication: motion: predicted from the header's gap, which it has not")
	}
	if r.Err() != nil {
		return turn{}, r.Err()
	}
	if sn.TickRate <= 0 {
		return turn{}, errors.New("replication: motion: predicted with no tick rate set")
	}
	var ref turn
	ok := false
	if ring != nil {
		ref, ok = ring.at(sn.Tick - uint32(gap))
	}
	if !ok {
		return turn{}, errors.New("replication: motion: predicted from a state this end does not hold")
	}
	var d [predictedCodes]int64
	for i := range d {
		v, err := readGolomb(r)
		if err != nil {
			return turn{}, err
		}
		d[i] = unzigzag(v)
	}
	t := turn{scale: ref.scale}
	vt := int64(ref.vt) + d[0]
	if vt < -maxVT || vt > maxVT {
		return turn{}, errors.New("replication: motion: velocity turn out of range")
	}
	t.vt = int16(vt)
	s1, c1 := vtTurn(int32(t.vt))
	pvx, pvy := predictVelocity(ref, int32(t.vt), gap, s1, c1)
	vlim, plim := stepsHalf(wire.Velocity), stepsHalf(wire.Position)
	vx, vy := int64(pvx)+d[1], int64(pvy)+d[2]
	if vx < -vlim || vx > vlim || vy < -vlim || vy > vlim {
		return turn{}, errors.New("replication: motion: velocity out of range")
	}
	t.vx, t.vy = int16(vx), int16(vy)
	rate := float64(sn.TickRate)
	px, py := predictPosition(ref, int32(t.vx), int32(t.vy), int32(t.vt), gap, rate, s1, c1)
	x, y := int64(px)+d[3], int64(py)+d[4]
	if x < -plim || x > plim || y < -plim || y > plim {
		return turn{}, errors.New("replication: motion: position out of range")
	}
	t.x, t.y = int32(x), int32(y)
	av := int64(ref.av) + d[5]
	if av < 1 || av > 1<<wire.AngularVelocity.Bits-1 {
		return turn{}, errors.New("replication: motion: angular velocity out of range")
	}
	t.av = uint32(av)
	t.n = normalSteps(int64(predictAngle(ref, t.av, gap, rate)) + d[6])
	if t.vx == 0 && t.vy == 0 && uint64(t.av) == angularZero {
		return turn{}, errors.New("replication: motion: predicted at zero velocity")
	}
	return t, nil
}

// readWholeTurn reads the whole form after its first bit.
func readWholeTurn(r *wire.Reader) (turn, error) {
	var c [4]uint64
	for i, q := range [4]wire.Signed{wire.Position, wire.Position, wire.Velocity, wire.Velocity} {
		c[i], _ = r.ReadBits(int(q.Bits))
		if r.Err() == nil && c[i] == 0 {
			return turn{}, errors.New("replication: motion: unused code 0")
		}
	}
	t := turn{scale: 1, av: uint32(angularZero)}
	t.x, t.y = int32(int64(c[0])-stepsHalf(wire.Position)-1), int32(int64(c[1])-stepsHalf(wire.Position)-1)
	t.vx, t.vy = int16(int64(c[2])-stepsHalf(wire.Velocity)-1), int16(int64(c[3])-stepsHalf(wire.Velocity)-1)
	if turned, _ := r.ReadBool(); turned {
		a, _ := r.ReadBits(int(wire.Angle.Bits))
		if r.Err() == nil && a == 0 {
			return turn{}, errors.New("replication: motion: unused angle code 0")
		}
		t.n = normalSteps(int64(a) - (angleHalf + 1)) // −π kept as +π
		if scaled, _ := r.ReadBool(); scaled {
			f, _ := r.ReadFloat32()
			t.scale = float32(wire.NetScale(float64(f)))
		}
		if spinning, _ := r.ReadBool(); spinning {
			av, _ := r.ReadBits(int(wire.AngularVelocity.Bits))
			if r.Err() == nil && (av == 0 || av == angularZero) {
				return turn{}, errors.New("replication: motion: spinning at zero or at the unused code")
			}
			t.av = uint32(av)
		}
		if r.Err() == nil && t.still() {
			return turn{}, errors.New("replication: motion: turned, and still")
		}
	}
	if r.Err() != nil {
		return turn{}, r.Err()
	}
	if t.vx == 0 && t.vy == 0 && uint64(t.av) == angularZero {
		return turn{}, errors.New("replication: rigidbody: moving at zero velocity")
	}
	return t, nil
}

// turnSlots is how many slots of choices of a moving body's state a
// round keeps for its connections (see Round.turnFor): one for each gap a
// predicted state may have, whether or not the header names it. The
// connections of a round hold a body's state from a few ticks back, many
// of them the same state; a connection whose state of that gap differs
// (its velocity's turn, say) adds its choice to the slot, and the next
// connection looks through the slot's newest turnChain choices: on a
// watched busy world the connections' states of one gap alternate, and
// one choice a slot was worked out again for most of them.
const turnSlots = 2 * MaxTurnGap

// turnMemo is one choice of a moving body's state a round keeps: the
// choice c a connection got for the state ref it had acknowledged, in a
// snapshot whose header named ref's gap or not (atHdr), at tickRate.
type turnMemo struct {
	ref      turnRef
	atHdr    bool
	tickRate float64
	c        turnChoice
	// next is the memo kept before this one in the same slot (index in
	// turns + 1; 0: none).
	next int32
}

// turnChain is how many choices of one slot turnFor looks through.
// Tuning constant.
const turnChain = 4

// sameRef reports whether a and b are the same state, every field to the
// bit (a scale too, whatever == says of a zero's sign or a NaN).
func sameRef(a, b *turnRef) bool {
	return a.tick == b.tick && a.ok == b.ok && a.t.n == b.t.n && a.t.av == b.t.av &&
		math.Float32bits(a.t.scale) == math.Float32bits(b.t.scale) &&
		a.t.x == b.t.x && a.t.y == b.t.y && a.t.vx == b.t.vx && a.t.vy == b.t.vy && a.t.vt == b.t.vt
}

// turnFor sets *c to p.chooseTurn(e.turn, *ref, r.tick, hdr), worked
// out once a round for every connection that holds the same state of e.
// The choice depends on nothing else: the body's state now and the
// round's tick are the round's, and of the header's gap only whether it
// is ref's, so two connections that acknowledged the same state get the
// same bits, and the second is given the first's.
func (r *Round) turnFor(c *turnChoice, p *Peer, e *roundEnt, ref *turnRef, hdr int) {
	gap := int(int32(r.tick - ref.tick))
	if gap < 1 || gap > MaxTurnGap {
		*c = p.chooseTurn(e.turn, *ref, r.tick, hdr) // whole, at once
		return
	}
	atHdr := gap == hdr
	slot := 2 * (gap - 1)
	if atHdr {
		slot++
	}
	r.turnMu.Lock()
	r.turnsAsked++
	if e.turnAt == 0 {
		r.turnIdx = append(r.turnIdx, [turnSlots]int32{})
		e.turnAt = int32(len(r.turnIdx))
	}
	at := &r.turnIdx[e.turnAt-1][slot]
	for i, k := *at-1, 0; i >= 0 && k < turnChain; k++ {
		m := &r.turns[i]
		if m.atHdr == atHdr && m.tickRate == p.tickRate && sameRef(&m.ref, ref) {
			*c = m.c
			r.turnMu.Unlock()
			return
		}
		i = m.next - 1
	}
	r.turnMu.Unlock()
	*c = p.chooseTurn(e.turn, *ref, r.tick, hdr)
	r.turnMu.Lock()
	r.turnsMade++
	at = &r.turnIdx[e.turnAt-1][slot]
	r.turns = append(r.turns, turnMemo{ref: *ref, atHdr: atHdr, tickRate: p.tickRate, c: *c, next: *at})
	*at = int32(len(r.turns))
	r.turnMu.Unlock()
}

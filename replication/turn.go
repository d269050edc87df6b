package replication

import (
	"errors"
	"math/bits"

	"vkm/internal/entity"
	"vkm/wire"
)

// The turn of a moving body: its angle, scale and angular velocity, the
// part of a moving-body entry after its position and velocity.
//
// A body that turns smoothly turns by about its angular velocity times
// the time since the client last heard of it, and the client still holds
// what it heard then. So the server names a state the client holds (by
// the tick of the snapshot that carried it: one the connection has
// acknowledged, no more than MaxTurnGap ticks back) and sends the
// difference between the angular velocity now and then, and between the
// angle now and the one that state's angle turned by the angular velocity
// now would give. For a body spinning steadily both are zero or a step, a
// few bits where the whole angle and angular velocity took 38. A body
// that does not turn at all, the commonest, says so in one bit.
//
// The form, after the position and velocity (see the package doc):
//
//	0                      still: angle 0, scale 1, angular velocity 0
//	1 0                    predicted from the state the header's gap names
//	1 1 0, gap−1 (4)       predicted from the state gap ticks back
//	1 1 1                  whole: angle 18, scaled 1 [scale float32],
//	                       spinning 1 [angular velocity 20]
//
// then, when predicted, the angular velocity's difference in codes and the
// angle's residual in codes, each zigzagged (0, −1, 1, −2 … as 0, 1, 2,
// 3 …) and written as an order-0 Exp-Golomb code (v + 1 in binary, its
// width less one in zeros first: 0 is the one bit 1). The scale is the
// named state's.
//
// Both ends keep, per slot, the turn of the last TurnStates states the
// entries of its occupant carried (a Transform and a Rigidbody both), by
// the snapshot's tick; the server keeps the one each connection has
// acknowledged last. A state at most MaxTurnGap ticks back is always
// among a client's last TurnStates: a snapshot carries one tick, and
// MaxTurnGap ≤ TurnStates.
const (
	// MaxTurnGap is the furthest back, in ticks, a predicted turn's state
	// may be: 250 ms at 64 Hz, a round trip's worth of acknowledgement lag.
	MaxTurnGap = 16
	// TurnStates is how many states a client keeps per slot.
	TurnStates = 16

	turnGapBits = 4
	// maxTurnBits bounds the turn part: the whole form at its widest.
	maxTurnBits = 3 + 18 + 1 + 32 + 1 + 20
)

// angleHalf is the code count either side of the angle's zero; the codes
// n and −n for n = angleHalf both mean ±π, and a state keeps +π.
const (
	angleHalf   = 1<<17 - 1
	anglePeriod = 2 * angleHalf
)

// turn is what a state holds of a body's turn, in codes: the angle as a
// signed count of steps in (−angleHalf, angleHalf], the angular
// velocity's code, and the scale as it travels.
type turn struct {
	n     int32
	av    uint32
	scale float32
}

// turnOf returns the turn of an angle, scale and angular velocity as the
// wire carries them.
func turnOf(angle, scale, av float64) turn {
	n := int32(int64(wire.Angle.Encode(angle)) - (angleHalf + 1))
	if n == -angleHalf {
		n = angleHalf
	}
	return turn{n: n, av: uint32(wire.AngularVelocity.Encode(av)), scale: float32(scale)}
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
	return int32(int64(wire.Angle.Encode(a)) - (angleHalf + 1))
}

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

func writeGolomb(w *wire.Writer, v uint64) {
	m := v + 1
	k := bits.Len64(m) - 1
	for range k {
		w.WriteBool(false)
	}
	w.WriteBool(true)
	if k > 0 {
		w.WriteBits(m&(1<<k-1), k)
	}
}

// maxGolombZeros bounds a code's leading zeros: no difference the turn
// form carries needs more than 40 bits.
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
			return 0, errors.New("replication: turn: a difference code too long")
		}
	}
	low, err := r.ReadBits(k)
	if err != nil {
		return 0, err
	}
	return (1<<k | low) - 1, nil
}

// turnRef is a state of a slot's occupant the connection has
// acknowledged: its turn, at the tick of the snapshot that carried it.
type turnRef struct {
	tick uint32
	t    turn
	ok   bool
}

// turnChoice is how a turn goes for one connection: its form, the gap
// of a predicted one, its two codes, and its width.
type turnChoice struct {
	form     uint8 // turnStill, turnHeader, turnGap, turnWhole
	gap      int
	dav, res uint64
	bits     int
}

const (
	turnStill = iota
	turnHeader
	turnGap
	turnWhole
)

// wholeTurnBits is the width of t in the whole form.
func wholeTurnBits(t turn) int {
	n := 3 + int(wire.Angle.Bits) + 1 + 1
	if t.scale != 1 {
		n += 32
	}
	if uint64(t.av) != angularZero {
		n += int(wire.AngularVelocity.Bits)
	}
	return n
}

// chooseTurn picks the narrowest form of now for a connection whose
// acknowledged state of the occupant is ref (none when !ref.ok), in a
// snapshot of tick whose header names gap hdr (0: none).
func (p *Peer) chooseTurn(now turn, ref turnRef, tick uint32, hdr int) turnChoice {
	if now.still() {
		return turnChoice{form: turnStill, bits: 1}
	}
	c := turnChoice{form: turnWhole, bits: wholeTurnBits(now)}
	gap := int(int32(tick - ref.tick))
	if !ref.ok || p.tickRate <= 0 || gap < 1 || gap > MaxTurnGap || ref.t.scale != now.scale {
		return c
	}
	pred := predictAngle(ref.t, now.av, gap, p.tickRate)
	dav := zigzag(int64(now.av) - int64(ref.t.av))
	res := zigzag(wrapSteps(int64(now.n) - int64(pred)))
	n := golombBits(dav) + golombBits(res)
	form := turnHeader
	if gap == hdr {
		n += 2
	} else {
		form = turnGap
		n += 3 + turnGapBits
	}
	if n < c.bits {
		c = turnChoice{form: uint8(form), gap: gap, dav: dav, res: res, bits: n}
	}
	return c
}

// writeTurn writes a turn as chooseTurn chose it.
func writeTurn(w *wire.Writer, c turnChoice, now turn) {
	switch c.form {
	case turnStill:
		w.WriteBool(false)
		return
	case turnHeader:
		w.WriteBool(true)
		w.WriteBool(false)
	case turnGap:
		w.WriteBits(0b011, 3) // 1, 1, 0 in the order read
		w.WriteBits(uint64(c.gap-1), turnGapBits)
	default:
		w.WriteBits(0b111, 3)
		w.WriteBits(uint64(int64(now.n)+angleHalf+1), int(wire.Angle.Bits))
		w.WriteBool(now.scale != 1)
		if now.scale != 1 {
			w.WriteFloat32(now.scale)
		}
		w.WriteBool(uint64(now.av) != angularZero)
		if uint64(now.av) != angularZero {
			w.WriteBits(uint64(now.av), int(wire.AngularVelocity.Bits))
		}
		return
	}
	writeGolomb(w, c.dav)
	writeGolomb(w, c.res)
}

// turnRing is what a client keeps of one slot's turns: the last
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

// readTurn reads a moving body's turn in a snapshot whose header named
// gap hdr (0: none), resolving a predicted one against ring (nil: the
// client holds no state of the occupant).
func (sn *Snapshot) readTurn(r *wire.Reader, ring *turnRing, hdr int) (turn, error) {
	if on, _ := r.ReadBool(); !on {
		return turn{scale: 1, av: uint32(angularZero)}, r.Err()
	}
	gap := hdr
	if ref, _ := r.ReadBool(); ref {
		if pred, _ := r.ReadBool(); pred {
			return readWholeTurn(r)
		}
		g, _ := r.ReadBits(turnGapBits)
		gap = int(g) + 1
	} else if hdr == 0 {
		return turn{}, errors.New("replication: turn: predicted from the header's gap, which it has not")
	}
	if r.Err() != nil {
		return turn{}, r.Err()
	}
	if sn.TickRate <= 0 {
		return turn{}, errors.New("replication: turn: predicted with no tick rate set")
	}
	var ref turn
	ok := false
	if ring != nil {
		ref, ok = ring.at(sn.Tick - uint32(gap))
	}
	if !ok {
		return turn{}, errors.New("replication: turn: predicted from a state this end does not hold")
	}
	dav, err := readGolomb(r)
	if err != nil {
		return turn{}, err
	}
	res, err := readGolomb(r)
	if err != nil {
		return turn{}, err
	}
	av := int64(ref.av) + unzigzag(dav)
	if av < 1 || av > 1<<wire.AngularVelocity.Bits-1 {
		return turn{}, errors.New("replication: turn: angular velocity out of range")
	}
	t := turn{av: uint32(av), scale: ref.scale}
	pred := predictAngle(ref, t.av, gap, float64(sn.TickRate))
	t.n = normalSteps(int64(pred) + unzigzag(res))
	if t.still() {
		return t, errors.New("replication: turn: predicted still")
	}
	return t, nil
}

func readWholeTurn(r *wire.Reader) (turn, error) {
	c, _ := r.ReadBits(int(wire.Angle.Bits))
	if r.Err() == nil && c == 0 {
		return turn{}, errors.New("replication: turn: unused angle code 0")
	}
	t := turn{n: normalSteps(int64(c) - (angleHalf + 1)), scale: 1} // −π kept as +π
	if scaled, _ := r.ReadBool(); scaled {
		f, _ := r.ReadFloat32()
		t.scale = float32(wire.NetScale(float64(f)))
	}
	t.av = uint32(angularZero)
	if spinning, _ := r.ReadBool(); spinning {
		av, _ := r.ReadBits(int(wire.AngularVelocity.Bits))
		if r.Err() == nil && (av == 0 || av == angularZero) {
			return turn{}, errors.New("replication: turn: spinning at zero or at the unused code")
		}
		t.av = uint32(av)
	}
	if r.Err() != nil {
		return turn{}, r.Err()
	}
	if t.still() {
		return turn{}, errors.New("replication: turn: whole, and still")
	}
	return t, nil
}

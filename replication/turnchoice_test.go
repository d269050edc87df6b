package replication

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"vkm/wire"
)

// choiceCodes reads back the seven codes of a predicted choice.
func choiceCodes(t testing.TB, c *turnChoice) (codes [predictedCodes]uint64) {
	t.Helper()
	var w wire.Writer
	writeTurn(&w, c, turn{})
	r := wire.NewReader(w.Bytes())
	head := 2
	if c.form == turnGap {
		head += turnGapBits
	}
	if _, err := r.ReadBits(head); err != nil {
		t.Fatal(err)
	}
	for i := range codes {
		v, err := readGolomb(r)
		if err != nil {
			t.Fatalf("code %d of %+v: %v", i, c, err)
		}
		codes[i] = v
	}
	return codes
}

// The state's choice as it was first written, each part worked out
// directly (wire's quantisers, math.Round, a sine and cosine for every
// turn, every difference computed, each code written in three steps): the
// reference the choice must match to the bit.

func refRounded(v float64, lim int64) int32 {
	r := math.Round(v)
	switch {
	case r != r:
		return 0
	case r > float64(lim):
		return int32(lim)
	case r < -float64(lim):
		return int32(-lim)
	}
	return int32(r)
}

func refPredictVelocity(ref turn, vt int32, gap int) (vx, vy int32) {
	if vt == 0 {
		return int32(ref.vx), int32(ref.vy)
	}
	s, c := sincos(float64(int64(vt)*int64(gap)) / (1 << vtShift))
	x, y := float64(ref.vx), float64(ref.vy)
	lim := stepsHalf(wire.Velocity)
	return refRounded(float64(x*c)-float64(y*s), lim), refRounded(float64(x*s)+float64(y*c), lim)
}

func refPredictPosition(ref turn, vx, vy, vt int32, gap int, tickRate float64) (x, y int32) {
	var sx, sy float64
	if vt == 0 {
		sx, sy = float64(int64(vx)*int64(gap)), float64(int64(vy)*int64(gap))
	} else {
		s, c := sincos(-float64(vt) / (1 << vtShift))
		ux, uy := float64(vx), float64(vy)
		for range gap {
			sx, sy = float64(sx+ux), float64(sy+uy)
			ux, uy = float64(ux*c)-float64(uy*s), float64(ux*s)+float64(uy*c)
		}
	}
	dx := float64(float64(sx*velPerPos) / tickRate)
	dy := float64(float64(sy*velPerPos) / tickRate)
	lim := stepsHalf(wire.Position)
	return refRounded(float64(float64(ref.x)+dx), lim), refRounded(float64(float64(ref.y)+dy), lim)
}

func refPredictAngle(ref turn, av uint32, gap int, tickRate float64) int32 {
	by := float64(wire.AngularVelocity.Decode(uint64(av)) * float64(gap))
	by = float64(by / tickRate)
	a := float64(ref.angle() + by)
	return int32(int64(wire.Angle.Encode(a)) - (angleHalf + 1))
}

func refPredictedMotion(now, ref turn, vt int32, gap int, tickRate float64) (codes [predictedCodes]uint64, n int) {
	codes[0] = zigzag(int64(vt) - int64(ref.vt))
	pvx, pvy := refPredictVelocity(ref, vt, gap)
	codes[1] = zigzag(int64(now.vx) - int64(pvx))
	codes[2] = zigzag(int64(now.vy) - int64(pvy))
	px, py := refPredictPosition(ref, int32(now.vx), int32(now.vy), vt, gap, tickRate)
	codes[3] = zigzag(int64(now.x) - int64(px))
	codes[4] = zigzag(int64(now.y) - int64(py))
	for _, c := range codes[:5] {
		n += golombBits(c)
	}
	return codes, n
}

func refPredicted(now, ref turn, vt int32, gap int, tickRate float64) (codes [predictedCodes]uint64, n int) {
	codes, n = refPredictedMotion(now, ref, vt, gap, tickRate)
	codes[5] = zigzag(int64(now.av) - int64(ref.av))
	codes[6] = zigzag(wrapSteps(int64(now.n) - int64(refPredictAngle(ref, now.av, gap, tickRate))))
	return codes, n + golombBits(codes[5]) + golombBits(codes[6])
}

// refChooseTurn returns the reference choice's bits as written, its width
// and the velocity's turn it predicted with.
func refChooseTurn(now turn, ref turnRef, tick uint32, hdr int, tickRate float64) (out []byte, width int, vt int16) {
	var w wire.Writer
	gap := int(int32(tick - ref.tick))
	if !ref.ok || tickRate <= 0 || gap < 1 || gap > MaxTurnGap || ref.t.scale != now.scale {
		writeTurn(&w, &turnChoice{form: turnWhole}, now)
		return w.Bytes(), w.Len(), 0
	}
	form, head := uint8(turnHeader), 2
	if gap != hdr {
		form, head = turnGap, 2+turnGapBits
	}
	codes, n := refPredicted(now, ref.t, int32(ref.t.vt), gap, tickRate)
	vt = ref.t.vt
	if now.vt != vt {
		old := 0
		for _, c := range codes[:5] {
			old += golombBits(c)
		}
		change := golombBits(zigzag(int64(now.vt) - int64(ref.t.vt)))
		if most := old - predictedCodes + 2; most > 0 && most*switchHorizon >= change-1 {
			mc, mn := refPredictedMotion(now, ref.t, int32(now.vt), gap, tickRate)
			if gain := (old - 1) - (mn - change); gain > 0 && gain*switchHorizon >= change-1 {
				mc[5], mc[6] = codes[5], codes[6]
				codes, n, vt = mc, n-old+mn, now.vt
			}
		}
	}
	if n+head >= wholeTurnBits(now) {
		writeTurn(&w, &turnChoice{form: turnWhole}, now)
		return w.Bytes(), w.Len(), 0
	}
	if form == turnHeader {
		w.WriteBits(0b01, 2)
	} else {
		w.WriteBits(0b11, 2)
		w.WriteBits(uint64(gap-1), turnGapBits)
	}
	for _, v := range codes {
		m := v + 1
		k := bits.Len64(m) - 1
		if k > 0 {
			w.WriteBits(0, k)
		}
		w.WriteBool(true)
		if k > 0 {
			w.WriteBits(m&(1<<k-1), k)
		}
	}
	return w.Bytes(), w.Len(), vt
}

// TestChooseTurnMatchesReference chooses and writes seeded random states
// against states a few ticks older (bodies on curves, turning or not,
// their measured turn near the state's or far from it, a few wild ones
// near the quantisers' ends) and compares every choice's bits, width and
// velocity's turn with the reference's: the choice's shortcuts (a sine
// and cosine shared between the velocity and the position, a bound that
// stops the measured turn's trial early, codes laid out as they are
// chosen) change no bit. It prints how often each path was taken.
func TestChooseTurnMatchesReference(t *testing.T) {
	const seed = 33
	rng := rand.New(rand.NewPCG(seed, 0))
	p := newPeer(testSchema(t))
	p.SetTickRate(harnessTickRate)
	rate := float64(harnessTickRate)
	const tick = 5000
	var whole, switched, kept, gapForm int
	for i := range 200000 {
		wild := i%50 == 0
		ang, av := (rng.Float64()*2-1)*math.Pi, (rng.Float64()*2-1)*3
		scale := 1.0
		if i%97 == 0 {
			scale = 2
		}
		x, y := (rng.Float64()*2-1)*100, (rng.Float64()*2-1)*100
		speed := rng.Float64() * 10
		dir := rng.Float64() * 2 * math.Pi
		ref := turnOf(ang, scale, av).placed(x, y, speed*math.Cos(dir), speed*math.Sin(dir))
		ref.vt = int16(rng.IntN(2001) - 1000)
		if i%3 == 0 {
			ref.vt = 0
		}
		gap := 1 + rng.IntN(MaxTurnGap+1) // one past the furthest, now and then
		if i%4 != 0 {
			gap = 1 + rng.IntN(3)
		}
		// Where the body is now: carried on by its velocity turning by
		// about the state's turn, with some noise.
		turnA := float64(ref.vt)/(1<<vtShift) + rng.NormFloat64()*0.003
		vx, vy := speed*math.Cos(dir), speed*math.Sin(dir)
		for range gap {
			s, c := math.Sincos(turnA)
			vx, vy = vx*c-vy*s, vx*s+vy*c
			x, y = x+vx/rate, y+vy/rate
		}
		vx += rng.NormFloat64() * 0.02
		vy += rng.NormFloat64() * 0.02
		av2 := av
		if i%5 == 0 {
			av2 += rng.NormFloat64() * 0.01
		}
		now := turnOf(ang+av2*float64(gap)/rate+rng.NormFloat64()*1e-4, scale, av2).placed(x, y, vx, vy)
		now.vt = int16(math.Round((turnA + rng.NormFloat64()*0.002) * (1 << vtShift)))
		if i%7 == 0 {
			now.vt = ref.vt
		}
		if wild {
			now = turnOf(rng.Float64()*7-3.5, scale, rng.Float64()*500-250).placed(rng.Float64()*4200-2100, rng.Float64()*4200-2100, rng.Float64()*700-350, rng.Float64()*700-350)
			now.vt = int16(rng.IntN(2*maxVT+1) - maxVT)
		}
		hdr := gap
		if i%6 == 0 {
			hdr = rng.IntN(MaxTurnGap + 1)
		}
		tr := turnRef{tick: tick - uint32(gap), t: ref, ok: i%101 != 0}
		want, wantBits, wantVT := refChooseTurn(now, tr, tick, hdr, rate)
		c := p.chooseTurn(now, tr, tick, hdr)
		var w wire.Writer
		writeTurn(&w, &c, now)
		if w.Len() != wantBits || int(c.bits) != wantBits || string(w.Bytes()) != string(want) || c.vt != wantVT {
			t.Fatalf("seed %d, case %d: %+v from %+v (gap %d, header %d): %d bits (planned %d), turn %d, %x; want %d, %d, %x",
				seed, i, now, ref, gap, hdr, w.Len(), c.bits, c.vt, w.Bytes(), wantBits, wantVT, want)
		}
		switch {
		case c.form == turnWhole:
			whole++
		case c.vt != ref.vt:
			switched++
		default:
			kept++
		}
		if c.form == turnGap {
			gapForm++
		}
	}
	t.Logf("seed %d: %d whole, %d predicted with the measured turn, %d with the state's, %d with a gap of their own",
		seed, whole, switched, kept, gapForm)
	if whole == 0 || switched == 0 || kept == 0 || gapForm == 0 {
		t.Fatal("a path untried")
	}
}

// TestTurnBackIsNegatedSine: the turn back a tick, sincos(−vt), is
// sincos(vt) with its sine negated, to the bit, for every velocity turn;
// and over a gap of one the velocity's turn is the tick's.
func TestTurnBackIsNegatedSine(t *testing.T) {
	for vt := -maxVT; vt <= maxVT; vt++ {
		s, c := vtTurn(int32(vt))
		bs, bc := sincos(-float64(vt) / (1 << vtShift))
		gs, gc := sincos(float64(int64(vt)*1) / (1 << vtShift))
		if vt == 0 {
			bs, bc, gs, gc = 0, 1, 0, 1
		}
		if math.Float64bits(-s) != math.Float64bits(bs) && !(s == 0 && bs == 0) || c != bc || s != gs || c != gc {
			t.Fatalf("vt %d: sincos %g, %g; back %g, %g; over a gap of one %g, %g", vt, s, c, bs, bc, gs, gc)
		}
	}
}

// TestRoundedMatchesRound: rounded and the step counts it makes agree with
// math.Round and wire's quantisers at halves, at the ends, past them and
// for seeded random values.
func TestRoundedMatchesRound(t *testing.T) {
	const seed = 7
	rng := rand.New(rand.NewPCG(seed, 0))
	vals := []float64{0, math.Copysign(0, -1), 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994,
		math.Nextafter(0.5, 0), 1<<21 - 1.5, 1<<21 - 0.5, 1<<21 - 1, 1<<21 + 0.5, -(1<<21 - 0.5), 1 << 40, -1 << 40,
		math.Inf(1), math.Inf(-1), math.NaN(), 32767.5, -32767.5, 32766.5, 3 * math.Pi, -3 * math.Pi, math.Pi, -math.Pi}
	for range 100000 {
		vals = append(vals, (rng.Float64()*2-1)*math.Pow(2, float64(rng.IntN(25))), float64(rng.IntN(1<<23)-1<<22)/2)
	}
	for _, v := range vals {
		for _, lim := range []int64{angleHalf, stepsHalf(wire.Position), stepsHalf(wire.Velocity), maxVT} {
			if got, want := rounded(v, lim), refRounded(v, lim); got != want {
				t.Fatalf("seed %d: rounded(%v, %d) = %d, want %d", seed, v, lim, got, want)
			}
		}
		for _, q := range []wire.Signed{wire.Position, wire.Velocity, wire.AngularVelocity} {
			if got, want := steps(q, v*q.Step), int32(int64(q.Encode(v*q.Step))-stepsHalf(q)-1); got != want {
				t.Fatalf("seed %d: steps(%v) = %d, want %d", seed, v*q.Step, got, want)
			}
		}
		a := v * wire.Angle.Step
		if got, want := angleSteps(a), int32(int64(wire.Angle.Encode(a))-(angleHalf+1)); got != want {
			t.Fatalf("seed %d: angleSteps(%v) = %d, want %d", seed, a, got, want)
		}
	}
}

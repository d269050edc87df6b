package replication

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"vkm/internal/entity"
	"vkm/wire"
)

// TestWriteIDMatchesVarints: writeID, which packs an occupant into one
// word where it fits, writes the bits of the slot's and the generation's
// varints one group at a time, at every alignment, and idBits is their
// width, for group boundaries, the largest values and random ones; and
// packID packs what writeID writes, and entryPrefix gives from it the
// bits an entry's first part is written with, fresh or not, moving or
// not, or says they do not fit a word.
func TestWriteIDMatchesVarints(t *testing.T) {
	vals := []uint32{0, 1, 2, 7, 8, 63, 64, 127, 128, 129, 500, 1<<14 - 1, 1 << 14, 1<<21 - 1, 1 << 21,
		1<<24 - 1, 1 << 28, math.MaxUint32 - 1, math.MaxUint32}
	rng := rand.New(rand.NewPCG(5, 0))
	for range 200 {
		vals = append(vals, rng.Uint32()>>rng.IntN(32))
	}
	for _, slot := range vals {
		for _, gen := range vals {
			id := entity.ID{Slot: slot, Gen: gen}
			lead := int(slot+gen) % 11
			var got, want wire.Writer
			got.WriteBits(0x5a5, lead)
			want.WriteBits(0x5a5, lead)
			writeID(&got, id)
			writeVarint(&want, id.Slot, slotGroup)
			writeVarint(&want, id.Gen, genGroup)
			if got.Len() != want.Len() || !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("%v after %d bits: %d bits %x; the varints give %d bits %x", id, lead, got.Len(), got.Bytes(), want.Len(), want.Bytes())
			}
			if n := got.Len() - lead; n != idBits(id) {
				t.Fatalf("%v: %d bits written, idBits says %d", id, n, idBits(id))
			}
			for k := range 4 {
				fresh, moving := k&1 != 0, k&2 != 0
				var pre wire.Writer
				pre.WriteBool(true)
				writeID(&pre, id)
				pre.WriteBool(fresh)
				pre.WriteBool(moving)
				idw, idn := packID(id)
				if idn != idBits(id) {
					t.Fatalf("%v: packed in %d bits, idBits says %d", id, idn, idBits(id))
				}
				word, n := entryPrefix(idw, idn, fresh, moving)
				if pre.Len() > 64 {
					if n != 0 {
						t.Fatalf("%v: a prefix of %d bits said to fit a word in %d", id, pre.Len(), n)
					}
					continue
				}
				var w wire.Writer
				w.WriteBits(word, n)
				if n != pre.Len() || !bytes.Equal(w.Bytes(), pre.Bytes()) {
					t.Fatalf("%v fresh %v moving %v: prefix %d bits %x; written, %d bits %x", id, fresh, moving, n, w.Bytes(), pre.Len(), pre.Bytes())
				}
			}
		}
	}
}

// TestEngineWritesMatchFieldByField: writeTransform and writeRigidbody,
// which gather their fields into as few writes as fit a word, write the
// bits the fields written one by one give, at every alignment: turned or
// not, scaled or not, moving, spinning or at rest, awake or asleep, at
// the quantisers' limits and beyond.
func TestEngineWritesMatchFieldByField(t *testing.T) {
	oldTransform := func(w *wire.Writer, t entity.Transform) {
		wire.Position.Write(w, t.X)
		wire.Position.Write(w, t.Y)
		angle := wire.Angle.Encode(t.Angle)
		s := wire.NetScale(t.Scale)
		turned := angle != angleZero || s != 1
		w.WriteBool(turned)
		if !turned {
			return
		}
		w.WriteBits(angle, int(wire.Angle.Bits))
		if s == 1 {
			w.WriteBool(false)
			return
		}
		w.WriteBool(true)
		w.WriteFloat32(float32(s))
	}
	oldRigidbody := func(w *wire.Writer, b entity.Rigidbody) {
		vx, vy := wire.Velocity.Encode(b.VX), wire.Velocity.Encode(b.VY)
		av := wire.AngularVelocity.Encode(b.AngularVelocity)
		moving := vx != velocityZero || vy != velocityZero || av != angularZero
		w.WriteBool(moving)
		if moving {
			w.WriteBits(vx, int(wire.Velocity.Bits))
			w.WriteBits(vy, int(wire.Velocity.Bits))
			w.WriteBool(av != angularZero)
			if av != angularZero {
				w.WriteBits(av, int(wire.AngularVelocity.Bits))
			}
			return
		}
		w.WriteBool(b.Awake)
	}
	rng := rand.New(rand.NewPCG(17, 0))
	pick := func(q wire.Signed) float64 {
		switch rng.IntN(6) {
		case 0:
			return 0
		case 1:
			return q.Max() * 2
		case 2:
			return -q.Max() * 2
		case 3:
			return q.Step / 3
		}
		return (rng.Float64()*2 - 1) * q.Max()
	}
	for i := range 20000 {
		lead := i % 13
		tr := entity.Transform{X: pick(wire.Position), Y: pick(wire.Position), Angle: pick(wire.Angle.Signed), Scale: 1}
		if rng.IntN(3) == 0 {
			tr.Scale = []float64{0.5, 2, -1, 1e9, math.NaN()}[rng.IntN(5)]
		}
		rb := entity.Rigidbody{VX: pick(wire.Velocity), VY: pick(wire.Velocity), AngularVelocity: pick(wire.AngularVelocity), Awake: rng.IntN(2) == 0}
		var got, want wire.Writer
		got.ResetOwned(nil)
		got.WriteBits(uint64(i), lead)
		want.WriteBits(uint64(i), lead)
		writeTransform(&got, tr)
		oldTransform(&want, tr)
		writeRigidbody(&got, rb)
		oldRigidbody(&want, rb)
		if got.Len() != want.Len() || !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%+v %+v after %d bits: %d bits %x; field by field %d bits %x", tr, rb, lead, got.Len(), got.Bytes(), want.Len(), want.Bytes())
		}
	}
}

// TestStepsAreCodes: the step counts a round keeps in a body's turn
// (steps, angleSteps) are the codes the quantisers give, less their
// zeros', so the round writes a Transform and a Rigidbody from them:
// for NaN, infinities, values beyond range, angles at and past ±π and
// random values.
func TestStepsAreCodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 0))
	edges := func(q wire.Signed) []float64 {
		m := q.Max()
		vs := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), m, -m, m + q.Step/2, -m - q.Step/2,
			2 * m, -2 * m, q.Step / 2, -q.Step / 2, 1.5 * q.Step, -1.5 * q.Step, math.Pi, -math.Pi, math.Nextafter(math.Pi, 4), 7, -7}
		for range 20000 {
			vs = append(vs, (rng.Float64()*2.2-1.1)*m, (rng.Float64()*2-1)*20)
		}
		return vs
	}
	for _, q := range []wire.Signed{wire.Position, wire.Velocity} {
		for _, v := range edges(q) {
			if got, want := codeOf(q, steps(q, v)), q.Encode(v); got != want {
				t.Fatalf("%+v, %v: steps give code %d, Encode %d", q, v, got, want)
			}
		}
	}
	for _, a := range edges(wire.Angle.Signed) {
		tr := entity.Transform{X: a, Y: -a, Angle: a}
		x, y, n := transformSteps(tr)
		if got, want := uint64(int64(n)+angleHalf+1), wire.Angle.Encode(a); got != want {
			t.Fatalf("angle %v: steps give code %d, Encode %d", a, got, want)
		}
		if codeOf(wire.Position, x) != wire.Position.Encode(a) || codeOf(wire.Position, y) != wire.Position.Encode(-a) {
			t.Fatalf("position %v: steps %d, %d", a, x, y)
		}
	}
}

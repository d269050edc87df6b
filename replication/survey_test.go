package replication

import (
	"testing"

	"vkm/internal/entity"
)

// The works seal did in passes of their own over an entity's components
// before survey did them in one, kept as survey's reference.

// bodyMoving reports whether e's Rigidbody is moving (its first bit, as
// writeRigidbody put it).
func (r *Round) bodyMoving(e *roundEnt) bool {
	c := r.comp(e, TypeRigidbody)
	return c != nil && c.nbits > 0 && r.data[c.off]&1 == 1
}

// bare works out roundEnt.bare for e, a described entity.
func (r *Round) bare(e *roundEnt) bool {
	if !e.moving || e.end-e.first < 2 {
		return false
	}
	cs := r.comps[e.first:e.end]
	if cs[0].typ != TypeTransform || cs[1].typ != TypeRigidbody || cs[0].ver != r.n || cs[1].ver != r.n {
		return false
	}
	for i := range cs[2:] {
		if cs[2+i].ver == r.n {
			return false
		}
	}
	return true
}

// newsBits returns, when a component e puts on the wire has a version this
// round made, a lower bound on the width of any entry for e: the bits of
// those components and the least framing of an entry (its continuation
// bit, the occupant, the fresh and moving bits). It returns 0 when no such
// component changed: whether e has news then depends on the baseline.
func (r *Round) newsBits(e *roundEnt) int {
	n, news := 0, false
	for _, c := range r.comps[e.first:e.end] {
		if c.ver == r.n && (e.silence == Described || int(c.typ) == TypeNetSpawn) {
			n += int(c.nbits)
			news = true
		}
	}
	if !news {
		return 0
	}
	n += 3 + idBits(e.id) + EngineTypes
	if r.bodyMoving(e) {
		// A moving-body entry says less than its components' bits.
		n = min(n, 3+idBits(e.id)+minMotionBits)
	}
	return n
}

// deltaMask is the mask of e's types whose version this round made, and
// their count, as assembleDelta worked them out.
func (r *Round) deltaMask(e *roundEnt) (mask uint64, n int32) {
	for _, c := range r.comps[e.first:e.end] {
		if c.ver == r.n {
			mask |= 1 << c.typ
			n++
		}
	}
	return mask, n
}

// TestSurveyMatchesParts: survey, in one pass over an entity's
// components, finds what bodyMoving, newsBits, bare and the
// mask assembleDelta writes find in theirs, for every entity of 96
// rounds of a world of circling bodies, some with a NetSpawn or a Health
// that comes and goes, some still for a tick, stopped, replaced by a new
// occupant, static or in an instance.
func TestSurveyMatchesParts(t *testing.T) {
	const bodies = 40
	s := testSchema(t)
	w, step := circling(bodies)
	r := NewRound(s)
	for slot := uint32(3); slot <= bodies; slot += 3 {
		e := w.ents[slot]
		e.ns = &entity.NetSpawn{Prefab: "prefabs/spinner.toml", Pose: *e.t}
	}
	w.ents[17].silence, w.ents[23].silence = StaticBody, InInstance
	kinds := map[string]int{}
	for tick := 1; tick <= 96; tick++ {
		step(tick)
		for slot := uint32(1); slot <= bodies; slot++ {
			e := w.ents[slot]
			switch {
			case slot%5 == 0:
				if tick/8%2 == 0 {
					e.health = entity.Values{float64(50 + 10*(tick%8/4))}
				} else {
					e.health = nil
				}
			case slot%7 == 0 && tick%4 == 0:
				e.rb.VX, e.rb.VY, e.rb.AngularVelocity = 0, 0, 0
			case slot%13 == 0 && tick%24 == 12:
				rb, tr := *e.rb, *e.t
				n := w.spawn(slot, e.silence, tr.X)
				*n.t, n.rb, n.ns = tr, &rb, e.ns
			}
		}
		w.build(t, r, uint32(tick))
		r.seal()
		for k := range r.ents {
			e := &r.ents[k]
			moving, news := r.bodyMoving(e), int32(r.newsBits(e))
			bare := e.silence == Described && r.bare(e)
			if e.moving != moving || e.news != news || e.bare != bare {
				t.Fatalf("tick %d, %v (%v): surveyed moving %v, news %d, bare %v; the passes %v, %d, %v",
					tick, e.id, e.silence, e.moving, e.news, e.bare, moving, news, bare)
			}
			mask, n := r.deltaMask(e)
			if sv := r.survey(e); sv.mask != mask || sv.changed != n || sv.t != r.comp(e, TypeTransform) || sv.b != r.comp(e, TypeRigidbody) {
				t.Fatalf("tick %d, %v: surveyed mask %b of %d, %p %p; assembleDelta's %b of %d, %p %p",
					tick, e.id, sv.mask, sv.changed, sv.t, sv.b, mask, n, r.comp(e, TypeTransform), r.comp(e, TypeRigidbody))
			}
			switch {
			case bare:
				kinds["bare"]++
			case moving:
				kinds["moving"]++
			case news > 0:
				kinds["news"]++
			default:
				kinds["quiet"]++
			}
		}
	}
	if kinds["bare"] == 0 || kinds["moving"] == 0 || kinds["news"] == 0 || kinds["quiet"] == 0 {
		t.Fatalf("entities seen: %v; the world does not test every kind", kinds)
	}
	t.Logf("entities seen: %v", kinds)
}

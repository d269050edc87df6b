package session

import (
	"vkm/host/store"
	"vkm/internal/entity"
	"vkm/replication"
)

// compSet is a copy of one entity's project components: every field of
// every component it has, in type order. Its storage is kept when it is
// taken again, so a set reused tick after tick stops allocating once it
// has held the largest the entity has.
type compSet struct {
	vals []float64
	refs []compRef
}

// compRef places one component's fields in a compSet's values.
type compRef struct {
	typ    int
	off, n int
}

// take copies id's components as they stand in st.
func (s *compSet) take(st *store.Store, id entity.ID) {
	s.vals, s.refs = s.vals[:0], s.refs[:0]
	st.EachComponent(id, func(typ int, v entity.Values) {
		s.refs = append(s.refs, compRef{typ: typ, off: len(s.vals), n: len(v)})
		s.vals = append(s.vals, v...)
	})
}

// values returns typ's fields, or nil when the set has no such component.
func (s *compSet) values(typ int) []float64 {
	for _, r := range s.refs {
		if r.typ == typ {
			return s.vals[r.off : r.off+r.n]
		}
	}
	return nil
}

// set replaces typ's fields with v (the server's word on a component).
// A component of another length, or one the set lacks, is rebuilt at the
// end of the set.
func (s *compSet) set(typ int, v []float64) {
	for _, r := range s.refs {
		if r.typ == typ && r.n == len(v) {
			copy(s.vals[r.off:r.off+r.n], v)
			return
		}
	}
	s.remove(typ)
	s.refs = append(s.refs, compRef{typ: typ, off: len(s.vals), n: len(v)})
	s.vals = append(s.vals, v...)
}

// remove drops typ's component, if the set has it.
func (s *compSet) remove(typ int) {
	for i, r := range s.refs {
		if r.typ != typ {
			continue
		}
		s.vals = append(s.vals[:r.off], s.vals[r.off+r.n:]...)
		s.refs = append(s.refs[:i], s.refs[i+1:]...)
		for j := i; j < len(s.refs); j++ {
			s.refs[j].off -= r.n
		}
		return
	}
}

// put makes id's components in st exactly the set's: every field of each
// component it holds, and no component it does not.
func (s *compSet) put(st *store.Store, id entity.ID) {
	var extra [8]int
	drop := extra[:0]
	st.EachComponent(id, func(typ int, _ entity.Values) {
		if s.values(typ) == nil {
			drop = append(drop, typ)
		}
	})
	for _, typ := range drop {
		st.RemoveComponent(id, typ)
	}
	for _, r := range s.refs {
		copy(st.AddComponent(id, r.typ, r.n), s.vals[r.off:r.off+r.n])
	}
}

// compDiff is the first field in which a prediction and the server's word
// part.
type compDiff struct {
	typ, field int
	// by is how far apart the two values are; a component one side has
	// and the other lacks counts as 1.
	by float64
}

// differ compares the predicted set p with the server's word w, the
// prediction's fields taken as the wire would carry them (the word came
// off the wire), and returns the first field that differs.
func differ(schema *replication.Schema, p, w *compSet) (compDiff, bool) {
	for _, r := range w.refs {
		pv := p.values(r.typ)
		wv := w.vals[r.off : r.off+r.n]
		if len(pv) != len(wv) {
			return compDiff{typ: r.typ, field: -1, by: 1}, true
		}
		for i := range wv {
			q := pv[i]
			if r.typ < len(schema.Types) && i < len(schema.Types[r.typ].Fields) {
				q = schema.Types[r.typ].Fields[i].Codec.Quantize(q)
			}
			if q != wv[i] {
				return compDiff{typ: r.typ, field: i, by: abs(q - wv[i])}, true
			}
		}
	}
	for _, r := range p.refs {
		if w.values(r.typ) == nil {
			return compDiff{typ: r.typ, field: -1, by: 1}, true
		}
	}
	return compDiff{}, false
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// name returns "Type.field" (or the type alone for a whole component).
func (d compDiff) name(schema *replication.Schema) string {
	if d.typ < 0 || d.typ >= len(schema.Types) {
		return "component"
	}
	t := schema.Types[d.typ]
	if d.field < 0 || d.field >= len(t.Fields) {
		return t.Name
	}
	return t.Name + "." + t.Fields[d.field].Name
}

// unpredicted reports whether every field in which the server's word w
// differs from p, the prediction of the judged tick, is one the ticks
// predicted since have left alone (now, the prediction as it stands,
// holds p's value): a field only the server writes, such as what a pickup
// this client does not simulate gives its character. Such a field takes
// the server's word without a replay (adopt); a field the prediction
// advances itself, a cooldown's deadline, needs the replay to be right.
func unpredicted(schema *replication.Schema, p, now, w *compSet) bool {
	for _, r := range w.refs {
		pv, nv := p.values(r.typ), now.values(r.typ)
		wv := w.vals[r.off : r.off+r.n]
		if len(pv) != len(wv) || len(nv) != len(wv) {
			return false
		}
		for i := range wv {
			if quantized(schema, r.typ, i, pv[i]) != wv[i] && nv[i] != pv[i] {
				return false
			}
		}
	}
	for _, r := range p.refs {
		if w.values(r.typ) == nil {
			return false
		}
	}
	return true
}

// adopt sets, in s, every field in which the prediction p differs from
// the server's word w to w's value, leaving the rest as s has them.
func (s *compSet) adopt(schema *replication.Schema, p, w *compSet) {
	for _, r := range w.refs {
		pv, sv := p.values(r.typ), s.values(r.typ)
		if len(pv) != r.n || len(sv) != r.n {
			continue
		}
		for i, v := range w.vals[r.off : r.off+r.n] {
			if quantized(schema, r.typ, i, pv[i]) != v {
				sv[i] = v
			}
		}
	}
}

// quantized is v as field i of type typ travels (v itself when the
// schema does not know the field).
func quantized(schema *replication.Schema, typ, i int, v float64) float64 {
	if typ < len(schema.Types) && i < len(schema.Types[typ].Fields) {
		return schema.Types[typ].Fields[i].Codec.Quantize(v)
	}
	return v
}

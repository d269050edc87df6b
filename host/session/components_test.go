package session

import (
	"testing"

	"vkm/replication"
)

// TestACompSetKeepsTheServersWord: a component set, changed and removed
// as snapshot entries do, holds each field where its component is, and
// differ finds the first field a prediction (read as the wire carries it)
// gets wrong.
func TestACompSetKeepsTheServersWord(t *testing.T) {
	hp, err := replication.IntCodec(0, 100)
	if err != nil {
		t.Fatal(err)
	}
	step, err := replication.FixedCodec(0, 10, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	schema := &replication.Schema{Types: []replication.Type{
		{Name: "Health", Fields: []replication.Field{{Name: "hp", Codec: hp}}},
		{Name: "Pace", Fields: []replication.Field{{Name: "a", Codec: step}, {Name: "b", Codec: step}}},
	}}
	var w compSet
	w.set(0, []float64{100})
	w.set(1, []float64{1, 2})
	w.remove(0)
	w.set(0, []float64{60})
	w.set(1, []float64{1, 2.5})
	if got := w.values(1); len(got) != 2 || got[0] != 1 || got[1] != 2.5 {
		t.Fatalf("Pace holds %v", got)
	}
	if got := w.values(0); len(got) != 1 || got[0] != 60 {
		t.Fatalf("Health holds %v", got)
	}
	var p compSet
	p.set(1, []float64{1.1, 2.6}) // the wire carries 1 and 2.5
	p.set(0, []float64{60})
	if d, ok := differ(schema, &p, &w); ok {
		t.Fatalf("a prediction the wire would carry as the word differs at %s by %g", d.name(schema), d.by)
	}
	p.set(0, []float64{100})
	if d, ok := differ(schema, &p, &w); !ok || d.name(schema) != "Health.hp" || d.by != 40 {
		t.Fatalf("differ = %+v %v, want Health.hp by 40", d, ok)
	}
	p.set(0, []float64{60})
	w.remove(1)
	if d, ok := differ(schema, &p, &w); !ok || d.name(schema) != "Pace" {
		t.Fatalf("a component the word lacks: differ = %+v %v", d, ok)
	}
}

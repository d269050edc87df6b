package netmsg

import (
	"bytes"
	"testing"

	"vkm/internal/entity"
)

// FuzzInspect feeds both inspector parsers anything: they must not panic,
// and what they accept is what Append writes.
func FuzzInspect(f *testing.F) {
	f.Add(InspectAsk{ID: entity.ID{Slot: 60, Gen: 1}}.Append(nil))
	f.Add(InspectAsk{}.Append(nil))
	f.Add(InspectReport{ID: entity.ID{Slot: 60, Gen: 1}, Priority: 3, BytesPerS: 412, LastWritten: 9000, Entries: 250}.Append(nil))
	f.Add([]byte{byte(KindInspect)})
	f.Add([]byte{byte(KindKicked), 'x'})
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := ParseInspectAsk(b)
		mustParseError(t, err)
		if err == nil && !bytes.Equal(a.Append(nil), b) {
			t.Fatalf("parsed %+v from % x, which encodes as % x", a, b, a.Append(nil))
		}
		r, err := ParseInspectReport(b)
		mustParseError(t, err)
		if err == nil && (!bytes.Equal(r.Append(nil), b) || r.ID.IsNone()) {
			t.Fatalf("parsed %+v from % x, which encodes as % x", r, b, r.Append(nil))
		}
	})
}

// TestInspectRefuses: each direction's length, an entity that cannot be,
// and a report of none are refused.
func TestInspectRefuses(t *testing.T) {
	report := InspectReport{ID: entity.ID{Slot: 60, Gen: 1}, Priority: 1}.Append(nil)
	ask := InspectAsk{ID: entity.ID{Slot: 60, Gen: 1}}.Append(nil)
	if _, err := ParseInspectAsk(report); err == nil {
		t.Error("a report read as an ask")
	}
	if _, err := ParseInspectReport(ask); err == nil {
		t.Error("an ask read as a report")
	}
	if _, err := ParseInspectReport(InspectReport{}.Append(nil)); err == nil {
		t.Error("a report of no entity read")
	}
	for _, id := range []entity.ID{{Slot: entity.MaxSlot + 1, Gen: 1}, {Slot: 5}, {Slot: 1, Gen: 1 << 29}} {
		if _, err := ParseInspectAsk(InspectAsk{ID: id}.Append(nil)); err == nil {
			t.Errorf("an ask of %v read", id)
		}
	}
	if a, err := ParseInspectAsk(InspectAsk{}.Append(nil)); err != nil || !a.ID.IsNone() {
		t.Errorf("an ask of none: %+v, %v", a, err)
	}
}

package netmsg

import (
	"bytes"
	"encoding/hex"
	"math"
	"testing"

	"vkm/internal/entity"
	"vkm/wire"
)

// relaySeeds are relay sections as a server writes them: one character
// standing, a full section with every kind of run.
func relaySeeds() []Relay {
	return []Relay{
		{{ID: entity.ID{Slot: 0, Gen: 1}}},
		{{ID: entity.ID{Slot: 60, Gen: 1}, MoveX: 1}, {ID: entity.ID{Slot: 61, Gen: 2}, MoveX: -1},
			{ID: entity.ID{Slot: 200, Gen: 1 << 20}, MoveX: 0.5, MoveY: -0.25},
			{ID: entity.ID{Slot: entity.MaxSlot, Gen: 1<<32 - 1}, MoveX: -1.0 / 127, MoveY: 1}},
	}
}

// FuzzRelay feeds the client's relay parser what a broken or hostile
// server could send: it must not panic, and what it accepts is a section
// of at most MaxRelayed characters in rising slot order, with runs a
// controller takes, exactly as Append would write it.
func FuzzRelay(f *testing.F) {
	for _, r := range relaySeeds() {
		f.Add(r.Append(nil))
	}
	f.Add([]byte{1, 0x80, 0x00, 1, 0x80, 0x80})
	f.Add([]byte{4, 1, 1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, n, err := ParseRelay(b, nil)
		mustParseError(t, err)
		if err != nil {
			return
		}
		if len(r) == 0 || len(r) > MaxRelayed || n > len(b) {
			t.Fatalf("accepted %d entries in %d bytes of %d", len(r), n, len(b))
		}
		for i, e := range r {
			if e.ID.Gen == 0 || e.ID.Slot > entity.MaxSlot || i > 0 && r[i-1].ID.Slot >= e.ID.Slot ||
				wire.Axis.Quantize(e.MoveX) != e.MoveX || wire.Axis.Quantize(e.MoveY) != e.MoveY {
				t.Fatalf("accepted %+v", e)
			}
		}
		if again := r.Append(nil); !bytes.Equal(again, b[:n]) {
			t.Fatalf("parsed %+v from % x, which encodes as % x", r, b[:n], again)
		}
	})
}

// TestRelayVector is the example in docs/protocol.md.
func TestRelayVector(t *testing.T) {
	got := Relay{
		{ID: entity.ID{Slot: 60, Gen: 1}, MoveX: 1},
		{ID: entity.ID{Slot: 200, Gen: 3}, MoveX: -0.5},
	}.Append(nil)
	want := "02" + "3c" + "01" + "ff" + "80" + "c801" + "03" + "40" + "80"
	if hex.EncodeToString(got) != want {
		t.Fatalf("% x\nwant %s", got, want)
	}
}

// TestRelayRoundTrips: what the server writes, the client reads back,
// with the run to the axis's step and the section's length; every strict
// prefix is refused.
func TestRelayRoundTrips(t *testing.T) {
	for _, r := range relaySeeds() {
		b := r.Append(nil)
		got, n, err := ParseRelay(append(b, 0xAA, 0xBB), nil)
		if err != nil || n != len(b) || len(got) != len(r) {
			t.Fatalf("% x: %v, %d bytes, %+v", b, err, n, got)
		}
		for i := range r {
			if got[i].ID != r[i].ID || got[i].MoveX != wire.Axis.Quantize(r[i].MoveX) || got[i].MoveY != wire.Axis.Quantize(r[i].MoveY) {
				t.Errorf("entry %d: %+v; want %+v", i, got[i], r[i])
			}
		}
		prefixesFail(t, "relay", b, func(b []byte) error { _, _, err := ParseRelay(b, nil); return err })
	}
}

// TestRelayRunsAreAxes: a run travels as a command packet's axis does,
// clamped, NaN as 0, and never as code 0, which the parser refuses.
func TestRelayRunsAreAxes(t *testing.T) {
	for _, v := range []float64{0, 1, -1, 0.5, -0.25, 1.0 / 127, -2, 2, 0.004, -0.004, math.NaN(), math.Inf(1), math.Inf(-1)} {
		b := Relay{{ID: entity.ID{Slot: 1, Gen: 1}, MoveX: v, MoveY: -v}}.Append(nil)
		got, _, err := ParseRelay(b, nil)
		if err != nil {
			t.Fatalf("%g: % x: %v", v, b, err)
		}
		if want := wire.Axis.Quantize(v); got[0].MoveX != want || got[0].MoveY != wire.Axis.Quantize(-v) {
			t.Errorf("%g came back %g, %g; want %g", v, got[0].MoveX, got[0].MoveY, want)
		}
	}
}

// TestRelayRefusesMalformedSections: every rule of the layout a broken or
// hostile server could break.
func TestRelayRefusesMalformedSections(t *testing.T) {
	base := Relay{{ID: entity.ID{Slot: 60, Gen: 1}}, {ID: entity.ID{Slot: 61, Gen: 1}}}.Append(nil)
	edit := func(fn func(b []byte) []byte) []byte { return fn(append([]byte(nil), base...)) }
	for name, b := range map[string][]byte{
		"empty":                  nil,
		"count 0":                {0},
		"count over the most":    append([]byte{MaxRelayed + 1}, bytes.Repeat([]byte{1, 1, 0x80, 0x80}, MaxRelayed+1)...),
		"cut short":              base[:len(base)-1],
		"count past the entries": edit(func(b []byte) []byte { b[0] = 3; return b }),
		"slot said twice":        edit(func(b []byte) []byte { b[5] = 60; return b }),
		"slots falling":          edit(func(b []byte) []byte { b[1], b[5] = 61, 60; return b }),
		"generation 0":           edit(func(b []byte) []byte { b[2] = 0; return b }),
		"axis code 0":            edit(func(b []byte) []byte { b[3] = 0; return b }),
		"slot not shortest":      {1, 0xbc, 0x00, 1, 0x80, 0x80},
		"slot too big":           {1, 0x80, 0x80, 0x80, 0x08, 1, 0x80, 0x80},
		"generation too big":     {1, 1, 0x80, 0x80, 0x80, 0x80, 0x10, 0x80, 0x80},
	} {
		got, _, err := ParseRelay(b, nil)
		if err == nil {
			t.Errorf("%s: accepted %+v", name, got)
		}
		mustParseError(t, err)
	}
}

// TestRelayDoesNotAllocate: a section is written and read into scratch
// with every snapshot, so neither allocates once the scratch has grown.
func TestRelayDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what escapes")
	}
	r := relaySeeds()[1]
	buf := r.Append(nil)
	dst := make(Relay, 0, MaxRelayed)
	if n := testing.AllocsPerRun(100, func() {
		buf = r.Append(buf[:0])
		dst, _, _ = ParseRelay(buf, dst)
	}); n != 0 {
		t.Errorf("%v allocations a section", n)
	}
}

package session

import (
	"bytes"
	"encoding/hex"
	"math"
	"testing"

	"vkm/internal/entity"
	"vkm/replication"
	"vkm/transport"
	"vkm/wire"
)

// relaySeeds are relay sections as a server writes them: one character
// standing, a full section with every kind of run.
func relaySeeds() [][]intent {
	return [][]intent{
		{{id: entity.ID{Slot: 0, Gen: 1}}},
		{{id: entity.ID{Slot: 60, Gen: 1}, moveX: 1}, {id: entity.ID{Slot: 61, Gen: 2}, moveX: -1},
			{id: entity.ID{Slot: 200, Gen: 1 << 20}, moveX: 0.5, moveY: -0.25},
			{id: entity.ID{Slot: entity.MaxSlot, Gen: 1<<32 - 1}, moveX: -1.0 / 127, moveY: 1}},
	}
}

// TestRelayVector is the example in docs/protocol.md.
func TestRelayVector(t *testing.T) {
	got := appendRelay(nil, []intent{
		{id: entity.ID{Slot: 60, Gen: 1}, moveX: 1},
		{id: entity.ID{Slot: 200, Gen: 3}, moveX: -0.5},
	})
	want := "02" + "3c" + "01" + "ff" + "80" + "c801" + "03" + "40" + "80"
	if hex.EncodeToString(got) != want {
		t.Fatalf("% x\nwant %s", got, want)
	}
}

// TestRelayAxesAreTheCommandsAxes: a run travels as a command packet's
// axis does, code for code and value for value.
func TestRelayAxesAreTheCommandsAxes(t *testing.T) {
	vs := []float64{0, 1, -1, 0.5, -0.25, 1.0 / 127, -2, 2, 0.004, -0.004, math.NaN(), math.Inf(1), math.Inf(-1)}
	for k := -1300; k <= 1300; k++ {
		vs = append(vs, float64(k)/1000, (float64(k)/10+0.5)/127)
	}
	for _, v := range vs {
		if got, want := axisCode(v), byte(wire.Axis.Encode(v)); got != want {
			t.Errorf("%g: code %d; the command axis's is %d", v, got, want)
		}
	}
	for c := 1; c < 256; c++ {
		if got, want := axisValue(byte(c)), wire.Axis.Decode(uint64(c)); got != want {
			t.Errorf("code %d: %g; the command axis's is %g", c, got, want)
		}
	}
}

// TestRelayRoundTrips: what the server writes, the client reads back,
// with the run to the axis's step and the section's length.
func TestRelayRoundTrips(t *testing.T) {
	for _, is := range relaySeeds() {
		b := appendRelay(nil, is)
		got, n, err := decodeRelay(append(b, 0xAA, 0xBB), nil)
		if err != nil || n != len(b) || len(got) != len(is) {
			t.Fatalf("% x: %v, %d bytes, %+v", b, err, n, got)
		}
		for i := range is {
			if got[i].id != is[i].id || got[i].moveX != wire.Axis.Quantize(is[i].moveX) || got[i].moveY != wire.Axis.Quantize(is[i].moveY) {
				t.Errorf("entry %d: %+v; want %+v", i, got[i], is[i])
			}
		}
	}
}

// TestRelayRefusesMalformedSections: every rule of the layout a broken or
// hostile server could break.
func TestRelayRefusesMalformedSections(t *testing.T) {
	base := appendRelay(nil, []intent{{id: entity.ID{Slot: 60, Gen: 1}}, {id: entity.ID{Slot: 61, Gen: 1}}})
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
		if got, _, err := decodeRelay(b, nil); err == nil {
			t.Errorf("%s: accepted %+v", name, got)
		}
	}
}

// TestPayloadCarriesARelay: a snapshot's payload carries the relay between
// the reliable section and the snapshot; a server refuses a payload with
// one, which only a server sends.
func TestPayloadCarriesARelay(t *testing.T) {
	rel := mustReliable()
	if err := rel.Send([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	relay := appendRelay(nil, relaySeeds()[1])
	p := frameRelayed(nil, rel, relay, []byte{0xC0, 0xFF}, 0)
	if p[0] != flagReliable|flagRelay {
		t.Fatalf("flags %#x", p[0])
	}
	main, got, err := unframeRelayed(p, mustReliable(), nil)
	if err != nil || !bytes.Equal(main, []byte{0xC0, 0xFF}) || len(got) != len(relaySeeds()[1]) {
		t.Fatalf("% x: main % x, relay %+v, %v", p, main, got, err)
	}
	if _, err := unframePayload(p, seatReliable()); err == nil {
		t.Error("a server read a payload with a relay section")
	}
	plain := frameRelayed(nil, nil, nil, []byte{0xC0}, 0)
	if main, got, err := unframeRelayed(plain, nil, nil); err != nil || len(got) != 0 || !bytes.Equal(main, []byte{0xC0}) {
		t.Errorf("no relay: main % x, relay %+v, %v", main, got, err)
	}
	// The relay's room is taken from the channel's, never the snapshot's.
	big := mustReliable()
	if err := big.Send(make([]byte, 4000)); err != nil {
		t.Fatal(err)
	}
	full := frameRelayed(nil, big, relay, make([]byte, 600), 0)
	if len(full) > transport.MaxDataPayload {
		t.Errorf("a payload of %d bytes; the most is %d", len(full), transport.MaxDataPayload)
	}
}

// TestRunsFreeReadsTheRelayedRun: a velocity that changed as the
// controller changes it on the relayed run is free; one held back by what
// the character leans on, or knocked by a collision, is not.
func TestRunsFreeReadsTheRelayedRun(t *testing.T) {
	ctl := &entity.CharacterController{Mode: entity.SideView, Speed: 8, Accel: 70, AirAccel: 30, Grounded: true}
	s := 1.0 / 64
	step := 70 * s
	for _, c := range []struct {
		name        string
		v0, v1, run float64
		free        bool
	}{
		{"full speed", 8, 8, 1, true},
		{"speeding up", 0, 1.09, 1, true},
		{"turning", 8, 8 - step, -1, true},
		{"stopping", 8, 8 - step, 0, true},
		{"half a run", 4, 4, 0.5, true},
		{"leaning on a wall", 0, 0, 1, false},
		{"stopped by a collision", 8, 0, 1, false},
		{"standing", 0, 0, 0, true},
	} {
		if got := runsFree(ctl, c.v0, c.v1, s, c.run); got != c.free {
			t.Errorf("%s: free %v; want %v", c.name, got, c.free)
		}
	}
	air := *ctl
	air.Grounded = false
	if !runsFree(&air, 0, 30*s, s, 1) || runsFree(&air, 0, step, s, 1) {
		t.Error("off the ground, the controller's rate is its air acceleration")
	}
}

// TestALiteClientReadsPastTheRelay: a lite client carries no other
// character, but the snapshots it is sent carry relays all the same; it
// reads the snapshot after one, and drops a payload whose relay is broken.
func TestALiteClientReadsPastTheRelay(t *testing.T) {
	var schema replication.Schema
	r := replication.NewRound(&schema)
	r.Begin(1000)
	own := entity.ID{Slot: 60, Gen: 1}
	r.Entity(own, replication.Described)
	r.Transform(entity.Transform{X: 1.5, Y: -2, Scale: 1})
	peer := replication.NewPeer(&schema)
	peer.SetCommands(replication.Commands{Newest: 0, Judged: 0, LowWater: 1})
	snap := peer.Write(nil, r, own, transport.MaxDataPayload-1)
	relay := appendRelay(nil, relaySeeds()[1])

	l := NewLite(LiteConfig{Project: meetProject(t), Schema: &schema})
	l.snapshot(frameRelayed(nil, nil, relay, snap, 0))
	if l.bad != 0 || !l.snap.HasCommands {
		t.Fatalf("a snapshot after a relay: %d bad, commands %v", l.bad, l.snap.HasCommands)
	}
	broken := frameRelayed(nil, nil, relay, snap, 0)
	broken[1] = MaxRelayed + 1
	l.snapshot(broken)
	if l.bad != 1 {
		t.Errorf("a broken relay: %d bad snapshots; want 1", l.bad)
	}
}

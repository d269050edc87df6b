package session

import (
	"testing"

	"vkm/host/session/netmsg"
	"vkm/internal/entity"
	"vkm/replication"
	"vkm/transport"
)

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
	relay := netmsg.Relay{{ID: entity.ID{Slot: 61, Gen: 2}, MoveX: -1}, {ID: entity.ID{Slot: 200, Gen: 1 << 20}, MoveX: 0.5}}.Append(nil)

	l := NewLite(LiteConfig{Project: meetProject(t), Schema: &schema})
	l.snapshot(netmsg.AppendPayload(nil, nil, relay, snap, 0))
	if l.bad != 0 || !l.snap.HasCommands {
		t.Fatalf("a snapshot after a relay: %d bad, commands %v", l.bad, l.snap.HasCommands)
	}
	broken := netmsg.AppendPayload(nil, nil, relay, snap, 0)
	broken[1] = netmsg.MaxRelayed + 1
	l.snapshot(broken)
	if l.bad != 1 {
		t.Errorf("a broken relay: %d bad snapshots; want 1", l.bad)
	}
}

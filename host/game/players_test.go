package game

import (
	"fmt"
	"testing"
)

const playersMain = `
local Probe = {}
function Probe:on_fixed_update(dt)
  local list = net.players()
  local p = list[1]
  self:emit("who", { n = #list, role = net.role(), me = net.local_player(),
    player = self:player(), name = p and p.name or "", rtt = p and p.rtt or -1,
    theirs = p and p.entity == self or false })
end
function vkmRegisterBehaviors(r) r.probe = Probe end
function vkmSetupNetwork(net)
  net.on_join(function(player) if JOIN then return vkm.find("probe") end end)
  net.on_leave(function(player, ent)
    ent:emit("left", { who = player, alive = ent:alive() })
    return KEEP
  end)
end
`

// TestOfflineSeatsTheLocalPlayerAsPlayerOne checks what net.players,
// net.role, net.local_player and self:player say offline, with and
// without an entity from the join handler.
func TestOfflineSeatsTheLocalPlayerAsPlayerOne(t *testing.T) {
	for _, join := range []bool{true, false} {
		src := "JOIN = " + fmt.Sprint(join) + "\n" + playersMain
		p := miniProject(t, map[string]string{"scene.toml": probeScene, "scripts/main.lua": src})
		g, err := New(Config{Project: p, Name: "ada"}) // the caller cleans the name (handshake.CleanName)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		g.RunTick()
		ev := g.DrainEvents()
		want := map[string]any{"n": float64(1), "role": "offline", "me": float64(1), "player": float64(1), "name": "ada", "rtt": float64(0), "theirs": true}
		if !join {
			want = map[string]any{"n": float64(0), "role": "offline", "me": float64(0), "player": float64(0), "name": "", "rtt": float64(-1), "theirs": false}
		}
		if len(ev) != 1 || fmt.Sprint(ev[0].Fields) != fmt.Sprint(want) {
			t.Errorf("join %v: %v, want %v", join, ev, want)
		}
	}
}

// TestLeaveDestroysUnlessTheHandlerKeeps checks Game.Leave: the handler
// sees the entity alive, and the entity is gone afterwards unless the
// handler returned true.
func TestLeaveDestroysUnlessTheHandlerKeeps(t *testing.T) {
	for _, keep := range []bool{false, true} {
		src := "JOIN = true KEEP = " + fmt.Sprint(keep) + "\n" + playersMain
		p := miniProject(t, map[string]string{"scene.toml": probeScene, "scripts/main.lua": src})
		g := newGame(t, p)
		own := g.Own()
		g.DrainEvents()
		kept, err := g.Leave(1, own)
		if err != nil || kept != keep {
			t.Fatalf("keep %v: Leave = %v, %v", keep, kept, err)
		}
		if g.Store().Alive(own) != keep {
			t.Errorf("keep %v: entity alive %v afterwards", keep, g.Store().Alive(own))
		}
		if ev := g.DrainEvents(); len(ev) != 1 || ev[0].Name != "left" || ev[0].Entity != own ||
			ev[0].Fields["who"] != float64(1) || ev[0].Fields["alive"] != true {
			t.Errorf("keep %v: the handler said %v", keep, ev)
		}
	}
}

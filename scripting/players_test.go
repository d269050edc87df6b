package scripting

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"vkm/internal/entity"
)

// TestPlayersFromLua checks self:player, net.players, net.role and
// net.local_player against what the world says, on every role.
func TestPlayersFromLua(t *testing.T) {
	src := `
Asker = {}
function Asker:on_fixed_update(dt)
	local list = net.players()
	local names, ents = {}, {}
	for i, p in ipairs(list) do
		names[i] = p.number .. "=" .. p.name .. "@" .. string.format("%.3f", p.rtt)
		ents[i] = p.entity == nil and "nil" or (p.entity == self and "self" or p.entity:name())
	end
	self:emit("who", {
		player = self:player(), role = net.role(), me = net.local_player(),
		n = #list, names = table.concat(names, ","), ents = table.concat(ents, ","),
	})
end
function vkmRegisterBehaviors(r) r.asker = Asker end
`
	r, w := newTest(t, src)
	hero := w.add("hero")
	crate := w.add("crate")
	attach(t, r, hero, "asker")
	attach(t, r, crate, "asker")
	gone := entity.ID{Slot: 99, Gen: 1} // a player whose entity this end does not hold
	w.role, w.local = RoleClient, 2
	w.players = []PlayerInfo{
		{Number: 1, Name: "ada", Entity: gone, RTT: 40 * time.Millisecond},
		{Number: 2, Name: "bo", Entity: hero, RTT: 25 * time.Millisecond},
	}
	r.FixedUpdate(1.0/64, false)
	got := w.eventsNamed("who")
	want := []map[string]any{
		{"player": float64(2), "role": "client", "me": float64(2), "n": float64(2), "names": "1=ada@0.040,2=bo@0.025", "ents": "nil,self"},
		{"player": float64(0), "role": "client", "me": float64(2), "n": float64(2), "names": "1=ada@0.040,2=bo@0.025", "ents": "nil,hero"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("client answers\n%v\nwant\n%v", got, want)
	}
	for _, role := range []Role{RoleServer, RoleOffline} {
		w.events, w.role, w.local = nil, role, 0
		r.FixedUpdate(1.0/64, false)
		if got := w.eventsNamed("who"); got[0]["role"] != role.String() || got[0]["me"] != float64(0) {
			t.Errorf("%v: %v", role, got[0])
		}
	}
	if RoleOffline.String() != "offline" || RoleServer.String() != "server" || RoleClient.String() != "client" {
		t.Error("role names")
	}
}

// TestPlayerOnDeadEntity checks self:player follows every method's rule on
// a destroyed entity: nothing.
func TestPlayerOnDeadEntity(t *testing.T) {
	r, w := newTest(t, `function vkmRegisterBehaviors(r) end`)
	id := w.add("x")
	w.players = []PlayerInfo{{Number: 1, Entity: id}}
	h := r.handle(id)
	w.Destroy(id)
	r.ls.SetGlobal("h", h)
	if err := r.ls.DoString(`assert(h:player() == nil)`); err != nil {
		t.Fatal(err)
	}
}

const leaveSrc = `
function vkmSetupNetwork(net)
	net.on_join(function(player) return nil end)
	net.on_leave(function(player, ent)
		left = (left or "") .. player .. ":" .. (ent and ent:name() or "nil") .. " "
		if player == 2 then return true end
		if player == 3 then error("cannot let go") end -- LEAVEERR
		if player == 4 then return "yes" end
	end)
end
`

func TestLeaveHandler(t *testing.T) {
	r, w := newTest(t, leaveSrc)
	if r.HasLeaveHandler() {
		t.Fatal("leave handler before setup")
	}
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	if !r.HasLeaveHandler() {
		t.Fatal("no leave handler after setup")
	}
	hero := w.add("hero")
	if keep, err := r.Leave(1, hero); keep || err != nil {
		t.Errorf("Leave(1) = %v, %v; want false, nil", keep, err)
	}
	if keep, err := r.Leave(2, hero); !keep || err != nil {
		t.Errorf("Leave(2) = %v, %v; want true, nil", keep, err)
	}
	var se *ScriptError
	_, err := r.Leave(3, hero)
	if want := fmt.Sprintf("scripts/main.lua:%d", lineOf(t, leaveSrc, "LEAVEERR")); !errors.As(err, &se) || se.Where != want || se.Callback != "leave handler" {
		t.Errorf("Leave(3) = %v, want a leave handler error at %s", err, want)
	}
	if _, err := r.Leave(4, hero); err == nil || !strings.Contains(err.Error(), "returned a string") {
		t.Errorf("Leave(4) = %v", err)
	}
	if _, err := r.Leave(5, entity.ID{Slot: 77, Gen: 1}); err != nil {
		t.Errorf("Leave(5) of an entity not alive: %v", err)
	}
	if got := r.ls.GetGlobal("left").String(); got != "1:hero 2:hero 3:hero 4:hero 5:nil " {
		t.Errorf("handler saw %q", got)
	}
}

func TestLeaveHandlerRules(t *testing.T) {
	r, _ := newTest(t, `
function vkmSetupNetwork(net)
	net.on_leave(function() end)
	net.on_leave(function() end) -- TWICE
end`)
	if _, err := r.SetupNetwork(); err == nil || !strings.Contains(err.Error(), "net.on_leave called twice") {
		t.Errorf("twice: %v", err)
	}
	if keep, err := r.Leave(1, entity.None); keep || err != nil {
		t.Errorf("Leave with no handler = %v, %v", keep, err)
	}
	r2, _ := newTest(t, `function vkmRegisterBehaviors(r) end`)
	if err := r2.ls.DoString(`net.on_leave(function() end)`); err == nil || !strings.Contains(err.Error(), "only be called while vkmSetupNetwork runs") {
		t.Errorf("outside setup: %v", err)
	}
}

// TestLeaveHandlerKeptAcrossAFailedSetup checks a vkmSetupNetwork that
// fails leaves the previous handlers in place, and one that succeeds
// without on_leave removes it.
func TestLeaveHandlerKeptAcrossAFailedSetup(t *testing.T) {
	r, _ := newTest(t, `
runs = 0
function vkmSetupNetwork(net)
	runs = runs + 1
	if runs == 2 then error("broken") end
	if runs == 1 then net.on_leave(function() return true end) end
end`)
	for i, want := range []bool{true, true, false} {
		_, err := r.SetupNetwork()
		if (err != nil) != (i == 1) {
			t.Fatalf("run %d: %v", i+1, err)
		}
		if r.HasLeaveHandler() != want {
			t.Errorf("run %d: HasLeaveHandler %v, want %v", i+1, r.HasLeaveHandler(), want)
		}
	}
}

// TestDrainHandler checks net.on_drain's handler runs once, with the
// seconds left, and that a failing handler names its line.
func TestDrainHandler(t *testing.T) {
	src := `
function vkmSetupNetwork(net)
	net.on_drain(function(left)
		drains = (drains or "") .. left .. " "
		if left < 0 then error("no time") end -- DRAINERR
	end)
end
`
	r, _ := newTest(t, src)
	if err := r.Drain(5); err != nil {
		t.Fatalf("Drain before setup: %v", err)
	}
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	if err := r.Drain(30); err != nil {
		t.Fatal(err)
	}
	if err := r.Drain(12); err != nil {
		t.Fatal(err)
	}
	if got := r.ls.GetGlobal("drains").String(); got != "30 " {
		t.Errorf("handler saw %q, want one call with 30", got)
	}
	r2, _ := newTest(t, src)
	if _, err := r2.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	var se *ScriptError
	err := r2.Drain(-1)
	if want := fmt.Sprintf("scripts/main.lua:%d", lineOf(t, src, "DRAINERR")); !errors.As(err, &se) || se.Where != want || se.Callback != "drain handler" {
		t.Errorf("Drain(-1) = %v, want a drain handler error at %s", err, want)
	}
}

func TestDrainHandlerRules(t *testing.T) {
	r, _ := newTest(t, `
function vkmSetupNetwork(net)
	net.on_drain(function() end)
	net.on_drain(function() end)
end`)
	if _, err := r.SetupNetwork(); err == nil || !strings.Contains(err.Error(), "net.on_drain called twice") {
		t.Errorf("twice: %v", err)
	}
	r2, _ := newTest(t, `function vkmRegisterBehaviors(r) end`)
	if err := r2.ls.DoString(`net.on_drain(function() end)`); err == nil || !strings.Contains(err.Error(), "only be called while vkmSetupNetwork runs") {
		t.Errorf("outside setup: %v", err)
	}
}

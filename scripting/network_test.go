package scripting

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"vkm/internal/entity"
	"vkm/replication"
)

const netSrc = `
function vkmRegisterBehaviors(r) end
function vkmSetupNetwork(net)
	net.component("Health", { {"hp", net.int(0, 200)}, {"armor", net.fixed(0, 100, 0.5)} }) -- HEALTH
	net.component("Flags", { {"alive", net.bool}, {"glow", net.float32()} })
	net.on_join(function(player)
		if player > 2 then return nil end
		return scene_spawn("prefabs/player.toml", player, 0)
	end)
end
function vkmBuildScene(scene)
	scene_spawn = function(...) return scene:spawn(...) end
	local p = scene:spawn("prefabs/player.toml", 0, 0)
	assert(scene:find("player") == p)
end
`

func TestSetupNetworkSchema(t *testing.T) {
	r, _ := newTest(t, netSrc)
	if !r.HasNetwork() || r.HasJoinHandler() {
		t.Fatal("HasNetwork/HasJoinHandler before setup")
	}
	s, err := r.SetupNetwork()
	if err != nil {
		t.Fatal(err)
	}
	hp, _ := replication.IntCodec(0, 200)
	armor, _ := replication.FixedCodec(0, 100, 0.5)
	var want replication.Schema
	where := fmt.Sprintf("scripts/main.lua:%d", lineOf(t, netSrc, "HEALTH"))
	for _, ty := range []replication.Type{
		{Name: "Health", Where: where, Fields: []replication.Field{{Name: "hp", Codec: hp}, {Name: "armor", Codec: armor}}},
		{Name: "Flags", Fields: []replication.Field{{Name: "alive", Codec: replication.BoolCodec()}, {Name: "glow", Codec: replication.Float32Codec()}}},
	} {
		if err := want.Add(ty); err != nil {
			t.Fatal(err)
		}
	}
	if s.Fingerprint() != want.Fingerprint() || s.Types[0].Where != where {
		t.Errorf("schema %+v\nwant %+v", s.Types, want.Types)
	}
	if !r.HasJoinHandler() || r.Schema() != s {
		t.Error("join handler or Schema() wrong")
	}
}

func TestSchemaRebuiltFromNothing(t *testing.T) {
	src := `
runs = 0
function vkmSetupNetwork(net)
	runs = runs + 1
	if runs == 1 then net.component("Old", { {"a", net.bool} }) end
	net.component("Health", { {"hp", net.int(0, 200)} })
end
`
	r, _ := newTest(t, src)
	first, err := r.SetupNetwork()
	if err != nil {
		t.Fatal(err)
	}
	second, err := r.SetupNetwork()
	if err != nil {
		t.Fatalf("second run: %v", err) // Health again is not a duplicate
	}
	if len(first.Types) != 2 || len(second.Types) != 1 || second.Types[0].Name != "Health" {
		t.Errorf("first %v, second %v", first.Types, second.Types)
	}
	if second.Index("Old") != -1 {
		t.Error("a type from the previous run survived")
	}
}

func TestSetupNetworkRefuses(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"field without codec", `net.component("Health", { {"hp"} })`, `field "hp" has no codec`},
		{"field with a number", `net.component("Health", { {"hp", 5} })`, `number is not a codec`},
		{"field with nil", `net.component("Health", { {"hp", nil} })`, `field "hp" has no codec`},
		{"unknown net key", `net.component("Health", { {"hp", net.uint8} })`, `net has no field "uint8"`},
		{"bad int", `net.component("Health", { {"hp", net.int(5, 1)} })`, `net.int: int codec: min 5 is above max 1`},
		{"bad fixed", `net.component("Health", { {"hp", net.fixed(0, 1, 0)} })`, `step 0 must be above zero`},
		{"fractional int", `net.component("Health", { {"hp", net.int(0.5, 1)} })`, `whole number expected`},
		{"duplicate field", `net.component("Health", { {"hp", net.bool}, {"hp", net.bool} })`, `field "hp" declared twice`},
		{"map not list", `net.component("Health", { hp = net.bool })`, `must be a list of {name, codec} pairs`},
		{"duplicate type", `net.component("Health", { {"hp", net.bool} }) net.component("Health", { {"x", net.bool} })`, `"Health" registered twice`},
		{"no name", `net.component("Health", { {net.bool} })`, `field 1 has no name`},
	}
	for _, tt := range tests {
		src := "\n\nfunction vkmSetupNetwork(net)\n\t" + tt.body + " -- HERE\nend\n"
		r, _ := newTest(t, src)
		_, err := r.SetupNetwork()
		var se *ScriptError
		where := fmt.Sprintf("scripts/main.lua:%d", lineOf(t, src, "HERE"))
		if !errors.As(err, &se) || se.Where != where || !strings.Contains(se.Message, tt.want) {
			t.Errorf("%s: err = %v, want %q at %s", tt.name, err, tt.want, where)
			continue
		}
		if !strings.HasPrefix(err.Error(), "scripting: vkmSetupNetwork: "+where+": ") {
			t.Errorf("%s: Error() = %q", tt.name, err)
		}
		if len(r.Schema().Types) != 0 {
			t.Errorf("%s: failed run replaced the schema", tt.name)
		}
	}
}

func TestNoSetupNetwork(t *testing.T) {
	r, _ := newTest(t, "function vkmRegisterBehaviors(r) end")
	s, err := r.SetupNetwork()
	if err != nil || s == nil || len(s.Types) != 0 || r.HasNetwork() || r.HasJoinHandler() {
		t.Errorf("schema %v, err %v", s, err)
	}
	if _, err := r.Join(1); err == nil {
		t.Error("Join with no handler succeeded")
	}
	if err := r.BuildScene(); err != nil {
		t.Errorf("BuildScene with none: %v", err)
	}
}

func TestJoinHandler(t *testing.T) {
	r, w := newTest(t, netSrc)
	w.prefabs["prefabs/player.toml"] = ""
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	if err := r.BuildScene(); err != nil {
		t.Fatal(err)
	}
	id, err := r.Join(2)
	if err != nil || !w.Alive(id) || w.Transform(id).X != 2 {
		t.Fatalf("Join(2) = %v, %v", id, err)
	}
	if id, err := r.Join(3); err != nil || id != entity.None {
		t.Errorf("refused join = %v, %v; want None, nil", id, err)
	}
}

func TestJoinHandlerErrors(t *testing.T) {
	src := `
function vkmSetupNetwork(net)
	net.on_join(function(player)
		if player == 1 then return 42 end
		error("no seats") -- NOSEATS
	end)
end
function vkmBuildScene(scene)
	scene:spawn("prefabs/missing.toml", 0, 0) -- MISSING
end
`
	r, _ := newTest(t, src)
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Join(1); err == nil || !strings.Contains(err.Error(), "returned a number") {
		t.Errorf("Join(1): %v", err)
	}
	_, err := r.Join(2)
	if want := fmt.Sprintf("scripts/main.lua:%d: no seats", lineOf(t, src, "NOSEATS")); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Join(2): %v, want %q", err, want)
	}
	err = r.BuildScene()
	if want := fmt.Sprintf("scripting: vkmBuildScene: scripts/main.lua:%d: spawn", lineOf(t, src, "MISSING")); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("BuildScene: %v, want %q", err, want)
	}
}

func TestComponentAPI(t *testing.T) {
	src := `
function vkmSetupNetwork(net)
	net.component("Health", { {"hp", net.int(0, 200)}, {"armor", net.fixed(-10, 10, 0.5)}, {"shield", net.bool} })
end
C = {}
function C:on_fixed_update(dt)
	local before = self:has("Health")
	self:add("Health", {hp = 41.6, shield = true})
	self:set("Health", "armor", -0.2)
	local copy = self:component("Health")
	local t = self:component("Transform")
	self:set("Transform", "x", 4)
	self:set("Rigidbody", "awake", true)
	self:emit("c", {before = before, after = self:has("Health"), hp = self:get("Health", "hp"),
		armor = self:get("Health", "armor"), shield = self:get("Health", "shield"),
		copy_hp = copy.hp, copy_shield = copy.shield, scale = t.scale,
		x = self:get("Transform", "x"), awake = self:get("Rigidbody", "awake"),
		grounded = self:grounded(), has_cc = self:has("CharacterController"),
		cc = (self:get("CharacterController", "grounded") == nil)})
	self:set("Health", "hp", 900)
	self:emit("clamped", {hp = self:get("Health", "hp")})
	self:remove("Health")
	self:emit("removed", {has = self:has("Health"), hp_nil = (self:get("Health", "hp") == nil)})
end
function vkmRegisterBehaviors(r) r.c = C end
`
	r, w := newTest(t, src)
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	id := w.add("a")
	attach(t, r, id, "c")
	r.FixedUpdate(1.0/64, false)
	if r.Errors() != 0 {
		t.Fatalf("%d errors", r.Errors())
	}
	want := map[string]any{"before": false, "after": true, "hp": 42.0, "armor": 0.0, "shield": true,
		"copy_hp": 42.0, "copy_shield": true, "scale": 1.0, "x": 4.0, "awake": true,
		"grounded": false, "has_cc": false, "cc": true}
	if got := w.eventsNamed("c"); len(got) != 1 || fmt.Sprint(got[0]) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	if got := w.eventsNamed("clamped"); len(got) != 1 || got[0]["hp"] != 200.0 {
		t.Errorf("clamped %v", got)
	}
	if got := w.eventsNamed("removed"); len(got) != 1 || got[0]["has"] != false || got[0]["hp_nil"] != true {
		t.Errorf("removed %v", got)
	}
}

func TestComponentAPIErrors(t *testing.T) {
	cases := []struct{ call, want string }{
		{`self:get("Helth", "hp")`, "unknown component type Helth"},
		{`self:get("Health", "hq")`, "has no field hq"},
		{`self:set("Health", "hp", 1)`, "has no Health (add it first"},
		{`self:add("Health") self:set("Health", "hp", "lots")`, "number expected, got string"},
		{`self:add("Transform")`, "engine component"},
		{`self:set("Transform", "x", 0/0)`, "finite number expected"},
		{`self:get("Transform", "z")`, "has no field z"},
		{`self:emit("e", {nested = {}})`, "events carry numbers, strings and booleans"},
		{`self.position()`, "entity expected"},
		{`self:spawn("prefabs/none.toml", 0, 0)`, "spawn"},
	}
	for _, c := range cases {
		src := fmt.Sprintf(`
function vkmSetupNetwork(net) net.component("Health", { {"hp", net.int(0, 9)} }) end
E = {}
function E:on_fixed_update(dt)
	%s -- CALL
end
function vkmRegisterBehaviors(r) r.e = E end
`, c.call)
		var got []ScriptError
		r, w, err := tryNew(t, Config{OnError: func(e ScriptError) { got = append(got, e) }}, src)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.SetupNetwork(); err != nil {
			t.Fatal(err)
		}
		attach(t, r, w.add("a"), "e")
		r.FixedUpdate(1.0/64, false)
		where := fmt.Sprintf("scripts/main.lua:%d", lineOf(t, src, "CALL"))
		if len(got) != 1 || got[0].Where != where || !strings.Contains(got[0].Message, c.want) {
			t.Errorf("%s: got %+v, want %q at %s", c.call, got, c.want, where)
		}
	}
}

func TestHandleTablesReused(t *testing.T) {
	r, w := newTest(t, "")
	a := w.add("a")
	h1, h2 := r.handle(a), r.handle(a)
	if h1 != h2 || h1 == lua.LNil {
		t.Fatal("handle not cached")
	}
	if r.handle(entity.None) != lua.LNil {
		t.Error("None has a handle")
	}
	// A plain handle made before a behavior is attached becomes the instance,
	// so tables scripts already hold stay equal.
	if _, err := r.ls.LoadString(""); err != nil {
		t.Fatal(err)
	}
	r.behaviors["b"] = &behavior{name: "b", class: r.ls.NewTable(), meta: r.ls.NewTable()}
	attach(t, r, a, "b")
	if r.entities[a].instances[0].self != h1 {
		t.Error("instance is not the existing handle")
	}
	// Dead entities' plain handles are swept once the map doubles.
	for i := 0; i < 200; i++ {
		id := w.add("tmp")
		r.handle(id)
		w.ents[id.Slot] = nil
	}
	if len(r.entities) > 100 {
		t.Errorf("%d entries kept after sweeping", len(r.entities))
	}
}

func TestBehaviorsAskAboutTheSession(t *testing.T) {
	src := `
Asker = {}
function Asker:on_fixed_update(dt)
	self:emit("session", { gone = net.is_disconnected(), why = net.last_error() })
end
function vkmRegisterBehaviors(r) r.asker = Asker end
`
	r, w := newTest(t, src)
	id := w.add("a")
	attach(t, r, id, "asker")
	r.FixedUpdate(1.0/64, false)
	w.lastError = "The server stopped answering."
	r.FixedUpdate(1.0/64, false)
	got := w.eventsNamed("session")
	if len(got) != 2 || got[0]["gone"] != false || got[0]["why"] != "" ||
		got[1]["gone"] != true || got[1]["why"] != "The server stopped answering." {
		t.Fatalf("session answers %v", got)
	}
}

// TestRewindCallsThrough checks net.rewind's contract with the world: the
// calling entity is named, the function gets the extra arguments and its
// results come back, a nested call reaches the world too (the world decides
// it changes nothing), and an error inside it is the callback's error,
// naming its line.
func TestRewindCallsThrough(t *testing.T) {
	src := `
Shooter = {}
function Shooter:on_fixed_update(dt)
	local a, b = net.rewind(function(x, y)
		return net.rewind(function() return x + y, "inner" end)
	end, 2, 3)
	self:emit("shot", { sum = a, tag = b })
	if self:name() == "bad" then
		net.rewind(function() error("boom") end)
	end
end
function vkmRegisterBehaviors(r) r.shooter = Shooter end
`
	var errs []ScriptError
	r, w, err := tryNew(t, Config{OnError: func(e ScriptError) { errs = append(errs, e) }}, src)
	if err != nil {
		t.Fatal(err)
	}
	id := w.add("s")
	attach(t, r, id, "shooter")
	bad := w.add("bad")
	attach(t, r, bad, "shooter")
	r.FixedUpdate(1.0/64, false)
	got := w.eventsNamed("shot")
	if len(got) != 2 || got[0]["sum"] != float64(5) || got[0]["tag"] != "inner" {
		t.Fatalf("net.rewind returned %v", got)
	}
	if len(w.rewinds) != 5 || w.rewinds[0] != id || w.rewinds[1] != id || w.rewinds[4] != bad {
		t.Fatalf("rewinds named %v, want the shooter twice, then the other three times", w.rewinds)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "boom") || !strings.Contains(errs[0].Error(), "main.lua:9") {
		t.Fatalf("errors %v, want boom at line 9", errs)
	}
}

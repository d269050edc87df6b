package game

import (
	"strings"
	"testing"

	"vkm/host/project"
	"vkm/internal/entity"
)

// bindingScene is a floor, a static post, two crates side by side and a
// ball in the air, all with behaviors of the script under test.
const bindingScene = `[[entity]]
id = 1
name = "floor"
[entity.body]
type = "static"
[[entity.body.shape]]
box = [40.0, 1.0]
[[entity]]
id = 2
name = "post"
transform = { x = -5.0, y = 4.5 }
[entity.body]
type = "static"
[[entity.body.shape]]
box = [0.2, 8.0]
[[entity]]
id = 3
name = "crate"
behavior = "probe"
transform = { x = 0.0, y = 1.0 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [1.0, 1.0]
[[entity]]
id = 4
name = "other"
transform = { x = 3.0, y = 1.0 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [1.0, 1.0]
density = 2.0
[[entity]]
id = 5
name = "ball"
transform = { x = -4.0, y = 6.0 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
circle = 0.25
`

// runProbe runs script's probe behavior for ticks ticks in the binding
// scene and returns the "fail" and "ok" events it emitted, failing on
// script errors.
func runProbe(t *testing.T, script string, ticks int) (fails []string, oks int) {
	t.Helper()
	p := miniProject(t, map[string]string{"scene.toml": bindingScene, "scripts/main.lua": script})
	p.Categories = []string{"ghost", "solid"}
	g := newGame(t, p)
	g.WatchEvents(func(name string, _ entity.ID, f map[string]any) {
		switch name {
		case "fail":
			fails = append(fails, f["msg"].(string))
		case "ok":
			oks++
		}
	})
	for range ticks {
		g.RunTick()
	}
	for _, e := range g.ScriptErrors() {
		t.Errorf("script error: %v", e)
	}
	return fails, oks
}

const probePrelude = `
local Probe = {}
local function near(a, b, tol) return a ~= nil and b ~= nil and math.abs(a - b) <= (tol or 1e-6) end
function Probe:check(cond, msg) if cond then self:emit("ok") else self:emit("fail", { msg = msg }) end end
function vkmRegisterBehaviors(r) r.probe = Probe end
`

// TestBodyBindings calls every body method from Lua and checks what comes
// back against the scene: mass, inertia and centre, type changes,
// enabling, damping and gravity, shapes added and removed, filters by
// name, and forces and impulses moving the body.
func TestBodyBindings(t *testing.T) {
	fails, oks := runProbe(t, probePrelude+`
function Probe:on_fixed_update(dt)
  local t = vkm.tick()
  local other = vkm.find("other")
  if t == 1 then
    self:check(near(self:mass(), 1) and near(other:mass(), 2), "mass " .. tostring(self:mass()))
    self:check(near(self:inertia(), 1/6), "inertia " .. tostring(self:inertia()))
    local cx, cy = self:center_of_mass()
    self:check(near(cx, 0) and near(cy, 1), "centre " .. tostring(cx) .. "," .. tostring(cy))
    self:check(self:body_type() == "dynamic" and vkm.find("floor"):body_type() == "static", "types")
    self:check(self:enabled() == true and self:shape_count() == 1, "enabled, shapes")
    local i = self:add_shape({ box = {0.5, 0.5}, offset = {1, 0}, density = 4 })
    self:check(i == 2 and self:shape_count() == 2 and near(self:mass(), 2), "add_shape " .. tostring(i) .. " mass " .. tostring(self:mass()))
    local cx2 = self:center_of_mass()
    self:check(near(cx2, 0.5), "centre after add " .. tostring(cx2))
    self:remove_shape(2)
    self:check(self:shape_count() == 1 and near(self:mass(), 1), "remove_shape")
    self:check(not pcall(function() self:remove_shape(1) end), "removing the last shape is an error")
    self:set_damping(2, 3)
    local l, a = self:damping()
    self:check(l == 2 and a == 3, "damping")
    self:set_gravity_scale(0.5)
    self:check(self:gravity_scale() == 0.5, "gravity scale")
    self:set_filter({ category = "ghost", mask = {"default", "solid"}, group = -2 })
    local f = self:filter()
    self:check(f.category[1] == "ghost" and #f.mask == 2 and f.mask[2] == "solid" and f.group == -2, "filter")
    local ok, err = pcall(function() self:set_filter({ category = "gost" }) end)
    self:check(not ok and tostring(err):find("unknown collision category \"gost\"", 1, true) ~= nil, "unknown category: " .. tostring(err))
    self:check(not pcall(function() self:add_shape({ box = {0, 1} }) end), "a zero box is refused")
    self:check(not pcall(function() self:add_shape({ box = {1, 1}, colour = "red" }) end), "an unknown shape key is refused")
    other:set_body_type("static")
    self:check(other:body_type() == "static" and near(other:mass(), 0), "made static")
  elseif t == 2 then
    other:set_body_type("dynamic")
    self:set_filter({ category = "default", mask = {"default", "ghost", "solid"}, group = 0 })
    self:set_damping(0, 0)
    self:set_gravity_scale(1)
    self.x0 = self:position()
  elseif t >= 3 and t < 35 then
    self:apply_force(40, 0)
  elseif t == 35 then
    local x = self:position()
    self:check(x - self.x0 > 0.3, "a 40 N push for half a second moved it " .. tostring(x - self.x0))
    local ball = vkm.find("ball")
    ball:set_gravity_scale(0)
    ball:set_velocity(0, 0)
    ball:apply_angular_impulse(0.1)
    self:check(ball:angular_velocity() > 0, "angular impulse spins at once")
    ball:apply_impulse(0, 0.5, -4, 6.25)
    local vx = ball:velocity()
    self:check(near(vx, 0) , "an impulse at the top, straight up, does not push sideways")
    other:set_enabled(false)
  elseif t == 36 then
    local found = false
    for _, e in ipairs(self:query(-20, 0.6, 20, 1.4)) do found = found or e == other end
    self:check(other:enabled() == false and not found, "a disabled body is in no query")
    other:set_enabled(true)
  end
end
`, 40)
	for _, f := range fails {
		t.Error(f)
	}
	t.Logf("%d checks passed", oks)
	if oks+len(fails) != 20 {
		t.Errorf("%d checks ran, want 20", oks+len(fails))
	}
}

// TestJointBindings makes, reads, changes and destroys joints from Lua,
// finds a scene's by name, and checks the errors a behavior is given.
func TestJointBindings(t *testing.T) {
	fails, oks := runProbe(t, probePrelude+`
function Probe:on_fixed_update(dt)
  local t = vkm.tick()
  local other, ball, post = vkm.find("other"), vkm.find("ball"), vkm.find("post")
  if t == 1 then
    self.hinge = vkm.joint("revolute", post, ball, { anchor = {-5, 7}, limits = {-1, 1}, motor_speed = 1, max_torque = 5, name = "pin" })
    self:check(self.hinge:alive() and self.hinge:kind() == "revolute" and self.hinge:name() == "pin", "made")
    local a, b = self.hinge:bodies()
    self:check(a == post and b == ball, "bodies")
    self:check(ball:joint("pin") == self.hinge and #ball:joints() == 1, "found by name, same handle")
    local lo, hi = self.hinge:limits()
    self:check(lo == -1 and hi == 1 and self.hinge:limits_enabled() and self.hinge:motor_enabled() and self.hinge:motor_speed() == 1, "limits and motor")
    self.rope = vkm.joint("rope", self, other, { length = 4 })
    self:check(self.rope:length() == 4, "rope length")
    self.drag = vkm.joint("mouse", other, nil, { target = {3, 3}, max_force = 200 })
    local ok, err = pcall(vkm.joint, "revolute", self, other, { length = 3 })
    self:check(not ok and tostring(err):find("a revolute joint takes no length", 1, true) ~= nil, "wrong option: " .. tostring(err))
    ok, err = pcall(vkm.joint, "prismatic", self, other, {})
    self:check(not ok and tostring(err):find("axis", 1, true) ~= nil, "prismatic without axis: " .. tostring(err))
    ok, err = pcall(vkm.joint, "revolute", self, other, { motor_speed = 2 })
    self:check(not ok and tostring(err):find("max_torque", 1, true) ~= nil, "motor without torque names max_torque: " .. tostring(err))
    ok, err = pcall(vkm.joint, "weld", post, vkm.find("floor"), {})
    self:check(not ok and tostring(err):find("neither body is dynamic", 1, true) ~= nil, "two statics: " .. tostring(err))
    ok = pcall(vkm.joint, "hinge", self, other)
    self:check(not ok, "unknown kind")
    local drag = vkm.joint("friction", self, other, { max_force = 3, max_torque = 1 })
    self:check(drag:kind() == "friction" and drag:max_force() == 3 and drag:max_torque() == 1, "friction made")
    drag:destroy()
    ok, err = pcall(vkm.joint, "friction", self, other, {})
    self:check(not ok and tostring(err):find("max_force", 1, true) ~= nil, "friction holding nothing names max_force: " .. tostring(err))
  elseif t == 40 then
    local fx, fy = self.hinge:reaction_force()
    self:check(fx ~= nil and math.sqrt(fx*fx + fy*fy) > 1, "the hinge holds the ball: " .. tostring(fx) .. "," .. tostring(fy))
    local ax, ay, bx, by = self.hinge:anchors()
    self:check(near(ax, -5, 0.01) and near(ay, 7, 0.01) and near(bx, -5, 0.01) and near(by, 7, 0.01), "anchors at the pin")
    self:check(self.hinge:angle() >= -1.1 and self.hinge:angle() <= 1.1, "within its limits")
    local tx, ty = other:position()
    self:check(math.abs(ty - 3) < 0.6, "dragged toward the target: " .. tostring(ty))
    self.hinge:set_motor_speed(-2)
    self.hinge:set_max_torque(50)
    self.hinge:set_limits(-0.5, 0.5)
    self:check(self.hinge:motor_speed() == -2 and self.hinge:max_torque() == 50, "motor changed")
    self:check(not pcall(function() self.hinge:set_limits(1, -1) end), "limits the wrong way round")
    self.drag:set_target(0, 4)
    local x, y = self.drag:target()
    self:check(x == 0 and y == 4, "target moved")
    self.rope:set_length(2.5)
    self:check(self.rope:length() == 2.5, "rope shortened")
  elseif t == 90 then
    self:check(self.rope:distance() <= 2.55, "the rope holds at its new length: " .. tostring(self.rope:distance()))
    self:check(math.abs(self.hinge:speed()) < 2.5, "hinge speed " .. tostring(self.hinge:speed()))
    self.drag:destroy()
    self:check(not self.drag:alive() and self.drag:kind() == nil, "destroyed")
    other:destroy()
    self:check(not self.rope:alive(), "a joint goes with its body")
  end
end
`, 92)
	for _, f := range fails {
		t.Error(f)
	}
	t.Logf("%d checks passed", oks)
	if oks+len(fails) != 24 {
		t.Errorf("%d checks ran, want 24", oks+len(fails))
	}
}

// TestJointWritesAreRefusedInOnUpdate: on_update is presentation only, so a
// joint's setters raise an error there, as every world writer does.
func TestJointWritesAreRefusedInOnUpdate(t *testing.T) {
	p := miniProject(t, map[string]string{"scene.toml": bindingScene, "scripts/main.lua": `
local Probe = {}
function Probe:on_start() self.j = vkm.joint("distance", self, vkm.find("other")) end
function Probe:on_update(dt) self.j:set_length(1) end
function vkmRegisterBehaviors(r) r.probe = Probe end
`})
	g := newGame(t, p)
	g.Frame(1e9/64, nil, nil)
	errs := g.ScriptErrors()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "set_length changes the world") {
		t.Errorf("errors %v, want set_length refused in on_update", errs)
	}
}

// TestAddShapeTakesAFilesDefaults: a shape a behavior adds without
// material has the material a scene's shape has without one.
func TestAddShapeTakesAFilesDefaults(t *testing.T) {
	p := miniProject(t, map[string]string{"scene.toml": bindingScene, "scripts/main.lua": `
local Probe = {}
function Probe:on_start() self:add_shape({ circle = 0.2, offset = {0, 1} }) end
function vkmRegisterBehaviors(r) r.probe = Probe end
`})
	g := newGame(t, p)
	s := g.Store().Body(g.SceneIDs()[2]).Shapes[1]
	if s.Density != project.DefaultDensity || s.Friction != project.DefaultFriction || s.Restitution != project.DefaultRestitution {
		t.Errorf("added shape %+v, want a file's defaults (%v, %v, %v)", s, project.DefaultDensity, project.DefaultFriction, project.DefaultRestitution)
	}
	if g.BodyEdits() == 0 {
		t.Error("adding a shape did not count as a body edit")
	}
}

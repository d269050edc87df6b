package game

import (
	"math"
	"testing"
	"testing/fstest"

	"vkm/host/project"
	"vkm/prediction"
)

// pointerProject is a player's hand that drags a crate with a mouse joint
// to where the pointer is: point_x and point_y axes over 8 m, and a grab
// button. The hand stands still; the crate lies on the floor beside it.
const pointerProject = `name = "pointer"
players = 1
entryScene = "scene.toml"
entryScript = "scripts/main.lua"
[[axis]]
name = "px"
mouse = "point_x"
reach = 8.0
[[axis]]
name = "py"
mouse = "point_y"
reach = 8.0
[[button]]
name = "grab"
mouse = "left"
`

const pointerScene = `[[entity]]
id = 1
name = "floor"
[entity.body]
type = "static"
[[entity.body.shape]]
box = [40.0, 1.0]
[[entity]]
id = 2
name = "crate"
transform = { x = 2.0, y = 1.0 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [1.0, 1.0]
`

const pointerHand = `[[entity]]
uid = 1
name = "hand"
behavior = "hand"
[entity.body]
type = "static"
[[entity.body.shape]]
circle = 0.2
sensor = true
`

// The hand: while grab is held, the crate is pulled to the pointed place,
// the hand's position plus the pointer axes times their reach.
const pointerScript = `
local REACH = 8
local Hand = {}
function Hand:on_fixed_update(dt)
  local c = self:command()
  local crate = vkm.find("crate")
  if c.held.grab then
    local hx, hy = self:position()
    local tx, ty = hx + c.axis.px * REACH, hy + c.axis.py * REACH
    if not self.grip then
      local x, y = crate:position()
      self.grip = vkm.joint("mouse", crate, nil, { anchor = {x, y}, target = {tx, ty}, max_force = 2000 })
    end
    self.grip:set_target(tx, ty)
  elseif self.grip then
    self.grip:destroy()
    self.grip = nil
  end
end
function vkmRegisterBehaviors(r) r.hand = Hand end
function vkmSetupNetwork(net)
  net.on_join(function(player) return net.spawn("prefabs/hand.toml", 0, 1) end)
end
`

// TestPointerAxesDragABody: axes with mouse = "point_x" and "point_y"
// give a behavior the pointed place (its position plus the axes times
// their reach): a crate held there by a mouse joint goes to it, and stays
// when the button is let go.
func TestPointerAxesDragABody(t *testing.T) {
	p, err := project.ParseProject("pointer/project.toml", []byte(pointerProject))
	if err != nil {
		t.Fatal(err)
	}
	if a := p.Axes[0]; a.Mouse != "point_x" || a.Reach != 8 {
		t.Fatalf("axis %+v", a)
	}
	p.Dir = "pointer"
	p.FS = fstest.MapFS{
		"scene.toml":        {Data: []byte(pointerScene)},
		"prefabs/hand.toml": {Data: []byte(pointerHand)},
		"scripts/main.lua":  {Data: []byte(pointerScript)},
	}
	g := newGame(t, p)
	hand := g.Own()
	if hand.IsNone() {
		t.Fatal("the join handler gave the player no hand")
	}
	crate := find(t, g, "crate")
	ticks(g, 32)
	hx, hy := g.Store().Transform(hand).X, g.Store().Transform(hand).Y
	// The page's axes for a pointer at (-4, 3.5): the offset from the hand
	// over 8 m, as vkm.js rounds them.
	target := [2]float64{-4, 3.5}
	round3 := func(v float64) float64 { return math.Round(v*1000) / 1000 }
	var c prediction.Command
	c.Axes[0], c.Axes[1] = round3((target[0]-hx)/8), round3((target[1]-hy)/8)
	c.Held, c.Pressed = 1, 1
	g.SetCommand(c)
	g.RunTick()
	c.Pressed = 0
	g.SetCommand(c)
	ticks(g, 2*64)
	tr := g.Store().Transform(crate)
	if d := math.Hypot(tr.X-target[0], tr.Y-target[1]); d > 0.1 {
		t.Fatalf("the crate is at (%.2f, %.2f), %.2f m from the pointed place (%.2f, %.2f)", tr.X, tr.Y, d, target[0], target[1])
	}
	t.Logf("hand at (%.2f, %.2f); axes %.3f, %.3f; the crate dragged to (%.2f, %.2f)", hx, hy, c.Axes[0], c.Axes[1], tr.X, tr.Y)
	g.SetCommand(prediction.Command{})
	ticks(g, 2*64)
	if tr := g.Store().Transform(crate); tr.Y > 1.1 || math.Abs(tr.X-target[0]) > 1 {
		t.Fatalf("let go, the crate is at (%.2f, %.2f): it should have fallen to the floor below the place", tr.X, tr.Y)
	}
	for _, e := range g.ScriptErrors() {
		t.Errorf("script error: %v", e)
	}
}

package scripting

import (
	"cmp"
	"math"
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// commandTable is the one table self:command() returns, refilled on every
// call instead of built: {axis = {name = -1..1}, held = {name = bool},
// pressed = {name = bool}} over the project's actions.
type commandTable struct {
	tbl, axis, held, pressed *lua.LTable
	axes, buttons            []string
}

func newCommandTable(L *lua.LState, axes, buttons []string) commandTable {
	c := commandTable{
		tbl:     L.CreateTable(0, 3),
		axis:    L.CreateTable(0, len(axes)),
		held:    L.CreateTable(0, len(buttons)),
		pressed: L.CreateTable(0, len(buttons)),
		axes:    axes,
		buttons: buttons,
	}
	return c
}

// luaCommand implements self:command(): the command driving the entity this
// tick (World.Command), or an empty one (axes 0, buttons false) when none
// does. Each entity the runtime knows has one table, returned every time
// and refilled, so it holds this call's answer only until the next call
// for the entity; from one tick to the next an entity's command mostly
// stays as it was, so most of a refill only reads (one table shared by
// every player's character was rewritten at nearly every call).
func (r *Runtime) luaCommand(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	c := &r.cmd
	if e := r.entities[id]; e != nil {
		if e.cmd == nil {
			t := newCommandTable(L, r.cfg.Axes, r.cfg.Buttons)
			e.cmd = &t
		}
		c = e.cmd
	}
	cmd := r.world.Command(id)
	for i, name := range c.axes {
		v := 0.0
		if cmd != nil {
			v = clampAxis(cmd.Axis(i))
		}
		// refill(c.axis, name, r.num.box(v)), boxing only a new value.
		if cur, ok := c.axis.RawGetString(name).(lua.LNumber); !ok || cur != lua.LNumber(v) {
			c.axis.RawSetString(name, r.num.box(v))
		}
	}
	for i, name := range c.buttons {
		refill(c.held, name, lua.LBool(cmd != nil && cmd.IsHeld(i)))
		refill(c.pressed, name, lua.LBool(cmd != nil && cmd.WasPressed(i)))
	}
	// A script may have written into the table; put the parts back.
	refill(c.tbl, "axis", c.axis)
	refill(c.tbl, "held", c.held)
	refill(c.tbl, "pressed", c.pressed)
	L.Push(c.tbl)
	return 1
}

// refill sets t[key] to v unless it holds v already. A raw write costs
// gopher-lua two map operations and a read one, and from one tick to the
// next most of a command's values stay as they were.
func refill(t *lua.LTable, key string, v lua.LValue) {
	if t.RawGetString(key) != v {
		t.RawSetString(key, v)
	}
}

// clampAxis keeps an axis in -1..1, whatever a command decoded to.
func clampAxis(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return math.Max(-1, math.Min(1, v))
}

func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

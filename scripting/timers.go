package scripting

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"

	"vkm/internal/entity"
)

// Timers and cooldowns count ticks, never wall time, and keep their state
// as a deadline (a tick number) in a project component field, where the
// wire carries it and a client's replay finds it. A Lua local or a field on
// self would be neither carried nor rewound.
//
// Deadlines are counted on an entity's clock: World.RollTick, the tick
// that also keys its math.random. That is this end's tick, except on a
// server for the entity a player's commands drive (and what hangs below
// it), where it is the client tick of the command being run: the player's
// client predicted the character with its own tick numbers, and the
// deadline the server stores must be the one that client stored.

// DefaultTickRate is the tick rate vkm.after and vkm.seconds convert with
// when Config.TickRate is 0: a project's default.
const DefaultTickRate = 64

// tickEpsilon absorbs the rounding of seconds × rate, so 0.3 s at 10 Hz is
// 3 ticks, not 4 (0.3 × 10 = 3.0000000000000004).
const tickEpsilon = 1e-9

// installTimers adds after and seconds to the vkm table.
func (r *Runtime) installTimers(vkm *lua.LTable) {
	L := r.ls
	vkm.RawSetString("after", L.NewFunction(r.luaAfter))
	vkm.RawSetString("seconds", L.NewFunction(r.luaSeconds))
}

// clock returns the tick id's deadlines are counted in; outside any
// entity's callback (a join handler, vkmBuildScene), this end's tick.
func (r *Runtime) clock(id entity.ID) uint32 {
	if id.IsNone() {
		return r.world.Tick()
	}
	return r.world.RollTick(id)
}

// ticksIn returns the whole ticks that cover seconds (argument n), rounded
// up: a cooldown is never shorter than asked for.
func (r *Runtime) ticksIn(L *lua.LState, n int) float64 {
	s := checkFinite(L, n)
	if s < 0 {
		L.ArgError(n, "seconds must be zero or more")
	}
	return math.Ceil(s*float64(r.cfg.TickRate) - tickEpsilon)
}

// luaAfter implements vkm.after(seconds): the tick that many seconds from
// now on the clock of the entity whose callback is running.
func (r *Runtime) luaAfter(L *lua.LState) int {
	L.Push(r.num.box(float64(r.clock(r.current)) + r.ticksIn(L, 1)))
	return 1
}

// luaSeconds implements vkm.seconds(ticks): ticks at the project's rate.
func (r *Runtime) luaSeconds(L *lua.LState) int {
	L.Push(r.num.box(checkFinite(L, 1) / float64(r.cfg.TickRate)))
	return 1
}

// deadline resolves the project component field (arguments 2 and 3) that
// holds id's deadline. It returns the component's values and the field's
// index, or nil values when the entity lacks the component.
func (r *Runtime) deadline(L *lua.LState, id entity.ID, what string) (entity.Values, int) {
	typ, name := L.CheckString(2), L.CheckString(3)
	if _, engine := engineFields[typ]; engine {
		L.ArgError(2, typ+" is an engine component; keep a deadline in a field of a project component")
	}
	t := r.projectType(L, 2, typ)
	f, codec := r.projectField(L, 3, t, name)
	// The largest deadline must come back from the codec as it went in.
	if probe := float64(math.MaxUint32); codec.Quantize(probe) != probe {
		L.ArgError(3, fmt.Sprintf("%s %s.%s cannot hold a tick number exactly (declare it net.int(0, 4294967295))", what, typ, name))
	}
	vals := r.world.Component(id, t)
	if f >= len(vals) {
		return nil, f
	}
	return vals, f
}

// luaCooldown implements self:cooldown(component, field, seconds): true,
// storing a new deadline seconds from now, when the deadline the field
// holds has come (or it holds 0); false otherwise, changing nothing. The
// entity must have the component.
func (r *Runtime) luaCooldown(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	vals, f := r.deadline(L, id, "cooldown")
	ticks := r.ticksIn(L, 4)
	if vals == nil {
		L.RaiseError("entity %v has no %s (add it first with self:add)", id, L.CheckString(2))
	}
	now := float64(r.clock(id))
	if d := vals[f]; d != 0 && now < d {
		L.Push(lua.LFalse)
		return 1
	}
	vals[f] = math.Min(now+ticks, math.MaxUint32)
	L.Push(lua.LTrue)
	return 1
}

// luaRemaining implements self:remaining(component, field): the seconds
// from now until the deadline the field holds, 0 once it has come; nil
// without the component.
func (r *Runtime) luaRemaining(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	vals, f := r.deadline(L, id, "remaining")
	if vals == nil {
		return 0
	}
	left := vals[f] - float64(r.clock(id))
	L.Push(r.num.box(math.Max(0, left) / float64(r.cfg.TickRate)))
	return 1
}

package scripting

import (
	"errors"
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"vkm/internal/entity"
	"vkm/replication"
)

// newNetTable builds the net passed to vkmSetupNetwork:
//
//	net.component(name, { {field, codec}, ... })  -- a replicated type
//	net.bool, net.float32                         -- codecs (net.bool() too)
//	net.int(min, max), net.fixed(min, max, step)  -- codecs
//	net.on_join(function(player) return entity_or_nil end)
//	net.on_leave(function(player, entity) return keep end)
//	net.on_drain(function(seconds_left) end)      -- the server is stopping
//	net.players(), net.role(), net.local_player() -- who plays, which end
//	net.spawn(prefab, x, y [, angle [, scale]])   -- as self:spawn
//	net.is_disconnected(), net.last_error()       -- the session, from any callback
//	net.rewind(fn, ...)                           -- fn(...) with the players where the shooter saw them
//	net.message, net.on_message, net.send, net.send_to, net.broadcast -- messages (messages.go)
//
// The same table is the global net, so behaviors can ask about the session.
// Reading any other key of net is an error, so a typo such as net.uint8
// names its line instead of passing nil on as a codec.
func (r *Runtime) newNetTable() *lua.LTable {
	L := r.ls
	codecMeta := L.NewTable()
	rawSetString(codecMeta, "__call", newFunction(L, func(L *lua.LState) int {
		L.Push(L.Get(1))
		return 1
	}))
	rawSetString(codecMeta, "__tostring", newFunction(L, func(L *lua.LState) int {
		c, _ := codecOf(L.Get(1))
		L.Push(lua.LString(fmt.Sprintf("codec %s %g..%g/%g", c.Kind, c.Min, c.Max, c.Step)))
		return 1
	}))
	codec := func(c replication.Codec) *lua.LUserData {
		ud := L.NewUserData()
		ud.Value, ud.Metatable = c, codecMeta
		return ud
	}
	net := L.NewTable()
	rawSetString(net, "bool", codec(replication.BoolCodec()))
	rawSetString(net, "float32", codec(replication.Float32Codec()))
	rawSetString(net, "int", newFunction(L, func(L *lua.LState) int {
		c, err := replication.IntCodec(checkInt(L, 1), checkInt(L, 2))
		raiseCodec(L, "net.int", err)
		L.Push(codec(c))
		return 1
	}))
	rawSetString(net, "fixed", newFunction(L, func(L *lua.LState) int {
		c, err := replication.FixedCodec(float64(L.CheckNumber(1)), float64(L.CheckNumber(2)), float64(L.CheckNumber(3)))
		raiseCodec(L, "net.fixed", err)
		L.Push(codec(c))
		return 1
	}))
	rawSetString(net, "component", newFunction(L, r.luaComponentType))
	rawSetString(net, "on_join", newFunction(L, r.luaOnJoin))
	rawSetString(net, "on_leave", newFunction(L, r.luaOnLeave))
	rawSetString(net, "on_drain", newFunction(L, r.luaOnDrain))
	rawSetString(net, "players", newFunction(L, r.luaPlayers))
	rawSetString(net, "spectators", newFunction(L, r.luaSpectators))
	rawSetString(net, "killcam", newFunction(L, r.luaKillcam))
	rawSetString(net, "role", newFunction(L, r.luaRole))
	rawSetString(net, "local_player", newFunction(L, r.luaLocalPlayer))
	rawSetString(net, "spawn", newFunction(L, r.simulationOnly("net.spawn", r.luaNetSpawn)))
	rawSetString(net, "is_disconnected", newFunction(L, func(L *lua.LState) int {
		L.Push(lua.LBool(r.world.Disconnected()))
		return 1
	}))
	rawSetString(net, "last_error", newFunction(L, func(L *lua.LState) int {
		L.Push(lua.LString(r.world.LastError()))
		return 1
	}))
	rawSetString(net, "rewind", newFunction(L, r.luaRewind))
	r.installMessages(net)
	r.installVoice(net)
	meta := L.NewTable()
	rawSetString(meta, "__index", newFunction(L, func(L *lua.LState) int {
		L.RaiseError("net has no field %q (it has bool, broadcast, component, fixed, float32, int, is_disconnected, killcam, last_error, local_player, message, on_chat, on_drain, on_join, on_leave, on_message, players, rewind, role, send, send_to, spawn, spectators, tell, voice_hears)", L.Get(2).String())
		return 0
	}))
	net.Metatable = meta
	return net
}

func codecOf(v lua.LValue) (replication.Codec, bool) {
	ud, ok := v.(*lua.LUserData)
	if !ok {
		return replication.Codec{}, false
	}
	c, ok := ud.Value.(replication.Codec)
	return c, ok
}

// checkInt returns argument n as a whole number.
func checkInt(L *lua.LState, n int) int64 {
	v := float64(L.CheckNumber(n))
	if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
		L.ArgError(n, "whole number expected")
	}
	return int64(v)
}

func raiseCodec(L *lua.LState, what string, err error) {
	if err != nil {
		L.RaiseError("%s: %s", what, strings.TrimPrefix(err.Error(), "replication: "))
	}
}

// luaComponentType implements net.component(name, fields). Every error it
// raises names the line of the call.
func (r *Runtime) luaComponentType(L *lua.LState) int {
	if r.building == nil {
		L.RaiseError("net.component may only be called while vkmSetupNetwork runs")
	}
	name := L.CheckString(1)
	list := L.CheckTable(2)
	n := list.Len()
	var fields []replication.Field
	for k, _ := list.Next(lua.LNil); k != lua.LNil; k, _ = list.Next(k) {
		if i, ok := k.(lua.LNumber); !ok || float64(i) != math.Trunc(float64(i)) || i < 1 || int(i) > n {
			L.RaiseError("net.component(%q): fields must be a list of {name, codec} pairs in wire order, found key %s", name, k.String())
		}
	}
	for i := 1; i <= n; i++ {
		fields = append(fields, r.fieldPair(L, name, i, list.RawGetInt(i)))
	}
	where := strings.TrimSuffix(L.Where(1), ":")
	if err := r.building.Add(replication.Type{Name: name, Fields: fields, Where: where}); err != nil {
		L.RaiseError("net.component(%q): %s", name, strings.TrimPrefix(err.Error(), "replication: "))
	}
	return 0
}

// fieldPair reads the i-th {name, codec} pair of a component's field list.
func (r *Runtime) fieldPair(L *lua.LState, typ string, i int, v lua.LValue) replication.Field {
	pair, ok := v.(*lua.LTable)
	if !ok {
		L.RaiseError("net.component(%q): field %d must be a {name, codec} pair, got %s", typ, i, v.Type())
	}
	fname, ok := pair.RawGetInt(1).(lua.LString)
	if !ok || fname == "" {
		L.RaiseError("net.component(%q): field %d has no name", typ, i)
	}
	cv := pair.RawGetInt(2)
	if cv == lua.LNil {
		L.RaiseError("net.component(%q): field %q has no codec (use net.bool, net.int(min, max), net.fixed(min, max, step) or net.float32)", typ, string(fname))
	}
	c, ok := codecOf(cv)
	if !ok {
		L.RaiseError("net.component(%q): field %q: %s is not a codec (use net.bool, net.int(min, max), net.fixed(min, max, step) or net.float32)", typ, string(fname), cv.Type())
	}
	if pair.Len() > 2 {
		L.RaiseError("net.component(%q): field %q: a pair has two elements, {name, codec}", typ, string(fname))
	}
	return replication.Field{Name: string(fname), Codec: c}
}

// luaOnJoin implements net.on_join(fn).
func (r *Runtime) luaOnJoin(L *lua.LState) int {
	if r.building == nil {
		L.RaiseError("net.on_join may only be called while vkmSetupNetwork runs")
	}
	fn := L.CheckFunction(1)
	if r.newJoin != nil {
		L.RaiseError("net.on_join called twice")
	}
	r.newJoin = fn
	return 0
}

// HasNetwork reports whether the entry script defines vkmSetupNetwork, i.e.
// whether the project can be served.
func (r *Runtime) HasNetwork() bool {
	_, ok := r.global("vkmSetupNetwork")
	return ok
}

// SetupNetwork runs vkmSetupNetwork(net) and returns the schema it
// registered, built from nothing on every run (the previous schema, join
// and leave handlers are kept only if this run fails). A project without
// vkmSetupNetwork gets an empty schema and no join handler. A script error,
// a field without a codec, a bad codec or a duplicate name comes back as a
// *ScriptError naming the script line.
func (r *Runtime) SetupNetwork() (*replication.Schema, error) {
	if r.closed {
		return nil, errors.New("scripting: runtime is closed")
	}
	fn, ok := r.global("vkmSetupNetwork")
	if !ok {
		if v := r.ls.G.Global.RawGetString("vkmSetupNetwork"); v != lua.LNil {
			return nil, fmt.Errorf("scripting: vkmSetupNetwork is a %s, want a function", v.Type())
		}
		r.useSchema(&replication.Schema{}, nil, nil, nil)
		return r.schema, nil
	}
	r.building, r.newJoin, r.newLeave, r.newDrain = &replication.Schema{}, nil, nil, nil
	r.beginMessages()
	err := r.callSetup("vkmSetupNetwork", keyNetwork, fn, 0, r.netTable)
	r.endMessages(err == nil)
	built, join, leave, drain := r.building, r.newJoin, r.newLeave, r.newDrain
	r.building, r.newJoin, r.newLeave, r.newDrain = nil, nil, nil, nil
	if err != nil {
		return nil, err
	}
	r.useSchema(built, join, leave, drain)
	return r.schema, nil
}

func (r *Runtime) useSchema(s *replication.Schema, join, leave, drain *lua.LFunction) {
	r.schema, r.join, r.leave, r.drain = s, join, leave, drain
	r.types = make(map[string]int, len(s.Types))
	r.fields = make([]map[string]int, len(s.Types))
	for i, t := range s.Types {
		r.types[t.Name] = i
		r.fields[i] = make(map[string]int, len(t.Fields))
		for j, f := range t.Fields {
			r.fields[i][f.Name] = j
		}
	}
}

// Schema returns the schema of the last successful SetupNetwork (empty
// before). The caller must not modify it.
func (r *Runtime) Schema() *replication.Schema { return r.schema }

// HasJoinHandler reports whether the last SetupNetwork registered a join
// handler with net.on_join.
func (r *Runtime) HasJoinHandler() bool { return r.join != nil }

// Join calls the join handler with the joining player's number and returns
// the entity it returned for that player, or entity.None if it returned nil
// (the join is refused). A script error, or a return value that is neither
// an entity nor nil, is an error.
func (r *Runtime) Join(player uint16) (entity.ID, error) {
	if r.join == nil {
		return entity.None, errors.New("scripting: no join handler (register one with net.on_join in vkmSetupNetwork)")
	}
	if err := r.callSetup("join handler", keyJoin^uint64(player)<<32, r.join, 1, lua.LNumber(player)); err != nil {
		return entity.None, err
	}
	v := r.ls.Get(-1)
	r.ls.Pop(1)
	if v == lua.LNil || v == lua.LFalse {
		return entity.None, nil
	}
	id, ok := entityOf(v)
	if !ok {
		return entity.None, fmt.Errorf("scripting: join handler returned a %s, want an entity or nil", v.Type())
	}
	return id, nil
}

// BuildScene runs vkmBuildScene(scene) if the entry script defines it;
// scene:spawn(prefab, x, y [, angle]) builds a prefab and returns its
// handle, scene:find(name) finds an entity by name. Errors come back as a
// *ScriptError naming the script line.
func (r *Runtime) BuildScene() error {
	if r.closed {
		return errors.New("scripting: runtime is closed")
	}
	fn, ok := r.global("vkmBuildScene")
	if !ok {
		return nil
	}
	return r.callSetup("vkmBuildScene", keyScene, fn, 0, r.sceneTable)
}

// luaRewind implements net.rewind(fn, ...): it calls fn with the remaining
// arguments and returns what fn returns, while the world has every other
// player back where the player driving the calling entity saw them (see
// World.Rewind). Offline, on a client, outside a player's entity and
// inside another net.rewind it is a plain call.
func (r *Runtime) luaRewind(L *lua.LState) int {
	top := L.GetTop()
	fn := L.CheckFunction(1)
	r.world.Rewind(r.current, func() {
		L.Push(fn)
		for i := 2; i <= top; i++ {
			L.Push(L.Get(i))
		}
		L.Call(top-1, lua.MultRet)
	})
	return L.GetTop() - top
}

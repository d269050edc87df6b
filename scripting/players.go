package scripting

import (
	"fmt"
	"time"

	lua "github.com/yuin/gopher-lua"

	"vkm/internal/entity"
)

// Role says which end of a session a world runs on.
type Role uint8

// The roles.
const (
	// RoleOffline: nobody else plays; this end decides everything.
	RoleOffline Role = iota
	// RoleServer: the authoritative end, which plays for nobody.
	RoleServer
	// RoleClient: a player's end of a session, joining, playing or ended.
	RoleClient
)

// String returns the name a script sees: "offline", "server" or "client".
func (r Role) String() string {
	switch r {
	case RoleServer:
		return "server"
	case RoleClient:
		return "client"
	}
	return "offline"
}

// PlayerInfo is one seated player as every end knows them. Number, Name
// and Entity are the same on every end once the server's word has
// arrived; RTT is this end's measure of the link (the server's on a
// server, the server's last report on a client, 0 offline) and is for
// showing only: the simulation must not depend on it.
type PlayerInfo struct {
	Number uint16
	Name   string
	// Entity is what the join handler gave the player (None: nothing).
	Entity entity.ID
	RTT    time.Duration
}

// luaPlayer implements self:player(): the number of the player whose
// commands drive the entity, 0 for none.
func (r *Runtime) luaPlayer(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	L.Push(lua.LNumber(r.world.Player(id)))
	return 1
}

// luaPlayers implements net.players(): a new list, in number order, of
// {number, name, entity, rtt} tables. entity is nil while this end does
// not hold the player's entity (a client before the snapshot that brings
// it, or a player the join handler gave none).
func (r *Runtime) luaPlayers(L *lua.LState) int {
	r.players = r.world.Players(r.players[:0])
	list := L.CreateTable(len(r.players), 0)
	for i, p := range r.players {
		t := L.CreateTable(0, 4)
		t.RawSetString("number", lua.LNumber(p.Number))
		t.RawSetString("name", lua.LString(p.Name))
		if r.world.Alive(p.Entity) {
			t.RawSetString("entity", r.handle(p.Entity))
		}
		t.RawSetString("rtt", lua.LNumber(p.RTT.Seconds()))
		list.RawSetInt(i+1, t)
	}
	L.Push(list)
	return 1
}

// luaRole implements net.role().
func (r *Runtime) luaRole(L *lua.LState) int {
	L.Push(lua.LString(r.world.Role().String()))
	return 1
}

// luaLocalPlayer implements net.local_player(): this end's own player
// number, 0 where it has none (a server, a client before its Welcome).
func (r *Runtime) luaLocalPlayer(L *lua.LState) int {
	L.Push(lua.LNumber(r.world.LocalPlayer()))
	return 1
}

// luaOnLeave implements net.on_leave(fn).
func (r *Runtime) luaOnLeave(L *lua.LState) int {
	if r.building == nil {
		L.RaiseError("net.on_leave may only be called while vkmSetupNetwork runs")
	}
	fn := L.CheckFunction(1)
	if r.newLeave != nil {
		L.RaiseError("net.on_leave called twice")
	}
	r.newLeave = fn
	return 0
}

// HasLeaveHandler reports whether the last SetupNetwork registered a leave
// handler with net.on_leave.
func (r *Runtime) HasLeaveHandler() bool { return r.leave != nil }

// Leave calls the leave handler with the number of the player who left
// and their entity (nil in Lua when id is not alive), and reports whether
// the handler asked to keep the entity by returning true. Without a
// handler it returns false: the caller destroys the entity, as it always
// has. A script error comes back as a *ScriptError; keep is then false.
func (r *Runtime) Leave(player uint16, id entity.ID) (keep bool, err error) {
	if r.leave == nil {
		return false, nil
	}
	ent := lua.LValue(lua.LNil)
	if r.world.Alive(id) {
		ent = r.handle(id)
	}
	if err := r.callSetup("leave handler", keyLeave^uint64(player)<<32, r.leave, 1, lua.LNumber(player), ent); err != nil {
		return false, err
	}
	v := r.ls.Get(-1)
	r.ls.Pop(1)
	switch v {
	case lua.LTrue:
		return true, nil
	case lua.LNil, lua.LFalse:
		return false, nil
	}
	return false, fmt.Errorf("scripting: leave handler returned a %s, want true (keep the entity), false or nothing", v.Type())
}

// luaOnDrain implements net.on_drain(fn).
func (r *Runtime) luaOnDrain(L *lua.LState) int {
	if r.building == nil {
		L.RaiseError("net.on_drain may only be called while vkmSetupNetwork runs")
	}
	fn := L.CheckFunction(1)
	if r.newDrain != nil {
		L.RaiseError("net.on_drain called twice")
	}
	r.newDrain = fn
	return 0
}

// Drain tells the game the server is stopping: the drain handler
// (net.on_drain) runs with the seconds left before every player still
// seated is sent away, so the game can end its round. It runs once in the
// runtime's life; later calls, and a runtime without a handler, do
// nothing. A script error comes back as a *ScriptError.
func (r *Runtime) Drain(secondsLeft float64) error {
	if r.drain == nil || r.drained {
		return nil
	}
	r.drained = true
	return r.callSetup("drain handler", keyDrain, r.drain, 0, lua.LNumber(secondsLeft))
}

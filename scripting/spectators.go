package scripting

import lua "github.com/yuin/gopher-lua"

// SpectatorInfo is one spectator as the server knows them: a connection
// that watches, holding no seat and no entity.
type SpectatorInfo struct {
	Number  uint16
	Name    string
	Follows uint16 // the player it follows, 0 for the whole level
}

// Watched is what a World that has spectators offers besides World: the
// server's. Other ends list none.
type Watched interface {
	Spectators(dst []SpectatorInfo) []SpectatorInfo
}

// luaSpectators implements net.spectators(): a new list, in number order,
// of {number, name, follows} tables. Only a server has spectators; they are
// outside the simulation (a recording holds none), so a script shows them
// and must not let them steer the match.
func (r *Runtime) luaSpectators(L *lua.LState) int {
	var list []SpectatorInfo
	if w, ok := r.world.(Watched); ok {
		list = w.Spectators(nil)
	}
	t := L.CreateTable(len(list), 0)
	for i, s := range list {
		e := L.CreateTable(0, 3)
		e.RawSetString("number", lua.LNumber(s.Number))
		e.RawSetString("name", lua.LString(s.Name))
		e.RawSetString("follows", lua.LNumber(s.Follows))
		t.RawSetInt(i+1, e)
	}
	L.Push(t)
	return 1
}

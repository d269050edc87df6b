package scripting

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// The chat's judge, set in vkmSetupNetwork:
//
//	net.on_chat(function(player, text) return text end)
//
// It runs on the server for every line a player types, when it arrives:
// it returns the line to send to the players (the text, or another to
// rewrite it), false to refuse it, or nothing to keep it as typed; and,
// after the line, a list of player numbers to send it to those alone (a
// team's channel), or nothing for everyone.

// keyChat keys math.random inside the chat handler.
const keyChat uint64 = 0x63686174 << 8

// luaOnChat implements net.on_chat(fn).
func (r *Runtime) luaOnChat(L *lua.LState) int {
	if r.building == nil {
		L.RaiseError("net.on_chat may only be called while vkmSetupNetwork runs")
	}
	fn := L.CheckFunction(1)
	if r.msg.newChat != nil {
		L.RaiseError("net.on_chat called twice")
	}
	r.msg.newChat = fn
	return 0
}

// HasChatHandler reports whether the last SetupNetwork registered a chat
// handler with net.on_chat.
func (r *Runtime) HasChatHandler() bool { return r.msg.chat != nil }

// Chat asks the chat handler about a line player typed: it returns the
// line to send (text itself without a handler), whether to send it, and
// the players to send it to (nil: everyone). A script error, or a return
// value that is neither a string, false nor nil, or recipients that are
// not a list of player numbers, come back as an error, and the line is
// refused.
func (r *Runtime) Chat(player uint16, text string) (string, bool, []uint16, error) {
	if r.msg.chat == nil {
		return text, true, nil, nil
	}
	if err := r.callSetup("chat handler", keyChat^uint64(player)<<32, r.msg.chat, 2, lua.LNumber(player), lua.LString(text)); err != nil {
		return "", false, nil, err
	}
	v, list := r.ls.Get(-2), r.ls.Get(-1)
	r.ls.Pop(2)
	var to []uint16
	switch l := list.(type) {
	case *lua.LTable:
		to = []uint16{}
		for i := 1; i <= l.Len(); i++ {
			n, ok := l.RawGetInt(i).(lua.LNumber)
			if !ok || float64(n) != math.Trunc(float64(n)) || n < 1 || n > 65535 {
				return "", false, nil, fmt.Errorf("scripting: chat handler's recipients hold %s, want player numbers", l.RawGetInt(i).String())
			}
			to = append(to, uint16(n))
		}
	default:
		if list != lua.LNil {
			return "", false, nil, fmt.Errorf("scripting: chat handler returned recipients of type %s, want a list of player numbers", list.Type())
		}
	}
	switch v := v.(type) {
	case lua.LString:
		return string(v), v != "", to, nil
	case lua.LBool:
		if !v {
			return "", false, nil, nil
		}
		return text, true, to, nil
	}
	if v == lua.LNil {
		return text, true, to, nil
	}
	return "", false, nil, fmt.Errorf("scripting: chat handler returned a %s, want a string, false or nil", v.Type())
}
